// Writes an RGBA image to PNG through cairo (the same library the figure exporters use).
#pragma once

#include <string>
#include <vector>

#include "core/util/expected.h"

namespace pl {

// rgba: top row first, 4 bytes per pixel, straight (not premultiplied) alpha. The file is written
// whole or not at all (io::write_file_atomic).
Status write_png_rgba(const std::string& path, const std::vector<unsigned char>& rgba, int width, int height);

}  // namespace pl
