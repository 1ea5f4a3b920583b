// Frame pacing and measurement for the window: caps the loop at 60 frames a second (under Xvfb
// nothing else does, and a spinning loop would take a core from the experiment running
// beside it), and every two seconds reports the frame rate and the slowest frame -- the
// number that says whether the window stayed responsive while work ran.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace pl::ui {

class FrameMeter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr double kTargetSeconds = 1.0 / 60.0;
  static constexpr double kReportSeconds = 2.0;

  // Call once a frame, after presenting it. Sleeps out the rest of the frame's budget; returns
  // a report ("59.8 fps over 2.0 s, slowest frame 21 ms") when one is due, else "".
  std::string frame_done(bool pace) {
    const Clock::time_point now = Clock::now();
    const double work = std::chrono::duration<double>(now - frame_start_).count();
    if (pace && work < kTargetSeconds)
      std::this_thread::sleep_for(std::chrono::duration<double>(kTargetSeconds - work));
    const Clock::time_point end = Clock::now();
    slowest_ = std::max(slowest_, std::chrono::duration<double>(end - frame_start_).count());
    frame_start_ = end;
    ++frames_;
    const double span = std::chrono::duration<double>(end - window_start_).count();
    if (span < kReportSeconds) return "";
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.1f fps over %.1f s, slowest frame %.0f ms", frames_ / span, span, slowest_ * 1e3);
    window_start_ = end;
    frames_ = 0;
    slowest_ = 0;
    return buf;
  }

 private:
  Clock::time_point frame_start_ = Clock::now(), window_start_ = Clock::now();
  int frames_ = 0;
  double slowest_ = 0;
};

}  // namespace pl::ui
