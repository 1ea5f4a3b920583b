#include "core/io/safetensors.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/io/file_read.h"
#include "core/util/memory_room.h"
#include "core/util/printable.h"

namespace pl::io {
namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the reference implementation's limit

constexpr StoredDtype kDtypes[] = {
    {"F64", 'f', 8, DType::float64},
    {"F32", 'f', 4, DType::float32},
    {"F16", 'f', 2, DType::float16},
    {"BF16", 'r', 2, DType::bfloat16},
    {"F8_E4M3", 'r', 1, DType::float8_e4m3fn},
    {"F8_E5M2", 'r', 1, DType::float8_e5m2},
    {"F8_E8M0", 'r', 1, DType::float8_e8m0fnu},
    {"I8", 'i', 1, DType::int8},
    {"U8", 'u', 1, DType::uint8},
    {"I16", 'i', 2, DType::int16},
    {"U16", 'u', 2, DType::uint16},
    {"I32", 'i', 4, DType::int32},
    {"U32", 'u', 4, DType::uint32},
    {"I64", 'i', 8, DType::int64},
    {"U64", 'u', 8, DType::uint64},
    {"BOOL", 'b', 1, DType::bool_},
};


// The header's own nesting is three deep (tensor, field, shape); anything past this is refused
// before the parser builds it.
constexpr int kMaxHeaderDepth = 16;

// The header as JSON, refusing what a JSON object silently merges or the reference library
// refuses: a byte-order mark, a name given twice, a field given twice in one tensor's entry
// (serde's "duplicate field"), nesting past kMaxHeaderDepth.
Expected<nlohmann::json> header_json(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") return Error{"the safetensors header starts with a byte-order mark"};
  // (The parser ends its input at a NUL byte, and would leave whatever follows one unread.)
  if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
    return Error{"the safetensors header holds a NUL byte at offset " + std::to_string(nul)};
  std::vector<std::string> names, fields;  // the tensors', and the fields of the entry being read
  std::string problem;
  const auto check = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    if (depth > kMaxHeaderDepth && problem.empty())
      problem = "the safetensors header is nested deeper than " + std::to_string(kMaxHeaderDepth);
    if (event == nlohmann::json::parse_event_t::key && depth == 1) {
      std::string name = parsed.get<std::string>();
      if (std::find(names.begin(), names.end(), name) != names.end() && problem.empty())
        problem = "tensor '" + printable(name) + "' is named twice in the safetensors header";
      names.push_back(std::move(name));
      fields.clear();
    } else if (event == nlohmann::json::parse_event_t::key && depth == 2 && !names.empty() &&
               names.back() != "__metadata__") {  // (no name yet: a header that is no object, refused below)
      std::string field = parsed.get<std::string>();
      if (std::find(fields.begin(), fields.end(), field) != fields.end() && problem.empty())
        problem = "tensor '" + printable(names.back()) + "' gives " + printable(field) + " twice";
      fields.push_back(std::move(field));
    }
    return problem.empty();
  };
  nlohmann::json h = nlohmann::json::parse(text, check, /*allow_exceptions=*/false);
  if (!problem.empty()) return Error{problem};
  if (h.is_discarded() || !h.is_object()) return Error{"the safetensors header is not a JSON object"};
  return h;
}

// The reference library's layout rule (safetensors' Metadata::validate): in offset order each
// tensor starts where the one before ended, and together they cover the data section exactly.
Status check_layout(const std::vector<SafetensorsEntry>& sorted, uint64_t data_size) {
  uint64_t at = 0;
  const SafetensorsEntry* before = nullptr;
  auto range = [](const SafetensorsEntry& e) {
    std::string r = "[";  // by append: GCC 12 warns falsely (-Wrestrict) about "[" + std::string
    return r.append(std::to_string(e.begin)).append(", ").append(std::to_string(e.end)).append(")");
  };
  for (const SafetensorsEntry& e : sorted) {
    if (e.begin < at)
      return Error{"tensor '" + printable(e.name) + "' " + range(e) + " overlaps tensor '" + printable(before->name) +
                   "' " + range(*before)};
    if (e.begin > at)
      return Error{"a gap of " + std::to_string(e.begin - at) + " bytes before tensor '" + printable(e.name) + "' " +
                   range(e) +
                   (before ? " (tensor '" + printable(before->name) + "' ends at " + std::to_string(at) + ")"
                           : std::string(" (the data section starts at 0)"))};
    at = e.end;
    before = &e;
  }
  if (at != data_size)
    return Error{std::to_string(data_size - at) + " bytes after the last tensor" +
                 (before ? " ('" + printable(before->name) + "' ends at " + std::to_string(at) + ")" : std::string()) +
                 ": the tensors must cover the data section exactly"};
  return {};
}

// Parses and validates the JSON header against a data section of `data_size` bytes.
Expected<std::vector<SafetensorsEntry>> parse_header(std::string_view text, uint64_t data_size) {
  auto parsed = header_json(text);
  if (!parsed) return Error{parsed.error()};
  const nlohmann::json& h = *parsed;
  std::vector<SafetensorsEntry> out;
  for (auto it = h.begin(); it != h.end(); ++it) {
    if (it.key() == "__metadata__") {
      const auto& m = it.value();
      if (!m.is_object()) return Error{"__metadata__ is not a map of strings to strings"};
      for (auto kv = m.begin(); kv != m.end(); ++kv)
        if (!kv.value().is_string())
          return Error{"__metadata__ '" + printable(kv.key()) + "' is not a string (a map of strings to strings)"};
      continue;
    }
    const auto& v = it.value();
    if (it.key().find('\0') != std::string::npos) return Error{"a tensor name holds a NUL character"};
    const std::string where = "tensor '" + printable(it.key()) + "': ";
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets"))
      return Error{where + "needs dtype, shape and data_offsets"};
    SafetensorsEntry e;
    e.name = it.key();
    if (!v["dtype"].is_string()) return Error{where + "dtype is not a string"};
    e.dtype = v["dtype"].get<std::string>();
    const StoredDtype* d = safetensors_dtype(e.dtype);
    if (!d) return Error{where + "dtype " + printable(e.dtype) + " is not supported"};
    if (!v["shape"].is_array()) return Error{where + "shape is not a list"};
    for (const auto& s : v["shape"]) {
      if (!s.is_number_unsigned()) return Error{where + "shape holds something other than non-negative integers"};
      e.shape.push_back(s.get<size_t>());
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      return Error{where + "data_offsets is not [begin, end]"};
    e.begin = off[0].get<size_t>();
    e.end = off[1].get<size_t>();
    const auto counted = element_count(e.shape, size_t{1} << 40);
    if (!counted) return Error{where + counted.error()};
    const size_t count = *counted;
    if (e.end < e.begin)  // (not "outside" the data: they may lie within it)
      return Error{where + "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                   "] end before they begin"};
    if (e.end > data_size)
      return Error{where + "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                   "] lie outside the " + std::to_string(data_size) + "-byte data section"};
    if (e.end - e.begin != count * static_cast<size_t>(d->bytes))
      return Error{where + "shape " + shape_text(e.shape) + " of " + printable(e.dtype) + " needs " +
                   std::to_string(count * d->bytes) + " bytes, data_offsets give " + std::to_string(e.end - e.begin)};
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](auto& a, auto& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  if (auto layout = check_layout(out, data_size); !layout) return Error{layout.error()};
  return out;
}

// p holds the file's first min(file_size, 9) bytes: the header's length and its first byte.
Expected<uint64_t> header_size(const uint8_t* p, uint64_t file_size) {
  if (file_size < 8) return Error{"not a safetensors file (shorter than its 8-byte header length)"};
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | p[i];
  if (n > kMaxHeader || n > file_size - 8) {
    // A header that cannot be read: say first whether the file is a safetensors file at all
    // (its JSON header opens with '{' right after the length), then what is wrong with it.
    if (file_size < 9 || p[8] != '{')
      return Error{"not a safetensors file (no JSON header after its first 8 bytes, the header's length)"};
    if (n > kMaxHeader) return Error{"the safetensors header claims " + std::to_string(n) + " bytes (limit 100 MiB)"};
    return Error{"the safetensors header is truncated"};
  }
  return n;
}

const SafetensorsEntry* find_entry(const std::vector<SafetensorsEntry>& all, const std::string& n) {
  for (const auto& e : all)
    if (e.name == n) return &e;
  return nullptr;
}

std::string names_of(const std::vector<SafetensorsEntry>& all) {
  std::string s;
  for (size_t i = 0; i < all.size() && i < 8; ++i) s += (i ? ", " : "") + printable(all[i].name);
  if (all.size() > 8) s += ", ... (" + std::to_string(all.size()) + " in all)";
  return s;
}

// Decodes a tensor's bytes and cuts the slice.
Expected<Tensor> decode_tensor(const SafetensorsEntry& e, const uint8_t* data, std::optional<Slice> slice) {
  const StoredDtype* d = safetensors_dtype(e.dtype);
  Tensor t;
  t.shape = e.shape;
  t.dtype = d->dtype;
  t.stored_as = e.dtype;
  const size_t count = (e.end - e.begin) / d->bytes;
  if (count > (size_t{1} << 31)) return Error{"tensor '" + printable(e.name) + "' has more than 2^31 elements"};
  if (auto st = decode_elements(data, count, d->kind, d->bytes, false, d->dtype, t.values); !st)
    return Error{"tensor '" + printable(e.name) + "': " + st.error()};
  if (!slice) return t;
  const size_t rows = t.rows(), cols = t.cols();
  Slice s = *slice;
  if (s.row1 == Slice::kToTheEnd) s.row1 = rows;
  if (s.col1 == Slice::kToTheEnd) s.col1 = cols;
  if (s.row0 >= s.row1 || s.row1 > rows || s.col0 >= s.col1 || s.col1 > cols)
    return Error{"slice " + std::to_string(s.row0) + ":" + std::to_string(s.row1) + "," + std::to_string(s.col0) + ":" +
                 std::to_string(s.col1) + " does not fit tensor '" + printable(e.name) + "' seen as " +
                 std::to_string(rows) + " x " + std::to_string(cols)};
  std::vector<double> cut;
  cut.reserve((s.row1 - s.row0) * (s.col1 - s.col0));
  for (size_t r = s.row0; r < s.row1; ++r)
    for (size_t c = s.col0; c < s.col1; ++c) cut.push_back(t.values[r * cols + c]);
  t.values = std::move(cut);
  t.shape = {s.row1 - s.row0, s.col1 - s.col0};
  return t;
}

}  // namespace

const StoredDtype* safetensors_dtype(std::string_view n) {
  for (const auto& d : kDtypes)
    if (d.name == n) return &d;
  return nullptr;
}

Expected<std::optional<Slice>> parse_slice(const std::string& text) {
  if (text.empty()) return std::optional<Slice>{};
  Slice s;
  size_t* parts[4] = {&s.row0, &s.row1, &s.col0, &s.col1};
  const size_t comma = text.find(',');
  if (comma == std::string::npos) return Error{"slice '" + text + "' is not ROWS,COLS (e.g. 0:128,0:256)"};
  const std::string sides[2] = {text.substr(0, comma), text.substr(comma + 1)};
  for (int i = 0; i < 2; ++i) {
    const size_t colon = sides[i].find(':');
    if (colon == std::string::npos) return Error{"slice '" + text + "': each side is START:END"};
    const std::string ends[2] = {sides[i].substr(0, colon), sides[i].substr(colon + 1)};
    for (int j = 0; j < 2; ++j) {
      if (ends[j].empty()) continue;
      size_t v = 0;
      const char* last = ends[j].data() + ends[j].size();
      const auto [rest, ec] = std::from_chars(ends[j].data(), last, v);
      if (ec == std::errc::result_out_of_range || (ec == std::errc{} && rest == last && v == Slice::kToTheEnd))
        return Error{"slice '" + text + "': '" + ends[j] + "' is too large"};
      if (ec != std::errc{} || rest != last)
        return Error{"slice '" + text + "': '" + ends[j] + "' is not a non-negative integer"};
      *parts[2 * i + j] = v;
    }
  }
  return std::optional<Slice>{s};
}

Expected<std::vector<SafetensorsEntry>> list_safetensors(std::span<const uint8_t> f) {
  auto n = header_size(f.data(), f.size());
  if (!n) return Error{n.error()};
  return parse_header(std::string_view(reinterpret_cast<const char*>(f.data() + 8), *n), f.size() - 8 - *n);
}

Expected<Tensor> read_safetensors(std::span<const uint8_t> f, const std::string& tensor, std::optional<Slice> slice) {
  auto all = list_safetensors(f);
  if (!all) return Error{all.error()};
  const SafetensorsEntry* e = find_entry(*all, tensor);
  if (!e) return Error{"no tensor '" + printable(tensor) + "' (the file holds: " + names_of(*all) + ")"};
  auto n = header_size(f.data(), f.size());
  return decode_tensor(*e, f.data() + 8 + *n + e->begin, slice);
}

Expected<SafetensorsLayout> safetensors_layout_file(const std::string& path) {
  if (auto st = not_a_file(path); !st) return Error{st.error()};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"cannot open " + printable_whole(path) + ": " + std::strerror(errno)};
  const uint64_t size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  uint8_t head[9] = {};  // the header's length and its first byte (header_size reads both)
  in.read(reinterpret_cast<char*>(head), 9);
  auto n = header_size(head, size);
  if (!n) return Error{path + ": " + n.error()};
  in.clear();  // (a file of 8 bytes ended the read of 9; its header is empty or refused above)
  in.seekg(8);
  std::string header(*n, '\0');
  if (!in.read(header.data(), static_cast<std::streamsize>(*n))) return Error{"cannot read " + path};
  auto all = parse_header(header, size - 8 - *n);
  if (!all) return Error{path + ": " + all.error()};
  return SafetensorsLayout{std::move(all).value(), 8 + *n};
}

Expected<std::vector<SafetensorsEntry>> list_safetensors_file(const std::string& path) {
  auto layout = safetensors_layout_file(path);
  if (!layout) return Error{layout.error()};
  return std::move(layout).value().entries;
}

Expected<Tensor> read_safetensors_file(const std::string& path, const std::string& tensor, std::optional<Slice> slice) {
  auto all = list_safetensors_file(path);
  if (!all) return Error{all.error()};
  const SafetensorsEntry* e = find_entry(*all, tensor);
  if (!e) return Error{path + ": no tensor '" + printable(tensor) + "' (the file holds: " + names_of(*all) + ")"};
  // Its bytes and their values as float64 (and a slice's copy), refused before they are read
  // when they do not fit (memory_room.h).
  const StoredDtype* d = safetensors_dtype(e->dtype);
  const double bytes_size = double(e->end - e->begin), count = bytes_size / d->bytes;
  if (auto st =
          check_room(bytes_size + count * (slice ? 16 : 8), "reading '" + tensor + "' from " + path, memory_room());
      !st)
    return Error{st.error()};
  std::ifstream in(path, std::ios::binary);
  uint8_t len[8] = {};
  in.read(reinterpret_cast<char*>(len), 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  std::vector<uint8_t> bytes(e->end - e->begin);
  in.seekg(static_cast<std::streamoff>(8 + n + e->begin));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    return Error{"cannot read tensor '" + tensor + "' from " + path};
  auto t = decode_tensor(*e, bytes.data(), slice);
  if (!t) return Error{path + ": " + t.error()};
  return t;
}

}  // namespace pl::io
