#include "core/io/load.h"

#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/util/printable.h"

namespace pl::io {
namespace {
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
}  // namespace

std::string tensor_file(const std::string& spec) {
  const size_t st = spec.find(".safetensors:");
  return st == std::string::npos ? spec : spec.substr(0, st + 12);
}

Expected<Tensor> load_tensor(const std::string& spec, std::optional<DType> raw_as) {
  // FILE.safetensors:TENSOR -- the file's name ends in .safetensors and a colon follows; a folder
  // named models.safetensors.d/ holding x.npy is no tensor reference.
  const size_t st = spec.find(".safetensors:");
  if (st == std::string::npos) {
    // Built by append: GCC 12 warns falsely (-Wrestrict) about "'" + std::string here.
    const std::string shown = printable(spec);
    std::string why = "'";
    if (ends_with(spec, ".safetensors"))
      return Error{why.append(shown)
                       .append("': name the tensor, as ")
                       .append(shown)
                       .append(":TENSOR (see `precision-lab tensors ")
                       .append(shown)
                       .append("`)")};
    if (!ends_with(spec, ".npy"))
      return Error{why.append(shown).append("': name a .npy file or FILE.safetensors:TENSOR[@ROWS,COLS]")};
    return read_npy(spec, raw_as);
  }
  const std::string path = tensor_file(spec);
  std::string rest = spec.substr(st + 12);
  rest = rest.substr(1);
  std::optional<Slice> slice;
  if (const size_t at = rest.rfind('@'); at != std::string::npos) {
    // ("NAME@" is refused rather than read as the whole tensor, as if no slice had been asked
    // for.) (Built by append: GCC 12 warns of an overlap in a chain of + here, -Wrestrict, that
    // is not there.)
    if (at + 1 == rest.size()) {
      std::string why = "'";
      return Error{why.append(printable(spec))
                       .append("': nothing after '@': give ROWS,COLS (e.g. 0:128,0:256), or leave '@' out")};
    }
    auto s = parse_slice(rest.substr(at + 1));
    if (!s) return Error{s.error()};
    slice = *s;
    rest = rest.substr(0, at);
  }
  if (raw_as) return Error{"raw views are for .npy files; safetensors files name their dtype"};
  return read_safetensors_file(path, rest, slice);
}

}  // namespace pl::io
