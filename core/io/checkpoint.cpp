#include "core/io/checkpoint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "core/dtype/codec.h"
#include "core/io/file_read.h"
#include "core/io/safetensors.h"
#include "core/io/tensor.h"
#include "core/util/printable.h"
#include "core/util/target_clones.h"

namespace pl::io {
namespace {

namespace fs = std::filesystem;

// Adds one file's tensors; a name already seen in another file is an error.
Status add_shard(Checkpoint& c, const std::string& file, std::map<std::string, std::string>& seen) {
  auto layout = safetensors_layout_file(file);
  if (!layout) return Error{layout.error()};
  const size_t shard = c.shards.size();
  c.shards.push_back(file);
  for (const SafetensorsEntry& e : layout->entries) {
    if (auto [at, fresh] = seen.emplace(e.name, file); !fresh)
      return Error{"tensor '" + printable(e.name) + "' is in both " + at->second + " and " + file};
    const StoredDtype* d = safetensors_dtype(e.dtype);  // known: the header was validated
    CheckpointTensor t;
    t.name = e.name;
    t.stored = e.dtype;
    t.dtype = d->dtype;
    t.shape = e.shape;
    t.params = (e.end - e.begin) / static_cast<size_t>(d->bytes);
    t.shard = shard;
    t.offset = layout->data_offset + e.begin;
    t.bytes = e.end - e.begin;
    c.bytes += t.bytes;
    c.tensors.push_back(std::move(t));
  }
  return {};
}

// transformers' index: {"metadata": {...}, "weight_map": {"tensor name": "shard file", ...}},
// shard names relative to the index's folder.
Expected<Checkpoint> open_index(const std::string& index_path) {
  auto doc = read_json_file(index_path);  // a tensor named twice is refused here
  if (!doc) return Error{doc.error()};
  const nlohmann::json& j = *doc;
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    return Error{index_path + ": not a checkpoint index (no \"weight_map\" object)"};
  std::map<std::string, std::vector<std::string>> by_shard;  // shard file -> its tensors per the index
  std::map<std::string, std::string> placed;                 // tensor -> shard file
  for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
    if (!it.value().is_string())
      return Error{index_path + ": weight_map['" + printable(it.key()) + "'] is not a file name"};
    const std::string shard = it.value().get<std::string>();
    if (shard.empty() || shard.find('/') != std::string::npos || shard.find('\\') != std::string::npos ||
        shard == "." || shard == "..")
      return Error{index_path + ": shard '" + printable(shard) + "' (for tensor '" + printable(it.key()) +
                   "') is not a plain file name beside the index"};
    by_shard[shard].push_back(it.key());
    placed[it.key()] = shard;
  }
  if (by_shard.empty()) return Error{index_path + ": the weight_map names no tensor"};
  const fs::path folder = fs::path(index_path).parent_path();
  Checkpoint c;
  c.path = index_path;
  std::map<std::string, std::string> seen;
  for (const auto& [shard, names] : by_shard) {
    const std::string file = (folder / shard).string();
    std::error_code ec;
    if (!fs::exists(file, ec) && !ec)
      return Error{index_path + " names shard " + printable(shard) + " (for tensor '" + printable(names.front()) + "'" +
                   (names.size() > 1 ? " and " + std::to_string(names.size() - 1) + " more" : std::string()) +
                   "), which is missing"};
    const size_t first = c.tensors.size();
    if (auto st = add_shard(c, file, seen); !st) return Error{st.error()};
    for (size_t i = first; i < c.tensors.size(); ++i)
      if (placed[c.tensors[i].name] != shard)
        return Error{
            file + " holds tensor '" + printable(c.tensors[i].name) + "', which " + index_path +
            (placed[c.tensors[i].name].empty() ? " does not name" : " places in " + placed[c.tensors[i].name])};
  }
  for (const auto& [name, shard] : placed)
    if (!seen.count(name))
      return Error{index_path + " places tensor '" + printable(name) + "' in " + shard + ", which does not hold it"};
  return c;
}

Expected<Checkpoint> open_folder(const std::string& dir) {
  std::vector<std::string> indexes, files;
  std::error_code ec;
  // (Incremented with an error code: a range-for's increment throws on a failed read.)
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string p = it->path().string();
    if (p.ends_with(".safetensors.index.json")) indexes.push_back(p);
    if (p.ends_with(".safetensors")) files.push_back(p);
  }
  if (ec) return Error{"cannot list " + dir + ": " + ec.message()};
  if (indexes.size() > 1)
    return Error{dir + " holds " + std::to_string(indexes.size()) + " checkpoint indexes: name the one to open"};
  if (indexes.size() == 1) return open_index(indexes.front());
  if (files.empty()) return Error{dir + " holds no .safetensors file"};
  std::sort(files.begin(), files.end());
  Checkpoint c;
  c.path = dir;
  std::map<std::string, std::string> seen;
  for (const std::string& f : files)
    if (auto st = add_shard(c, f, seen); !st) return Error{st.error()};
  return c;
}

}  // namespace

Expected<Checkpoint> open_checkpoint(const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)
    return Error{"cannot read " + printable_whole(path) + ": " + ec.message()};
  if (!fs::exists(status)) return Error{printable_whole(path) + " does not exist"};
  if (fs::is_directory(status)) return open_folder(path);
  if (path.ends_with(".json")) return open_index(path);
  Checkpoint c;
  c.path = path;
  std::map<std::string, std::string> seen;
  if (auto st = add_shard(c, path, seen); !st) return Error{st.error()};
  return c;
}

namespace {

// bfloat16 is float32's top half: a loop GCC vectorises (PL_CLONES, for the scan's every element).
PL_CLONES void bfloat16_to_double(const uint8_t* from, size_t count, double* out) {
  for (size_t i = 0; i < count; ++i) {
    uint16_t code;
    std::memcpy(&code, from + 2 * i, 2);
    out[i] = static_cast<double>(std::bit_cast<float>(uint32_t{code} << 16));
  }
}

}  // namespace

Status read_elements(const MappedFile& shard, const CheckpointTensor& t, size_t first, std::span<double> out) {
  const size_t count = out.size();
  const StoredDtype* d = safetensors_dtype(t.stored);
  const size_t width = static_cast<size_t>(d->bytes);
  const auto bytes = shard.bytes();
  if (first + count > t.params || t.offset + t.bytes > bytes.size())
    return Error{"tensor '" + printable(t.name) + "': its bytes lie past the end of the file (did it change?)"};
  const uint8_t* from = bytes.data() + t.offset + first * width;
  // The checkpoint dtypes by direct conversion (decode_elements decodes a raw code through the
  // general codec, a few times slower): bfloat16 is float32's top half, a float8 has 256 codes.
  if (t.dtype == DType::bfloat16 && std::endian::native == std::endian::little) {
    bfloat16_to_double(from, count, out.data());
    return {};
  }
  if (d->kind == 'r' && width == 1) {
    // (The table kept per thread for the dtype last read: the scan asks for a block at a time.)
    thread_local std::optional<DType> tabled;
    thread_local std::array<double, 256> value{};
    if (tabled != t.dtype) {
      for (unsigned code = 0; code < 256; ++code) value[code] = decode(info(t.dtype).format, code);
      tabled = t.dtype;
    }
    for (size_t i = 0; i < count; ++i) out[i] = value[from[i]];
    return {};
  }
  if (d->kind == 'f' && width == 4 && std::endian::native == std::endian::little) {
    for (size_t i = 0; i < count; ++i) {
      float v;
      std::memcpy(&v, from + 4 * i, 4);
      out[i] = v;
    }
    return {};
  }
  std::vector<double> decoded;
  if (auto st = decode_elements(from, count, d->kind, d->bytes, false, d->dtype, decoded); !st) return st;
  std::copy(decoded.begin(), decoded.end(), out.begin());
  return {};
}

Status read_elements(const MappedFile& shard, const CheckpointTensor& t, size_t first, size_t count,
                     std::vector<double>& out) {
  out.resize(count);
  return read_elements(shard, t, first, std::span<double>(out));
}

}  // namespace pl::io
