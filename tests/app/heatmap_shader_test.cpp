// The heat-map shader (shaders/heatmap.frag) against core's colour maps on the CPU: every pixel
// it draws is the colour core gives that cell's value (within the 8-bit colour table's
// rounding), values beyond the range take the ends, NaN is grey and +inf (an exact cell) white,
// row 0 is the top row, and the framebuffer, viewport and textures the window was drawing with
// are put back. Runs on an EGL
// surfaceless context (Mesa); without one the test is skipped, visibly.
#include <glad/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "app/gl/framebuffer.h"
#include "app/gl/heatmap_shader.h"
#include "app/ui/shell/gl_context.h"

namespace pl {
namespace {

class HeatmapShaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = ui::open_headless(64, 64);
    if (!opened) GTEST_SKIP() << "no OpenGL context: " << opened.error();
    context_ = std::move(opened).value();
  }
  std::unique_ptr<ui::GlContext> context_;
};

TEST_F(HeatmapShaderTest, EveryPixelIsCoresColourForItsCell) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  figure::Heatmap h{3, 4, {-2, -1, -0.5, 0, 0.25, 0.5, 1, 2, 5, -7, nan, inf}, figure::Colormap::Diverging, -2, 2, "e"};
  gl::Framebuffer window(64, 64);  // what the window was drawing into
  window.bind();
  glViewport(3, 4, 50, 40);
  for (int exact = 0; exact < 2; ++exact)
    for (auto map : {figure::Colormap::Diverging, figure::Colormap::Viridis, figure::Colormap::Cividis}) {
      SCOPED_TRACE(figure::colormap_name(map));
      h.map = map;
      h.inf_is_exact = exact == 1;
      gl::HeatmapShader shader;
      const std::string key = exact ? "exact" : "plain";
    ASSERT_TRUE(shader.render(h, key, 40, 30)) << shader.error();
      GLint viewport[4];
      glGetIntegerv(GL_VIEWPORT, viewport);
      EXPECT_EQ(viewport[0], 3);
      EXPECT_EQ(viewport[3], 40);
      const auto px = shader.read_pixels();
      ASSERT_EQ(px.size(), 40u * 30 * 4);
      int worst = 0;
      for (int y = 0; y < 30; ++y)
        for (int x = 0; x < 40; ++x) {
          const size_t row = static_cast<size_t>(y) * 3 / 30, col = static_cast<size_t>(x) * 4 / 40;
          const double v = h.values[row * 4 + col];
          figure::Color want{0.5, 0.5, 0.5, 1};
          if (h.inf_is_exact && std::isinf(v) && v > 0) want = {1, 1, 1, 1};  // an exact cell
          if (std::isfinite(v)) want = figure::colormap(map, std::clamp((v - h.vmin) / (h.vmax - h.vmin), 0.0, 1.0));
          const unsigned char* p = &px[(static_cast<size_t>(y) * 40 + x) * 4];
          for (int k = 0; k < 3; ++k) {
            const double c = k == 0 ? want.r : k == 1 ? want.g : want.b;
            worst = std::max(worst, std::abs(int(p[k]) - int(std::lround(c * 255))));
          }
        }
      EXPECT_LE(worst, 2);  // an 8-bit table of 256 entries, sampled linearly
    }
}

TEST_F(HeatmapShaderTest, KeepsTheWindowsFramebufferAndTexturesBound) {
  gl::Framebuffer window(64, 64);
  window.bind();
  GLint before = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &before);
  // Textures the window had bound on the two units the shader uses, unit 1 active.
  GLuint mine[2];
  glGenTextures(2, mine);
  for (int unit = 0; unit < 2; ++unit) {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, mine[unit]);
  }
  gl::HeatmapShader shader;
  ASSERT_TRUE(shader.render({1, 1, {0}, figure::Colormap::Viridis, 0, 1, ""}, "k", 8, 8)) << shader.error();
  GLint after = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &after);
  EXPECT_EQ(after, before);
  EXPECT_NE(after, 0);
  GLint active = 0;
  glGetIntegerv(GL_ACTIVE_TEXTURE, &active);
  EXPECT_EQ(active, GL_TEXTURE1);
  for (int unit = 0; unit < 2; ++unit) {
    glActiveTexture(GL_TEXTURE0 + unit);
    GLint bound = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
    EXPECT_EQ(static_cast<GLuint>(bound), mine[unit]) << "texture unit " << unit;
  }
  glDeleteTextures(2, mine);
  // Bad input is refused, not drawn.
  EXPECT_FALSE(shader.render({2, 2, {0}, figure::Colormap::Viridis, 0, 1, ""}, "bad", 8, 8));
  EXPECT_EQ(shader.error(), "nothing to draw");
}

}  // namespace
}  // namespace pl
