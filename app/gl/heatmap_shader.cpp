#include "app/gl/heatmap_shader.h"

#include <glad/gl.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>

#include "app/gl/shader_sources.h"
#include "core/util/expected.h"

namespace pl::gl {
namespace {

constexpr int kLutSize = 256;

std::string compile_log(unsigned shader) {
  GLint n = 0;
  glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &n);
  std::string s(static_cast<size_t>(std::max(n, 1)), '\0');
  glGetShaderInfoLog(shader, n, nullptr, s.data());
  return s.c_str();
}

Expected<unsigned> compile(GLenum type, const char* source) {
  const unsigned s = glCreateShader(type);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    Error why{std::string(type == GL_VERTEX_SHADER ? "heatmap.vert" : "heatmap.frag") +
              " does not compile: " + compile_log(s)};
    glDeleteShader(s);
    return why;
  }
  return s;
}

// The GL state this draws over, put back afterwards: the window (or the screenshot's offscreen
// framebuffer) is mid-frame when a panel asks for a heat map.
struct SavedState {
  GLint draw_fbo = 0, read_fbo = 0, program = 0, vao = 0, active = 0;
  std::array<GLint, 2> textures{};  // the 2D textures bound to units 0 and 1, which this uses
  std::array<GLint, 4> viewport{};
  GLboolean blend = GL_FALSE, scissor = GL_FALSE;
  SavedState() {
    blend = glIsEnabled(GL_BLEND);
    scissor = glIsEnabled(GL_SCISSOR_TEST);
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fbo);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
    glGetIntegerv(GL_CURRENT_PROGRAM, &program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vao);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
    for (int unit = 0; unit < 2; ++unit) {
      glActiveTexture(GL_TEXTURE0 + unit);
      glGetIntegerv(GL_TEXTURE_BINDING_2D, &textures[unit]);
    }
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_VIEWPORT, viewport.data());
  }
  ~SavedState() {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, static_cast<unsigned>(draw_fbo));
    glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<unsigned>(read_fbo));
    glUseProgram(static_cast<unsigned>(program));
    glBindVertexArray(static_cast<unsigned>(vao));
    for (int unit = 0; unit < 2; ++unit) {
      glActiveTexture(GL_TEXTURE0 + unit);
      glBindTexture(GL_TEXTURE_2D, static_cast<unsigned>(textures[unit]));
    }
    glActiveTexture(static_cast<GLenum>(active));
    glViewport(viewport[0], viewport[1], viewport[2], viewport[3]);
    if (blend) glEnable(GL_BLEND);
    if (scissor) glEnable(GL_SCISSOR_TEST);
  }
};

}  // namespace

HeatmapShader::~HeatmapShader() {
  if (program_) glDeleteProgram(program_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  for (unsigned* t : {&values_, &lut_, &color_})
    if (*t) glDeleteTextures(1, t);
  if (fbo_) glDeleteFramebuffers(1, &fbo_);
}

bool HeatmapShader::build_program() {
  const auto compiled_vs = compile(GL_VERTEX_SHADER, shader_sources::kHeatmapVertex);
  if (!compiled_vs) {
    error_ = compiled_vs.error();
    return false;
  }
  const unsigned vs = *compiled_vs;
  const auto compiled_fs = compile(GL_FRAGMENT_SHADER, shader_sources::kHeatmapFragment);
  if (!compiled_fs) {
    error_ = compiled_fs.error();
    glDeleteShader(vs);
    return false;
  }
  const unsigned fs = *compiled_fs;
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    error_ = "the heat-map shaders do not link";
    glDeleteProgram(program_);
    program_ = 0;
    return false;
  }
  glGenVertexArrays(1, &vao_);  // core profile: a draw needs one, even with no attributes
  glGenTextures(1, &values_);
  glGenTextures(1, &lut_);
  glGenTextures(1, &color_);
  glGenFramebuffers(1, &fbo_);
  for (unsigned t : {values_, lut_, color_}) {
    glBindTexture(GL_TEXTURE_2D, t);
    const GLint filter = t == lut_ ? GL_LINEAR : GL_NEAREST;  // cells stay crisp; the table blends
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  return true;
}

bool HeatmapShader::render(const figure::Heatmap& h, const std::string& key, int width, int height) {
  if (width < 1 || height < 1 || h.rows == 0 || h.cols == 0 || h.values.size() != h.rows * h.cols) {
    error_ = "nothing to draw";
    return false;
  }
  if (program_ && key == key_ && width == width_ && height == height_ && lut_filled_ && lut_map_ == h.map) return true;
  SavedState saved;  // before building the program, whose texture set-up binds; leaves unit 0 active
  if (!program_ && !build_program()) return false;
  if (!lut_filled_ || lut_map_ != h.map) {
    std::array<unsigned char, kLutSize * 4> table{};
    for (int i = 0; i < kLutSize; ++i) {
      const figure::Color c = figure::colormap(h.map, i / double(kLutSize - 1));
      const double rgb[] = {c.r, c.g, c.b};
      for (int k = 0; k < 3; ++k) table[i * 4 + k] = static_cast<unsigned char>(std::lround(255 * rgb[k]));
      table[i * 4 + 3] = 255;
    }
    glBindTexture(GL_TEXTURE_2D, lut_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, kLutSize, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, table.data());
    lut_map_ = h.map;
    lut_filled_ = true;
  }
  if (key != key_) {
    // Finite values beyond float's range stay finite (the top or bottom colour, as in the files).
    std::vector<float> cells(h.values.size());
    for (size_t i = 0; i < cells.size(); ++i) {
      const double v = h.values[i];
      cells[i] = std::isfinite(v) ? static_cast<float>(std::clamp(v, -double(FLT_MAX), double(FLT_MAX)))
                                  : static_cast<float>(v);
    }
    glBindTexture(GL_TEXTURE_2D, values_);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, static_cast<int>(h.cols), static_cast<int>(h.rows), 0, GL_RED, GL_FLOAT,
                 cells.data());
  }
  if (width != width_ || height != height_) {
    glBindTexture(GL_TEXTURE_2D, color_);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, color_, 0);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
      error_ = "the heat-map framebuffer is incomplete";
      width_ = height_ = 0;
      return false;
    }
  }
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width, height);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, values_);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, lut_);
  glUniform1i(glGetUniformLocation(program_, "values"), 0);
  glUniform1i(glGetUniformLocation(program_, "lut"), 1);
  glUniform1f(glGetUniformLocation(program_, "vmin"), static_cast<float>(h.vmin));
  glUniform1f(glGetUniformLocation(program_, "vmax"), static_cast<float>(h.vmax));
  glUniform1i(glGetUniformLocation(program_, "inf_is_exact"), h.inf_is_exact ? 1 : 0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  key_ = key;
  width_ = width;
  height_ = height;
  error_.clear();
  return true;
}

std::vector<unsigned char> HeatmapShader::read_pixels() const {
  std::vector<unsigned char> px(static_cast<size_t>(width_) * height_ * 4);
  if (px.empty()) return px;
  GLint read_fbo = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, static_cast<unsigned>(read_fbo));
  return px;
}

}  // namespace pl::gl
