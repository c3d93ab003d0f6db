// Progress of long work on stderr: the percent done and an estimate of the time left, redrawn in
// place on one line. It draws only when stderr is a terminal and the work has already run 2 s,
// so pipes, logs and CI output stay as they were. Shared by the clstat command line and
// clstat-bench. Not thread-safe: call update() from one thread.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace clstat_tools {

/// "37%, 1:02 elapsed, about 1:45 left" for done of total after `elapsed` seconds.
inline std::string progress_text(double done, double total, double elapsed);

/// Whether stderr is a terminal (progress is drawn only then).
inline bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

class Progress {
 public:
  explicit Progress(std::string label) : label_(std::move(label)), start_(clock::now()), last_(start_) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress() { clear(); }

  /// done of total units (any unit; total > 0). Redraws at most five times a second.
  void update(double done, double total) {
    if (!tty_ || total <= 0) return;
    const auto now = clock::now();
    const double elapsed = seconds(start_, now);
    if (elapsed < 2.0 || (drawn_ && seconds(last_, now) < 0.2)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s: %s   ", label_.c_str(), progress_text(done, total, elapsed).c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  /// Erases the line, so what is printed next starts clean.
  void clear() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r%*s\r", 100, "");
    std::fflush(stderr);
    drawn_ = false;
  }

 private:
  using clock = std::chrono::steady_clock;
  static double seconds(clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
  std::string label_;
  clock::time_point start_, last_;
  bool tty_ = stderr_is_terminal();
  bool drawn_ = false;
};

inline std::string progress_text(double done, double total, double elapsed) {
  auto duration = [](double s) {
    char buf[32];
    if (s < 60) std::snprintf(buf, sizeof buf, "%.0f s", s);
    else if (s < 3600) std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
    else std::snprintf(buf, sizeof buf, "%d h %02d min", static_cast<int>(s) / 3600, static_cast<int>(s) % 3600 / 60);
    return std::string(buf);
  };
  const double f = total > 0 ? done / total : 0;
  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f%%", 100 * f);
  return std::string(pct) + ", " + duration(elapsed) + " elapsed, " +
         (f > 0.01 ? "about " + duration(elapsed * (1 - f) / f) + " left" : std::string("estimating the time left"));
}

}  // namespace clstat_tools
