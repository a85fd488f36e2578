// SPDX-License-Identifier: LGPL-2.1-or-later
// vmafx-batch: scores a catalogue — a manifest of reference/distorted pairs — as independent tasks that a scheduler
// such as Slurm runs anywhere, one row (or one chunk of a long row) per task, and merges their results into one
// table (docs/scaling.md).
//   vmafx-batch check MANIFEST                 every row checked before anything runs; the tasks it makes
//   vmafx-batch run MANIFEST --out-dir D ...   scores rows / tasks (a Slurm array task by SLURM_ARRAY_TASK_ID)
//   vmafx-batch status MANIFEST --out-dir D    done, failed and missing tasks; the sbatch line for the missing
//   vmafx-batch merge MANIFEST --out-dir D -o TABLE.csv|TABLE.json [--per-frame]
// A task's result is a file named by the SHA-256 of everything that determines its numbers, written atomically; a
// valid one makes the task a no-op, so a resubmitted array redoes only what is missing. Progress and the outcome of
// each task go to stdout (lines in a log file, a live line on a terminal), errors to stderr. Exit status 0; 1 for an
// error (a task that failed, a bad manifest); 2 from status while tasks are missing or failed, and from merge
// --partial when it left rows out.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "batch/manifest.h"
#include "batch/plan.h"
#include "batch/result.h"
#include "batch/score.h"
#include "batch/table.h"
#include "cli_options.h"

using namespace vmafx;
using namespace vmafx::tools;
using namespace vmafx::tools::batch;

namespace {

// Where `make install` puts the Slurm scripts (meson sets it); status names the array script there when the
// output folder does not record the one a submission used.
#ifndef VMAFX_BATCH_SLURM_DIR
#define VMAFX_BATCH_SLURM_DIR "/usr/share/vmafxhip/slurm"
#endif

// The submit helper records the sbatch options, the throttle, the array script and vmafx-batch run options of a
// submission here (one "sbatch ARG", "throttle T", "script PATH" or "run ARG" a line), so that status prints a
// resubmission line with them.
constexpr const char* kSubmitRecord = ".vmafx-batch-submit";

void usage(FILE* out) {
  std::fprintf(out,
               "usage: vmafx-batch COMMAND MANIFEST [options]\n\n"
               "commands:\n"
               "  check MANIFEST                  check every row (inputs, models, features, chunks); list the tasks\n"
               "  run MANIFEST --out-dir DIR      score rows or tasks into DIR (skips those with a valid result)\n"
               "      --row N | --rows LIST       manifest rows (every chunk of each), LIST as sbatch's: 0-9,12\n"
               "      --task N | --tasks LIST     tasks (a row, or one chunk of a chunked row)\n"
               "      --all                       every task, one after the other\n"
               "      (none of these)             the task of $SLURM_ARRAY_TASK_ID, or with --pack P the tasks\n"
               "                                  k*P .. k*P+P-1 of array task k\n"
               "      --backend auto|cpu|hip      where features run (default auto: a GPU when one is usable)\n"
               "      --vendor auto|amd|nvidia --device N   GPU runtime and device (default: automatic placement)\n"
               "      --threads N                 CPU worker threads (default 0: the calling thread)\n"
               "  status MANIFEST --out-dir DIR   done / failed / missing tasks and the sbatch line for the missing\n"
               "  merge MANIFEST --out-dir DIR -o TABLE.csv|TABLE.json   one row per manifest row, pooled scores\n"
               "      --per-frame                 every frame too (CSV: TABLE.frames.csv beside it)\n"
               "      --percentiles LIST          pooled percentiles (default 1,5,50)\n"
               "      --partial                   write the rows that are complete, list the others\n"
               "options of every command (give each command of a batch the same):\n"
               "  --chunk-frames N                split rows without a chunk_frames value into chunks of N frames\n"
               "  --identity stat|content         input identity in result keys: path, size and mtime (default),\n"
               "                                  or the SHA-256 of the contents\n"
               "  --pack P                        array task k runs tasks k*P .. k*P+P-1 (default 1)\n"
               "  --help, --version\n");
}

int fail(const std::string& msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "vmafx-batch: %s\n", msg.c_str());
  return 1;
}

struct Args {
  std::string command, manifest, out_dir, output;
  std::string rows, tasks;  // lists as given
  bool all = false;
  bool per_frame = false, partial = false;
  uint64_t pack = 1;
  BatchSettings settings;
  ScoreOptions score;
  std::vector<double> percentiles = {1, 5, 50};
};

bool parse_percentiles(const std::string& s, std::vector<double>* out) {
  std::vector<double> v;
  size_t pos = 0;
  for (;;) {
    const size_t comma = s.find(',', pos);
    const std::string p = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    double d = 0;
    if (!parse_double(p, &d) || !(d >= 0 && d <= 100)) return false;
    v.push_back(d);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  *out = v;
  return true;
}

// Returns 0 to go on, else the exit status + 1.
int parse_args(int argc, char** argv, Args* a) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string first = argv[1];
  if (first == "--help" || first == "-h") {
    usage(stdout);
    return 1;
  }
  if (first == "--version") {
    std::printf("vmafx-batch %s\n", engine_version());
    return 1;
  }
  a->command = first;
  if (a->command != "check" && a->command != "run" && a->command != "status" && a->command != "merge") {
    usage(stderr);
    fail("unknown command '" + a->command + "' (check, run, status, merge)");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    const std::string o = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    auto need = [&](const char* what) {
      if (!value(&v)) {
        fail(o + " needs " + what);
        return false;
      }
      return true;
    };
    auto number = [&](uint64_t min, uint64_t max, uint64_t* out) {
      if (!need("a number")) return false;
      if (Status s = parse_uint(v, min, max, o, out); !s) {
        fail(s.message());
        return false;
      }
      return true;
    };
    uint64_t n = 0;
    if (o == "--out-dir") {
      if (!need("a folder")) return 2;
      a->out_dir = v;
    } else if (o == "-o" || o == "--output") {
      if (!need("a path")) return 2;
      a->output = v;
    } else if (o == "--row" || o == "--rows") {
      if (!need("a row number or list")) return 2;
      a->rows = v;
    } else if (o == "--task" || o == "--tasks") {
      if (!need("a task number or list")) return 2;
      a->tasks = v;
    } else if (o == "--all") {
      a->all = true;
    } else if (o == "--pack") {
      if (!number(1, uint64_t(1) << 32, &a->pack)) return 2;
    } else if (o == "--chunk-frames") {
      if (!number(0, UINT32_MAX, &a->settings.chunk_frames)) return 2;
    } else if (o == "--identity") {
      if (!need("stat or content")) return 2;
      if (!parse_identity(v, &a->settings.identity)) {
        fail("--identity is stat or content, not '" + v + "'");
        return 2;
      }
    } else if (o == "--backend") {
      if (!need("auto, cpu or hip")) return 2;
      if (v == "auto") a->score.backend = Backend::auto_select;
      else if (v == "cpu") a->score.backend = Backend::cpu;
      else if (v == "hip") a->score.backend = Backend::hip;
      else {
        fail("--backend is auto, cpu or hip, not '" + v + "'");
        return 2;
      }
    } else if (o == "--vendor") {
      if (!need("auto, amd or nvidia")) return 2;
      if (v == "auto") a->score.vendor = Vendor::auto_select;
      else if (v == "amd") a->score.vendor = Vendor::amd;
      else if (v == "nvidia") a->score.vendor = Vendor::nvidia;
      else {
        fail("--vendor is auto, amd or nvidia, not '" + v + "'");
        return 2;
      }
    } else if (o == "--device") {
      if (!number(0, 255, &n)) return 2;
      a->score.device = int(n);
    } else if (o == "--threads") {
      if (!number(0, 4096, &n)) return 2;
      a->score.threads = unsigned(n);
    } else if (o == "--per-frame") {
      a->per_frame = true;
    } else if (o == "--partial") {
      a->partial = true;
    } else if (o == "--percentiles") {
      if (!need("a list such as 1,5,50")) return 2;
      if (!parse_percentiles(v, &a->percentiles)) {
        fail("--percentiles takes numbers from 0 to 100 separated by ',', not '" + v + "'");
        return 2;
      }
    } else if (o == "--help" || o == "-h") {
      usage(stdout);
      return 1;
    } else if (!o.empty() && o[0] == '-') {
      fail("unknown option '" + o + "' (see --help)");
      return 2;
    } else if (a->manifest.empty()) {
      a->manifest = o;
    } else {
      fail("unexpected argument '" + o + "'");
      return 2;
    }
  }
  if (a->manifest.empty()) {
    fail(a->command + " needs a MANIFEST");
    return 2;
  }
  if (a->command != "check" && a->out_dir.empty()) {
    fail(a->command + " needs --out-dir DIR");
    return 2;
  }
  if (a->command == "merge" && a->output.empty()) {
    fail("merge needs -o TABLE.csv or -o TABLE.json");
    return 2;
  }
  int selectors = (a->rows.empty() ? 0 : 1) + (a->tasks.empty() ? 0 : 1) + (a->all ? 1 : 0);
  if (selectors > 1) {
    fail("give one of --row/--rows, --task/--tasks and --all");
    return 2;
  }
  if (selectors && a->command != "run") {
    fail("--row, --task and --all are options of run");
    return 2;
  }
  return 0;
}

std::string host_name() {
  char h[256] = {};
  if (gethostname(h, sizeof h - 1) != 0) return "?";
  return h;
}

// "job 123 task 7 on node2" from Slurm's environment ("" outside a Slurm job).
std::string slurm_where() {
  const char* job = std::getenv("SLURM_ARRAY_JOB_ID");
  if (!job) job = std::getenv("SLURM_JOB_ID");
  if (!job) return "";
  std::string s = std::string("job ") + job;
  if (const char* t = std::getenv("SLURM_ARRAY_TASK_ID")) s += std::string(" task ") + t;
  if (const char* n = std::getenv("SLURMD_NODENAME")) s += std::string(" on ") + n;
  if (const char* r = std::getenv("SLURM_RESTART_COUNT"); r && std::strcmp(r, "0") != 0)
    s += std::string(" restart ") + r;
  return s;
}

Status load(const Args& a, Manifest* m, Plan* plan) {
  std::vector<std::string> errors;
  Status s = load_manifest(a.manifest, m, &errors);
  if (s && plan) s = make_plan(*m, a.settings, plan, &errors);
  if (!errors.empty()) {
    std::fflush(stdout);
    for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
  }
  if (!s) fail(s.message());
  return s;
}

std::string unit_text(const Manifest& m, const Unit& u) {
  const Row& r = m.rows[u.row];
  std::string s = "row " + std::to_string(u.row);
  if (!r.tag.empty()) s += " (" + r.tag + ")";
  if (!u.whole)
    s += " chunk " + std::to_string(u.chunk + 1) + "/" + std::to_string(u.chunks) + " frames " +
         std::to_string(u.first) + "-" + std::to_string(u.end - 1);
  return s;
}

// ---- progress ----

// Of one task: on a terminal a live line redrawn at most every 100 ms; otherwise (a Slurm log file) a line at each
// quarter of the frames.
class Progress {
 public:
  Progress(bool tty, std::string label) : tty_(tty), label_(std::move(label)) {
    start_ = std::chrono::steady_clock::now();
  }
  void update(uint64_t done, uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double fps = secs > 0 ? double(done) / secs : 0;
    if (tty_) {
      if (now - last_ < std::chrono::milliseconds(100) && done != total) return;
      last_ = now;
      if (total)
        std::printf("\r%s: %" PRIu64 "/%" PRIu64 " frames  %.1f fps\033[K", label_.c_str(), done, total, fps);
      else
        std::printf("\r%s: %" PRIu64 " frames  %.1f fps\033[K", label_.c_str(), done, fps);
      std::fflush(stdout);
      open_ = true;
      return;
    }
    if (!total) return;
    const unsigned quarter = unsigned(done * 4 / total);
    if (quarter > quarter_ && quarter < 4) {
      quarter_ = quarter;
      std::printf("vmafx-batch: %s: %u%% (%" PRIu64 "/%" PRIu64 " frames, %.1f fps)\n", label_.c_str(), quarter * 25,
                  done, total, fps);
      std::fflush(stdout);
    }
  }
  // Ends the live line before any other output.
  void close() {
    if (open_) std::printf("\r\033[K");
    open_ = false;
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  bool tty_;
  std::string label_;
  std::chrono::steady_clock::time_point start_, last_;
  unsigned quarter_ = 0;
  bool open_ = false;
};

// ---- results in the output folder ----

enum class UnitState { done, failed, missing };

struct UnitStatus {
  UnitState state = UnitState::missing;
  std::string key;
  std::string why;  // failed: the error; missing: why an existing file was not accepted
  FailedRecord failed;
};

Status unit_status(const std::string& dir, const Row& row, const Unit& u, IdentityCache* ids, UnitStatus* out,
                   UnitResult* result = nullptr) {
  UnitStatus st;
  VMAFX_TRY(unit_key(row, u, ids, &st.key));
  std::string text;
  bool exists = false;
  VMAFX_TRY(read_file(result_path(dir, st.key), &text, &exists));
  if (exists) {
    UnitResult r;
    if (Status s = parse_result(text, st.key, &r); s) {
      st.state = UnitState::done;
      if (result) *result = std::move(r);
      *out = std::move(st);
      return Status::ok();
    } else {
      st.why = "its result file is not valid (" + s.message() + ")";
    }
  }
  VMAFX_TRY(read_file(failed_path(dir, st.key), &text, &exists));
  if (exists && parse_failed(text, &st.failed) && st.failed.key == st.key) {
    st.state = UnitState::failed;
    st.why = st.failed.error;
  }
  *out = std::move(st);
  return Status::ok();
}

Status make_dir(const std::string& dir) {
  std::string path;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = dir.find('/', pos + 1);
    path = dir.substr(0, pos);
    if (path.empty()) continue;
    if (mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
      return {Errc::io_error, "cannot create folder " + path + ": " + std::strerror(errno)};
  }
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return {Errc::io_error, dir + " is not a folder"};
  return Status::ok();
}

// ---- check ----

int cmd_check(const Args& a) {
  Manifest m;
  Plan plan;
  if (!load(a, &m, &plan)) return 1;
  // Every row as run would start it: both inputs opened and compared, the models loaded, the features configured
  // at the pair's geometry (a CPU scorer, no GPU needed), a chunked row's context known.
  std::vector<std::string> errors;
  size_t chunked = 0;
  for (const Row& row : m.rows) {
    const std::string where = row_where(m, row);
    VideoReader ref, dist;
    if (Status s = open_pair(row, &ref, &dist); !s) {
      errors.push_back(where + ": " + s.message());
      continue;
    }
    ScoreOptions o;
    o.backend = Backend::cpu;
    StreamGeometry g;
    g.ref = ref.geometry();
    g.dist = g.ref;
    std::unique_ptr<Scorer> scorer;
    if (Status s = Scorer::create(scorer_config(row, o), g, &scorer); !s) {
      errors.push_back(where + ": " + s.message());
      continue;
    }
    if (plan.unit_count[row.index] > 0 && !plan.units[plan.first_unit[row.index]].whole) {
      chunked++;
      const RangeContext ctx = scorer->range_context();
      if (!ctx.exact) errors.push_back(where + ": chunk_frames: this row cannot be scored in chunks: " + ctx.reason);
    }
    IdentityCache ids(a.settings.identity);
    std::string key;
    if (Status s = unit_key(row, plan.units[plan.first_unit[row.index]], &ids, &key); !s)
      errors.push_back(where + ": " + s.message());
  }
  if (!errors.empty()) {
    std::fflush(stdout);
    for (const auto& e : errors) std::fprintf(stderr, "%s\n", e.c_str());
    return fail(a.manifest + ": " + std::to_string(errors.size()) + " error" + (errors.size() == 1 ? "" : "s"));
  }
  const uint64_t tasks = plan.units.size();
  std::printf("vmafx-batch: %s: %zu rows, %" PRIu64 " tasks", a.manifest.c_str(), m.rows.size(), tasks);
  if (chunked) std::printf(" (%zu row%s in chunks)", chunked, chunked == 1 ? "" : "s");
  std::printf("\n");
  for (const Row& row : m.rows) {
    const unsigned n = plan.unit_count[row.index];
    const Unit& u = plan.units[plan.first_unit[row.index]];
    if (u.whole) continue;
    std::printf("  row %zu: %" PRIu64 " frames in %u chunks of %" PRIu64 ": tasks %zu-%zu\n", row.index,
                u.row_frames, n, chunk_size(row, a.settings), plan.first_unit[row.index],
                plan.first_unit[row.index] + n - 1);
  }
  const uint64_t arrays = pack_count(tasks, a.pack);
  if (a.pack > 1)
    std::printf("array: --array=0-%" PRIu64 " with --pack %" PRIu64 " (%" PRIu64 " tasks per array task)\n",
                arrays - 1, a.pack, a.pack);
  else
    std::printf("array: --array=0-%" PRIu64 "\n", arrays - 1);
  return 0;
}

// ---- run ----

Status run_unit(const Args& a, const Manifest& m, const Plan& plan, uint64_t task, IdentityCache* ids, bool tty,
                std::shared_ptr<Scorer>* warm) {
  const Unit& u = plan.units[task];
  const Row& row = m.rows[u.row];
  const std::string label = "task " + std::to_string(task);
  UnitStatus st;
  VMAFX_TRY(unit_status(a.out_dir, row, u, ids, &st));
  if (st.state == UnitState::done) {
    std::printf("vmafx-batch: %s: %s: done already (%s.result)\n", label.c_str(), unit_text(m, u).c_str(),
                st.key.c_str());
    return Status::ok();
  }
  if (!st.why.empty() && st.state == UnitState::missing)
    std::printf("vmafx-batch: %s: %s: scoring again: %s\n", label.c_str(), unit_text(m, u).c_str(), st.why.c_str());
  std::printf("vmafx-batch: %s: %s: scoring %s against %s\n", label.c_str(), unit_text(m, u).c_str(),
              row.ref_path.c_str(), row.dist_path.c_str());
  std::fflush(stdout);

  Progress progress(tty, label);
  ScoreOptions o = a.score;
  o.keep_warm = warm;
  o.progress = [&](uint64_t done, uint64_t total) { progress.update(done, total); };
  o.notice = [&](const std::string& text) {
    progress.close();
    std::printf("vmafx-batch: %s: %s\n", label.c_str(), text.c_str());
    std::fflush(stdout);
  };
  UnitResult r;
  Status s = score_unit(row, u, o, &r);
  progress.close();
  const std::string where = slurm_where();
  if (s) {
    r.key = st.key;
    std::string text;
    VMAFX_TRY(unit_key_text(row, u, ids, &text));
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t nl = text.find('\n', pos);
      r.key_text.push_back(text.substr(pos, nl - pos));
      pos = nl == std::string::npos ? text.size() : nl + 1;
    }
    r.row = row.index;
    r.line = row.line;
    r.tag = row.tag;
    r.reference = row.ref_path;
    r.distorted = row.dist_path;
    r.host = host_name();
    r.slurm = where;
    r.seconds = progress.seconds();
    s = write_file_atomic(result_path(a.out_dir, st.key), format_result(r));
  }
  if (!s) {
    FailedRecord f;
    f.key = st.key;
    f.row = row.index;
    f.tag = row.tag;
    f.host = host_name();
    f.slurm = where;
    f.error = s.message();
    if (Status w = write_file_atomic(failed_path(a.out_dir, st.key), format_failed(f)); !w)
      std::fprintf(stderr, "vmafx-batch: %s: %s\n", label.c_str(), w.message().c_str());
    return s.prepend(label + ": " + unit_text(m, u));
  }
  unlink(failed_path(a.out_dir, st.key).c_str());
  const double secs = progress.seconds();
  std::printf("vmafx-batch: %s: done in %.2f s (%" PRIu64 " frames, %.1f fps, %s): %s.result\n", label.c_str(), secs,
              r.frames, secs > 0 ? double(r.frames) / secs : 0.0, r.backend.c_str(), st.key.c_str());
  std::fflush(stdout);
  return Status::ok();
}

int cmd_run(const Args& a) {
  Manifest m;
  Plan plan;
  if (!load(a, &m, &plan)) return 1;
  const uint64_t total = plan.units.size();
  std::vector<uint64_t> tasks;
  if (a.all) {
    for (uint64_t t = 0; t < total; t++) tasks.push_back(t);
  } else if (!a.rows.empty()) {
    std::vector<uint64_t> rows;
    if (Status s = parse_ranges(a.rows, m.rows.size(), "--rows", &rows); !s) return fail(s.message());
    for (uint64_t r : rows)
      for (unsigned k = 0; k < plan.unit_count[r]; k++) tasks.push_back(plan.first_unit[r] + k);
  } else if (!a.tasks.empty()) {
    if (Status s = parse_ranges(a.tasks, total, "--tasks", &tasks); !s) return fail(s.message());
  } else {
    const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
    if (!id) return fail("run needs --row, --rows, --task, --tasks or --all (or runs as a Slurm array task: "
                         "SLURM_ARRAY_TASK_ID is not set)");
    uint64_t k = 0;
    if (Status s = parse_uint(id, 0, UINT64_MAX, "SLURM_ARRAY_TASK_ID", &k); !s) return fail(s.message());
    const UnitRange r = pack_units(k, a.pack, total);
    if (r.first == r.end) {
      std::printf("vmafx-batch: array task %" PRIu64 " (pack %" PRIu64 "): no task of the %" PRIu64
                  " in %s, nothing to do\n",
                  k, a.pack, total, a.manifest.c_str());
      return 0;
    }
    for (uint64_t t = r.first; t < r.end; t++) tasks.push_back(t);
  }
  if (Status s = make_dir(a.out_dir); !s) return fail(s.message());
  const bool tty = isatty(STDOUT_FILENO) == 1;
  std::string where = slurm_where();
  std::string gpus;
  for (const char* v : {"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"})
    if (const char* e = std::getenv(v)) gpus += std::string(gpus.empty() ? "" : " ") + v + "=" + e;
  std::printf("vmafx-batch: %s: %zu task%s of %" PRIu64 " on %s%s%s%s\n", a.manifest.c_str(), tasks.size(),
              tasks.size() == 1 ? "" : "s", total, host_name().c_str(),
              where.empty() ? "" : (" (" + where + ")").c_str(),
              gpus.empty() ? "" : ", ", gpus.c_str());
  std::fflush(stdout);
  IdentityCache ids(a.settings.identity);
  size_t failed = 0;
  std::shared_ptr<Scorer> warm;  // the GPU runtime across the tasks of this process
  for (uint64_t t : tasks) {
    if (Status s = run_unit(a, m, plan, t, &ids, tty, &warm); !s) {
      failed++;
      fail(s.message());
    }
  }
  if (failed) return fail(std::to_string(failed) + " of " + std::to_string(tasks.size()) + " tasks failed");
  return 0;
}

// ---- status ----

struct SubmitRecord {
  std::vector<std::string> sbatch, run;
  std::string script, throttle;
};

SubmitRecord read_submit_record(const std::string& dir) {
  SubmitRecord r;
  std::string text;
  bool exists = false;
  if (!read_file(dir + "/" + kSubmitRecord, &text, &exists) || !exists) return r;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (line.rfind("sbatch ", 0) == 0) r.sbatch.push_back(unescape_line(line.substr(7)));
    else if (line.rfind("run ", 0) == 0) r.run.push_back(unescape_line(line.substr(4)));
    else if (line.rfind("script ", 0) == 0) r.script = unescape_line(line.substr(7));
    else if (line.rfind("throttle ", 0) == 0) r.throttle = unescape_line(line.substr(9));
  }
  return r;
}

std::string shell_word(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,%+@") ==
                        std::string::npos)
    return s;
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "'\\''";
    else o += c;
  }
  return o + "'";
}

// Files in the output folder that no task of the manifest accepts now: results and failure records of other keys,
// temporary files of writers that were killed.
void count_strays(const std::string& dir, const std::set<std::string>& keys, size_t* other, size_t* temps) {
  *other = *temps = 0;
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (is_temporary_name(n)) {
      (*temps)++;
    } else if (n.size() == 64 + 7 && n.compare(64, 7, ".result") == 0) {
      if (!keys.count(n.substr(0, 64))) (*other)++;
    }
  }
  closedir(d);
}

int cmd_status(const Args& a) {
  Manifest m;
  Plan plan;
  if (!load(a, &m, &plan)) return 1;
  IdentityCache ids(a.settings.identity);
  std::vector<uint64_t> missing;  // failed or missing tasks
  size_t done = 0, failed = 0;
  std::set<std::string> keys;
  std::vector<std::string> lines;
  for (uint64_t t = 0; t < plan.units.size(); t++) {
    const Unit& u = plan.units[t];
    UnitStatus st;
    if (Status s = unit_status(a.out_dir, m.rows[u.row], u, &ids, &st); !s) {
      // No key (an input gone or unreadable): missing, with the reason.
      st.state = UnitState::missing;
      st.why = s.message();
    }
    keys.insert(st.key);
    if (st.state == UnitState::done) {
      done++;
      continue;
    }
    missing.push_back(t);
    std::string line = "  task " + std::to_string(t) + ": " + unit_text(m, u) + ": ";
    if (st.state == UnitState::failed) {
      failed++;
      line += "failed";
      if (!st.failed.slurm.empty()) line += " (" + st.failed.slurm + ")";
      else if (!st.failed.host.empty()) line += " on " + st.failed.host;
      line += ": " + st.why;
    } else {
      line += "missing";
      if (!st.why.empty()) line += ": " + st.why;
    }
    lines.push_back(line);
  }
  std::printf("vmafx-batch: %s: %zu rows, %zu tasks in %s: %zu done, %zu failed, %zu missing\n", a.manifest.c_str(),
              m.rows.size(), plan.units.size(), a.out_dir.c_str(), done, failed, missing.size() - failed);
  for (const auto& l : lines) std::printf("%s\n", l.c_str());
  size_t other = 0, temps = 0;
  count_strays(a.out_dir, keys, &other, &temps);
  if (other)
    std::printf("  %zu result file%s of other keys (an earlier manifest, inputs or build; merge ignores them)\n", other,
                other == 1 ? "" : "s");
  if (temps)
    std::printf("  %zu temporary file%s of writers that did not finish (killed tasks; safe to delete when no task "
                "runs)\n",
                temps, temps == 1 ? "" : "s");
  if (missing.empty()) {
    std::printf("complete: vmafx-batch merge %s --out-dir %s -o TABLE.csv\n", shell_word(a.manifest).c_str(),
                shell_word(a.out_dir).c_str());
    return 0;
  }
  const SubmitRecord rec = read_submit_record(a.out_dir);
  uint64_t pack = a.pack;
  for (size_t i = 0; i + 1 < rec.run.size(); i++)
    if (rec.run[i] == "--pack" && !parse_uint(rec.run[i + 1], 1, UINT64_MAX, "--pack", &pack))
      return fail(a.out_dir + "/" + kSubmitRecord + ": --pack " + rec.run[i + 1] + " is not a number");
  const std::vector<uint64_t> arrays = packs_of(missing, pack);
  std::string cmd = "sbatch";
  for (const auto& s : rec.sbatch) cmd += " " + shell_word(s);
  cmd += " --array=" + compress_ranges(arrays) + (rec.throttle.empty() ? "" : "%" + rec.throttle);
  cmd += " " + shell_word(rec.script.empty() ? std::string(VMAFX_BATCH_SLURM_DIR) + "/vmafx-batch-array.sh"
                                             : rec.script);
  cmd += " " + shell_word(a.manifest) + " " + shell_word(a.out_dir);
  for (const auto& s : rec.run) cmd += " " + shell_word(s);
  if (rec.run.empty() && pack > 1) cmd += " --pack " + std::to_string(pack);
  if (rec.run.empty() && a.settings.chunk_frames) cmd += " --chunk-frames " + std::to_string(a.settings.chunk_frames);
  if (rec.run.empty() && a.settings.identity != Identity::stat)
    cmd += std::string(" --identity ") + identity_name(a.settings.identity);
  std::printf("resubmit the %zu task%s%s:\n  %s\n", missing.size(), missing.size() == 1 ? "" : "s",
              pack > 1
                  ? (" (" + std::to_string(arrays.size()) + " array tasks of " + std::to_string(pack) + ")").c_str()
                  : "",
              cmd.c_str());
  return 2;
}

// ---- merge ----

int cmd_merge(const Args& a) {
  TableFormat fmt;
  if (!table_format_of(a.output, &fmt)) return fail("-o " + a.output + ": the table's name ends in .csv or .json");
  Manifest m;
  Plan plan;
  if (!load(a, &m, &plan)) return 1;
  IdentityCache ids(a.settings.identity);
  std::vector<MergedRow> rows;
  rows.reserve(m.rows.size());
  std::vector<std::string> incomplete;
  for (const Row& row : m.rows) {
    std::vector<UnitResult> results;
    std::string missing;
    for (unsigned k = 0; k < plan.unit_count[row.index]; k++) {
      const uint64_t t = plan.first_unit[row.index] + k;
      UnitStatus st;
      UnitResult r;
      if (Status s = unit_status(a.out_dir, row, plan.units[t], &ids, &st, &r); !s) {
        missing += (missing.empty() ? "" : ",") + std::to_string(t) + " (" + s.message() + ")";
        continue;
      }
      if (st.state != UnitState::done) {
        missing += (missing.empty() ? "" : ",") + std::to_string(t);
        continue;
      }
      results.push_back(std::move(r));
    }
    if (!missing.empty()) {
      incomplete.push_back("row " + std::to_string(row.index) + (row.tag.empty() ? "" : " (" + row.tag + ")") +
                           ": task" + (missing.find(',') == std::string::npos ? " " : "s ") + missing + " not done");
      continue;
    }
    MergedRow mr;
    if (Status s = merge_row(row, results, &mr); !s) return fail(s.message());
    rows.push_back(std::move(mr));
  }
  if (!incomplete.empty()) {
    std::fflush(stdout);
    for (const auto& l : incomplete) std::fprintf(stderr, "vmafx-batch: %s\n", l.c_str());
    if (!a.partial)
      return fail(std::to_string(incomplete.size()) + " of " + std::to_string(m.rows.size()) +
                  " rows are not complete: no table written (vmafx-batch status tells what to resubmit; --partial "
                  "writes the complete rows)");
  }
  TableOptions o;
  o.percentiles = a.percentiles;
  o.per_frame = a.per_frame;
  const std::string text = fmt == TableFormat::csv ? table_csv(rows, o) : table_json(a.manifest, rows, o);
  if (Status s = write_file_atomic(a.output, text); !s) return fail(s.message());
  std::string frames_path;
  if (a.per_frame && fmt == TableFormat::csv) {
    frames_path = a.output.substr(0, a.output.size() - 4) + ".frames.csv";
    if (Status s = write_file_atomic(frames_path, frames_csv(rows)); !s) return fail(s.message());
  }
  std::printf("vmafx-batch: %s: %zu of %zu rows%s\n", a.output.c_str(), rows.size(), m.rows.size(),
              frames_path.empty() ? "" : (", every frame in " + frames_path).c_str());
  return incomplete.empty() ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (int r = parse_args(argc, argv, &a); r) return r - 1;
  if (a.command == "check") return cmd_check(a);
  if (a.command == "run") return cmd_run(a);
  if (a.command == "status") return cmd_status(a);
  return cmd_merge(a);
}
