// Where frames are drawn: a GLFW window on a display, or an EGL surfaceless
// context (Mesa) with no display at all, for screenshots and tests.
#pragma once

#include <memory>
#include <string>

#include "core/util/expected.h"

struct GLFWwindow;

namespace pl::ui {

class GlContext {
 public:
  virtual ~GlContext() = default;
  virtual bool should_close() = 0;
  virtual void begin_frame(int* width, int* height, float* dpi_scale) = 0;  // polls events
  virtual void end_frame() = 0;                                             // swaps buffers
  virtual GLFWwindow* glfw_window() { return nullptr; }                     // null headless
};

bool have_display();
// Fails with a message a person can act on (no display, no GL 3.3, ...).
Expected<std::unique_ptr<GlContext>> open_window(int width, int height, bool visible);
Expected<std::unique_ptr<GlContext>> open_headless(int width, int height);

}  // namespace pl::ui
