// The start screen: three ways in, over the panels -- the PyTorch story (float16 input into a
// float32 layer: the exact error, its fixes run side by side, where the error comes from), the
// guided tour of the scenarios, and the float explorer. The window opens on it the first time
// (no remembered settings); later starts reopen the last panel, and F1 or the header's Start
// button brings it back.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pl::ui {

class StartScreen {
 public:
  struct Way {
    std::string title;  // "PyTorch: float16 input into float32 weights"
    std::string what;   // a line under it
    std::function<void()> go;
  };
  void add(Way w) { ways_.push_back(std::move(w)); }
  void open() { open_ = focus_ = true; }
  const std::string& title(int way) const { return ways_[static_cast<size_t>(way)].title; }
  bool is_open() const { return open_; }
  // Draws it over the window while open (Esc or a click outside closes it); returns the way taken, or -1.
  int draw(float width, float height);

 private:
  std::vector<Way> ways_;
  bool open_ = false;
  bool focus_ = false;  // brought to the front on the frame it opens, not every frame
};

}  // namespace pl::ui
