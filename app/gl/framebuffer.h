// An offscreen RGBA8 framebuffer: screenshots render here, on a display or without one.
#pragma once

#include <string>
#include <vector>

namespace pl::gl {

// The pixels of `framebuffer` (0: the window's back buffer), top row first, RGBA bytes.
std::vector<unsigned char> read_rgba(unsigned framebuffer, int width, int height);

class Framebuffer {
 public:
  Framebuffer(int width, int height);
  ~Framebuffer();
  Framebuffer(const Framebuffer&) = delete;
  Framebuffer& operator=(const Framebuffer&) = delete;
  bool complete() const { return complete_; }
  void bind() const;
  std::vector<unsigned char> read_rgba() const { return gl::read_rgba(fbo_, w_, h_); }
  int width() const { return w_; }
  int height() const { return h_; }

 private:
  unsigned fbo_ = 0, color_ = 0;
  int w_, h_;
  bool complete_ = false;
};

}  // namespace pl::gl
