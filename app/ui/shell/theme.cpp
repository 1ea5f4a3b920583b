#include "app/ui/shell/theme.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>

#include "app/ui/shell/fonts.h"

namespace pl::ui {
namespace {

float g_ui_scale = 1.0f;  // mirrors the theme, like ImGui's own style (one window per process)
bool g_presentation = false;

void high_contrast(ImGuiStyle& s) {
  ImGui::StyleColorsDark(&s);
  ImVec4* c = s.Colors;
  c[ImGuiCol_Text] = {1, 1, 1, 1};
  c[ImGuiCol_TextDisabled] = {0.82f, 0.82f, 0.82f, 1};
  c[ImGuiCol_WindowBg] = c[ImGuiCol_ChildBg] = c[ImGuiCol_PopupBg] = {0, 0, 0, 1};
  c[ImGuiCol_Border] = {0.9f, 0.9f, 0.9f, 1};
  c[ImGuiCol_FrameBg] = {0.12f, 0.12f, 0.12f, 1};
  c[ImGuiCol_Tab] = c[ImGuiCol_Header] = c[ImGuiCol_Button] = {0.0f, 0.30f, 0.55f, 1};
  c[ImGuiCol_TabActive] = c[ImGuiCol_HeaderActive] = c[ImGuiCol_ButtonActive] = {0.0f, 0.45f, 0.70f, 1};
  c[ImGuiCol_TabHovered] = c[ImGuiCol_HeaderHovered] = c[ImGuiCol_ButtonHovered] = {0.0f, 0.55f, 0.85f, 1};
  c[ImGuiCol_CheckMark] = {0.95f, 0.90f, 0.26f, 1};
  c[ImGuiCol_TableRowBgAlt] = {1, 1, 1, 0.08f};
  s.WindowBorderSize = s.ChildBorderSize = s.FrameBorderSize = 1.5f;
}

}  // namespace

const char* apply_theme(bool presentation, float dpi_scale) {
  ImGuiStyle style;
  if (presentation) high_contrast(style);
  else ImGui::StyleColorsDark(&style);
  const float scale = dpi_scale * (presentation ? kPresentationScale : 1.0f);
  style.ScaleAllSizes(scale);
  ImGui::GetStyle() = style;
  g_ui_scale = scale;
  g_presentation = presentation;
  const char* font = load_fonts(kBaseFontPixels * scale);
  // A running renderer holds the old atlas as a texture: replace it. (Before it starts, its
  // Init builds the texture from this atlas.)
  if (ImGui::GetIO().BackendRendererUserData) {
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  return font;
}

float figure_font_scale(int width, int height) { return figure_text_scale(g_presentation, g_ui_scale, width, height); }

float figure_text_scale(bool presentation, float ui_scale, int width, int height) {
  if (!presentation) return kFigureTextScale * ui_scale;
  // The pane's size in lines of the UI's text (its width counted at a figure's usual aspect).
  const float lines =
      std::min(static_cast<float>(height), 0.6f * static_cast<float>(width)) / (kBaseFontPixels * ui_scale);
  const float t = std::clamp((lines - kCompactFigureLines) / (kRoomyFigureLines - kCompactFigureLines), 0.0f, 1.0f);
  return (kPresentationFigureTextScale + t * (kFigureTextScale - kPresentationFigureTextScale)) * ui_scale;
}
bool presentation_mode() { return g_presentation; }

}  // namespace pl::ui
