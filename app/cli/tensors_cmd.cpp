// precision-lab tensors FILE.safetensors | FILE.npy
// Lists the tensors a file holds: name, dtype, shape (a .npy file holds one).
#include <cstdio>

#include "app/cli/cli.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/printable.h"

namespace pl::cli {

Runner add_tensors(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  app.add_option("file", *path, ".safetensors or .npy file")->required();
  return [path]() {
    if (path->size() >= 4 && path->compare(path->size() - 4, 4, ".npy") == 0) {
      auto h = io::read_npy_header(*path);
      if (!h) {
        std::fprintf(stderr, "error: %s\n", h.error().c_str());
        return kExitBadInput;
      }
      std::printf("%-40s %-8s %s\n", "(array)", printable(h->descr).c_str(), io::shape_text(h->shape).c_str());
      return kExitOk;
    }
    auto list = io::list_safetensors_file(*path);
    if (!list) {
      std::fprintf(stderr, "error: %s\n", list.error().c_str());
      return kExitBadInput;
    }
    // (A header of __metadata__ alone: an empty listing would read as a failure.)
    if (list->empty()) std::printf("%s holds no tensors\n", printable(*path, 200).c_str());
    for (const auto& e : *list)
      std::printf("%-40s %-8s %s\n", printable(e.name, 256).c_str(), printable(e.dtype).c_str(),
                  io::shape_text(e.shape).c_str());
    return kExitOk;
  };
}

}  // namespace pl::cli
