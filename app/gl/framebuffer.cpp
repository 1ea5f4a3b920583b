#include "app/gl/framebuffer.h"

#include <glad/gl.h>

#include <cstring>

namespace pl::gl {

Framebuffer::Framebuffer(int width, int height) : w_(width), h_(height) {
  glGenFramebuffers(1, &fbo_);
  glGenRenderbuffers(1, &color_);
  glBindRenderbuffer(GL_RENDERBUFFER, color_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
  complete_ = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

Framebuffer::~Framebuffer() {
  glDeleteFramebuffers(1, &fbo_);
  glDeleteRenderbuffers(1, &color_);
}

void Framebuffer::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, w_, h_);
}

std::vector<unsigned char> read_rgba(unsigned framebuffer, int w, int h) {
  std::vector<unsigned char> px(size_t(w) * h * 4), flipped(px.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
  if (framebuffer == 0) glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  const size_t row = size_t(w) * 4;  // GL's origin is bottom-left; images start at the top
  for (int y = 0; y < h; ++y) std::memcpy(&flipped[y * row], &px[(h - 1 - y) * row], row);
  return flipped;
}

}  // namespace pl::gl
