#include "app/ui/shell/file_drop.h"

#include <filesystem>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cctype>

#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/printable.h"

namespace pl::ui {
namespace {

std::vector<std::string>& queue() {
  static std::vector<std::string> files;
  return files;
}

void on_drop(GLFWwindow*, int count, const char** paths) {
  for (int i = 0; i < count; ++i) queue().emplace_back(paths[i]);
}

bool ends_with(std::string s, const std::string& tail) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

void install_file_drop(GLFWwindow* window) { glfwSetDropCallback(window, on_drop); }

std::vector<std::string> take_dropped_files() {
  std::vector<std::string> out;
  out.swap(queue());
  return out;
}

DropKind drop_kind(const std::string& path, bool checkpoint_shown) {
  std::error_code ec;
  if (ends_with(path, ".safetensors.index.json") || std::filesystem::is_directory(path, ec) ||
      (checkpoint_shown && ends_with(path, ".safetensors")))
    return DropKind::Checkpoint;
  if (ends_with(path, ".json")) return DropKind::Setup;
  if (ends_with(path, ".npy") || ends_with(path, ".safetensors")) return DropKind::Tensor;
  return DropKind::Unknown;
}

Status tensor_drop_problem(const std::string& path) {
  Status read;
  if (ends_with(path, ".npy")) {
    if (auto h = io::read_npy_header(path); !h) read = Error{h.error()};
  } else if (auto l = io::list_safetensors_file(path); !l) {
    read = Error{l.error()};
  }
  if (read) return {};
  const std::string shown = printable(path, 200);
  // (The readers' messages name the file, or not: said once either way.)
  if (read.error().find(shown) != std::string::npos) return read;
  return Error{shown + ": " + read.error()};
}

}  // namespace pl::ui
