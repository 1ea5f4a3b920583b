#include "app/ui/shell/fonts.h"

#include <imgui.h>

#include <filesystem>

namespace pl::ui {

const char* load_fonts(float pixel_size) {
  static const char* kCandidates[] = {
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
      "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
      "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
  };
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  // Latin plus the punctuation, arrows and math operators (±, −, ×, ≈, ≤, √, γ) the panels use.
  static ImVector<ImWchar> ranges;
  if (ranges.empty()) {
    ImFontGlyphRangesBuilder b;
    b.AddRanges(io.Fonts->GetGlyphRangesDefault());
    static const ImWchar kExtra[] = {0x0370, 0x03FF, 0x2000, 0x22FF, 0};
    b.AddRanges(kExtra);
    b.BuildRanges(&ranges);
  }
  for (const char* path : kCandidates) {
    std::error_code ec;  // (exists() without it throws where a parent cannot be searched)
    if (std::filesystem::exists(path, ec) && io.Fonts->AddFontFromFileTTF(path, pixel_size, nullptr, ranges.Data))
      return path;
  }
  ImFontConfig cfg;
  cfg.SizePixels = pixel_size;
  io.Fonts->AddFontDefault(&cfg);
  return "built-in";
}

}  // namespace pl::ui
