// SPDX-License-Identifier: LGPL-2.1-or-later
// 1,000 GL frames per pad through vmafxhip leak nothing. The scenario runs in a child process of this binary with
// GStreamer's leaks tracer (GST_TRACERS=leaks) and ends with gst_deinit(), where the tracer reports every GstObject
// and mini object (GL memories, buffers, caps, GL displays and contexts, ...) still alive and warns "Leaks detected".
// (Asking the tracer for its live objects while GL threads are still tearing down resurrects objects that are being
// finalized; the report at gst_deinit() has no such race.) A planted leak (one buffer kept) must be reported, so the
// check is known to be live. On a GPU machine the zero-copy path runs instead, and gl-stats shows one registration
// per pooled texture.
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "gst_gl_harness.h"

namespace vmafx::gl::test {
namespace {

const char* g_self = nullptr;

// The child: the scenario, then gst_deinit(). Exit 0 when the pipeline ran, 3 when it did not, 77 without GL.
int child_main(bool plant_leak) {
  std::string why;
  if (!gst_gl_ready(&why)) {
    std::printf("SKIP %s\n", why.c_str());
    return 77;
  }
  GlRun probe = run_gl_pipeline("videotestsrc num-buffers=1 ! video/x-raw,width=16,height=16 ! glupload ! fakesink");
  if (!probe.eos) {
    std::printf("SKIP no GL here: %s\n", probe.describe().c_str());
    return 77;
  }
  const std::string src = "videotestsrc num-buffers=1000 pattern=ball ! video/x-raw,format=I420,width=64,height=48,"
                          "framerate=25/1";
  GlRun r = run_gl_pipeline(src + " ! glupload ! v.ref_sink " + src + " ! videobalance saturation=0.5 ! glupload ! "
                                "v.dist_sink vmafxhip name=v frame-message=false ! fakesink");
  if (r.gl_stats) {
    gchar* s = gst_structure_to_string(r.gl_stats.get());
    std::printf("gl-stats: %s\n", s);
    g_free(s);
  }
  std::printf("RESULT eos=%d frames-scored=%llu frames-copied=%llu zero-copy=%d registrations=%llu lookups=%llu\n",
              int(r.eos), (unsigned long long)r.frames_scored, (unsigned long long)r.frames_copied,
              int(field_bool(r.gl_stats.get(), "dist-zero-copy")),
              (unsigned long long)field_uint64(r.gl_stats.get(), "dist-registrations"),
              (unsigned long long)field_uint64(r.gl_stats.get(), "dist-texture-lookups"));
  if (!r.eos) std::printf("pipeline failed: %s\n", r.describe().c_str());
  GstBuffer* planted = plant_leak ? gst_buffer_new_allocate(nullptr, 16, nullptr) : nullptr;
  (void)planted;  // kept alive on purpose
  std::fflush(stdout);
  gst_deinit();
  return r.eos ? 0 : 3;
}

struct Child {
  int status = -1;
  std::string out;
};

Child run_child(bool plant) {
  Child c;
  gchar* argv[] = {const_cast<gchar*>(g_self), const_cast<gchar*>(plant ? "--leak-child-planted" : "--leak-child"),
                   nullptr};
  gchar** envp = g_get_environ();
  envp = g_environ_setenv(envp, "GST_TRACERS", "leaks", TRUE);
  envp = g_environ_setenv(envp, "GST_DEBUG", "GST_TRACER:7", TRUE);
  gchar *out = nullptr, *err = nullptr;
  GError* e = nullptr;
  if (!g_spawn_sync(nullptr, argv, envp, G_SPAWN_DEFAULT, nullptr, nullptr, &out, &err, &c.status, &e)) {
    c.out = std::string("spawn failed: ") + (e ? e->message : "?");
    if (e) g_error_free(e);
  } else {
    c.out = std::string(out ? out : "") + (err ? err : "");
  }
  g_free(out);
  g_free(err);
  g_strfreev(envp);
  return c;
}

// The tracer's object-alive lines, shortened.
std::string alive_lines(const std::string& out, size_t* n) {
  std::string lines;
  *n = 0;
  size_t pos = 0;
  // "object-alive, type-name=(string)GstBuffer, ..." per object (the tracer also logs the record's format, with %s).
  const std::string key = "object-alive, type-name=(string)";
  while ((pos = out.find(key, pos)) != std::string::npos) {
    const size_t end = out.find('\n', pos);
    const std::string line = out.substr(pos, std::min<size_t>(end - pos, 200));
    if (line.compare(key.size(), 2, "%s") != 0 && ++*n <= 20) lines += "\n  " + line;
    pos = end == std::string::npos ? out.size() : end;
  }
  return lines;
}

TEST(GstGlLeaks, AThousandFramesLeaveNothingBehind) {
  Child c = run_child(false);
  const std::string result = c.out.substr(std::min(c.out.find("RESULT"), c.out.size()));
  std::printf("%s\n", result.substr(0, result.find('\n')).c_str());
  if (c.out.find("SKIP ") != std::string::npos && g_spawn_check_wait_status(c.status, nullptr) == FALSE)
    GTEST_SKIP() << c.out.substr(c.out.find("SKIP "), 300);
  size_t n = 0;
  const std::string alive = alive_lines(c.out, &n);
  ASSERT_NE(c.out.find("RESULT eos=1 frames-scored=1000"), std::string::npos) << c.out.substr(0, 4000);
  const bool zero_copy = c.out.find("zero-copy=1") != std::string::npos;
  if (!zero_copy) {
    EXPECT_NE(c.out.find("frames-copied=2000"), std::string::npos);
  }
  EXPECT_EQ(c.out.find("Leaks detected"), std::string::npos) << n << " objects alive at gst_deinit:" << alive;
  EXPECT_EQ(n, 0u) << alive;
  std::printf("objects alive at gst_deinit: %zu\n", n);

  // The same with one buffer kept on purpose: the tracer must report it.
  Child planted = run_child(true);
  size_t np = 0;
  const std::string palive = alive_lines(planted.out, &np);
  EXPECT_NE(planted.out.find("Leaks detected"), std::string::npos) << "a planted leak went unreported";
  EXPECT_GE(np, 1u);
  std::printf("planted leak: %zu object(s) reported alive:%s\n", np, palive.c_str());
}

}  // namespace
}  // namespace vmafx::gl::test

int main(int argc, char** argv) {
  vmafx::gl::test::g_self = argv[0];
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "--leak-child") == 0) return vmafx::gl::test::child_main(false);
    if (std::strcmp(argv[i], "--leak-child-planted") == 0) return vmafx::gl::test::child_main(true);
  }
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const testing::UnitTest* u = testing::UnitTest::GetInstance();
  if (rc == 0 && u->successful_test_count() == 0 && u->skipped_test_count() > 0) return 77;
  return rc;
}
