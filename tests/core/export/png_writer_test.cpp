// A window capture or screenshot PNG is a whole PNG with no temporary file left beside it, and a
// write that cannot happen says why in the system's words (a missing folder, not cairo's "error
// while writing to output stream") and leaves nothing.
#include "core/export/png_writer.h"

#include <cairo.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

namespace pl {
namespace {

namespace fs = std::filesystem;

TEST(PngWriter, WritesAPngAndNamesAMissingFolder) {
  const fs::path dir = fs::temp_directory_path() / ("pl-png-writer-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::vector<unsigned char> rgba(3 * 2 * 4, 200);
  const fs::path good = dir / "shot.png";
  auto ok = write_png_rgba(good.string(), rgba, 3, 2);
  ASSERT_TRUE(ok) << ok.error();
  // cairo reads it back as the image written.
  cairo_surface_t* back = cairo_image_surface_create_from_png(good.c_str());
  EXPECT_EQ(cairo_surface_status(back), CAIRO_STATUS_SUCCESS);
  EXPECT_EQ(cairo_image_surface_get_width(back), 3);
  EXPECT_EQ(cairo_image_surface_get_height(back), 2);
  cairo_surface_destroy(back);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), {}), 1);  // no temporary file left beside it

  const fs::path missing = dir / "no-such-folder" / "shot.png";
  auto refused = write_png_rgba(missing.string(), rgba, 3, 2);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("No such file or directory"), std::string::npos) << refused.error();
  EXPECT_FALSE(fs::exists(missing));
  EXPECT_FALSE(write_png_rgba(good.string(), rgba, 4, 2));  // pixels that do not fill the size
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pl
