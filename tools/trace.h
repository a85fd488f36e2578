// SPDX-License-Identifier: LGPL-2.1-or-later
// VMAFX_TRACE=1 (CliEnvironment::trace, which main() hands to set_enabled()): vmafx-score prints its phases to
// stderr, one line each, as
//
//   vmafx-score trace:   123.456 ms | cpu user 80 sys 120 ms | <event>
//
// where the first number is monotonic time since vmafx-score's first static initialiser ran (the process has then
// been exec'd and its libraries loaded: the first line says how long before that the process was forked, at the
// kernel's 10 ms resolution) and cpu is the whole process's user and system time so far (getrusage), so a
// phase's wall time and its system time (page faults, copies out of the page cache, driver work) read side by side.
// Header-only: the tool's build lists no extra source.
#pragma once

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace vmafx::tools::trace {

inline const std::chrono::steady_clock::time_point kStart = std::chrono::steady_clock::now();

inline std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> on{false};
  return on;
}
inline bool enabled() { return enabled_flag().load(std::memory_order_relaxed); }
// Called once by main(), before any other thread starts.
inline void set_enabled(bool on) { enabled_flag().store(on, std::memory_order_relaxed); }

inline double ms_since_start() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - kStart).count();
}

inline double tv_ms(const timeval& tv) { return double(tv.tv_sec) * 1e3 + double(tv.tv_usec) / 1e3; }

// Milliseconds from the kernel's start of this process to kStart, from /proc/self/stat's starttime (clock ticks since
// boot) and CLOCK_BOOTTIME; negative when unknown.
inline double exec_to_start_ms() {
  std::FILE* f = std::fopen("/proc/self/stat", "r");
  if (!f) return -1;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = 0;
  const char* p = std::strrchr(buf, ')');  // the command name may contain spaces
  if (!p) return -1;
  // Fields after the name start at 3 (state); starttime is field 22.
  int field = 2;
  unsigned long long start_ticks = 0;
  for (const char* q = p + 1; *q; q++) {
    if (*q == ' ') {
      field++;
      if (field == 22) {
        start_ticks = std::strtoull(q + 1, nullptr, 10);
        break;
      }
    }
  }
  const long hz = sysconf(_SC_CLK_TCK);
  timespec now;
  if (!start_ticks || hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1;
  const double now_ms = double(now.tv_sec) * 1e3 + double(now.tv_nsec) / 1e6;
  const double start_ms = double(start_ticks) * 1e3 / double(hz);
  return now_ms - ms_since_start() - start_ms;
}

inline std::mutex& print_mutex() {
  static std::mutex mu;
  return mu;
}

// One trace line (printf format), when tracing is on.
inline void event(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline void event(const char* fmt, ...) {
  if (!enabled()) return;
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  // Stamped under the lock, so lines from several threads come out in time order.
  std::lock_guard<std::mutex> lk(print_mutex());
  const double t = ms_since_start();
  rusage ru;
  std::memset(&ru, 0, sizeof ru);
  getrusage(RUSAGE_SELF, &ru);
  static bool first = true;
  if (first) {
    first = false;
    const double pre = exec_to_start_ms();
    std::fprintf(stderr,
                 "vmafx-score trace: times are ms since vmafx-score's static initialisation; the process was forked "
                 "%s%.0f ms before it (kernel start time, 10 ms ticks: exec and library loading); cpu = user and "
                 "system time of the whole process\n",
                 pre < 0 ? "(unknown) " : "~", pre < 0 ? 0.0 : pre);
  }
  std::fprintf(stderr, "vmafx-score trace: %9.3f ms | cpu user %5.0f sys %5.0f ms | %s\n", t, tv_ms(ru.ru_utime),
               tv_ms(ru.ru_stime), text);
}

// A "Name:   123 kB" line of /proc/self/status in MB; -1 when absent.
inline long status_mb(const char* name) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  const size_t n = std::strlen(name);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, name, n) == 0 && line[n] == ':') {
      kb = std::strtol(line + n + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return kb < 0 ? -1 : kb / 1024;
}

// The process's resource use so far, as one trace line. RssFile and RssAnon are what the kernel unmaps and frees
// when the process exits (file pages mapped, anonymous memory), after the last trace line.
inline void rusage_summary(const char* when) {
  if (!enabled()) return;
  rusage ru;
  std::memset(&ru, 0, sizeof ru);
  getrusage(RUSAGE_SELF, &ru);
  event("%s: page faults minor %ld major %ld, context switches voluntary %ld involuntary %ld, max RSS %ld MB, now "
        "RssFile %ld MB RssAnon %ld MB",
        when, ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw, ru.ru_maxrss / 1024, status_mb("RssFile"),
        status_mb("RssAnon"));
}

}  // namespace vmafx::tools::trace
