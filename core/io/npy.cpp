#include "core/io/npy.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/dtype/codec.h"
#include "core/dtype/custom_dtype.h"
#include "core/io/checked_write.h"
#include "core/io/file_read.h"
#include "core/util/memory_room.h"
#include "core/util/number_text.h"
#include "core/util/printable.h"

namespace pl::io {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMaxHeader = size_t{1} << 20;

// A tiny reader for the Python literal NumPy writes: {'descr': '<f4', 'fortran_order':
// False, 'shape': (3, 4), }. Anything else is an error.
class Literal {
 public:
  explicit Literal(std::string_view s) : s_(s) {}
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t')) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool string(std::string* out) {
    space();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) return false;
    const char q = s_[i_++];
    const size_t end = s_.find(q, i_);
    if (end == std::string_view::npos) return false;
    *out = std::string(s_.substr(i_, end - i_));
    i_ = end + 1;
    return true;
  }
  bool word(std::string_view w) {
    space();
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  // Python's decimal literal: a leading zero only in zero itself ("007" is a SyntaxError for
  // NumPy's literal_eval; leading_zero() then says so).
  bool integer(size_t* out) {
    space();
    size_t v = 0, digits = 0;
    const bool zero_first = i_ < s_.size() && s_[i_] == '0';
    leading_zero_ = false;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (v > (SIZE_MAX - 9) / 10) return false;
      v = v * 10 + static_cast<size_t>(s_[i_++] - '0');
      ++digits;
    }
    if (zero_first && v != 0) {
      leading_zero_ = true;
      return false;
    }
    if (i_ < s_.size() && s_[i_] == 'L') ++i_;  // Python 2 longs in old files
    *out = v;
    return digits > 0;
  }
  bool leading_zero() const { return leading_zero_; }
  bool at_end() {
    space();
    return i_ == s_.size();
  }
  char peek() {
    space();
    return i_ < s_.size() ? s_[i_] : '\0';
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
  bool leading_zero_ = false;
};

struct Descr {
  char kind;  // 'f', 'i', 'u', 'b', 'V'
  int bytes;
  bool big_endian;
};

Expected<Descr> parse_descr(const std::string& d) {
  const std::string shown = printable(d);  // (from the file: no escape sequence reaches a terminal)
  if (d.size() < 3) return Error{"dtype '" + shown + "' is not a simple NumPy type string"};
  const char order = d[0], kind = d[1];
  const std::string size = d.substr(2);
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return Error{"dtype '" + shown + "' has no byte order"};
  int bytes = 0;
  for (char c : size) {
    if (c < '0' || c > '9' || bytes > 1000) return Error{"dtype '" + shown + "' has a bad size"};
    bytes = bytes * 10 + (c - '0');
  }
  const bool big = order == '>';
  switch (kind) {
    case 'f':
      if (bytes == 2 || bytes == 4 || bytes == 8) return Descr{kind, bytes, big};
      return Error{"dtype '" + shown + "': float" + std::to_string(8 * bytes) + " is not supported"};
    case 'i':
    case 'u':
      if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8) return Descr{kind, bytes, big};
      break;
    case 'b':
      if (bytes == 1) return Descr{kind, bytes, big};
      break;
    case 'V':
      if (bytes == 1 || bytes == 2) return Descr{kind, bytes, big};
      break;
    case 'c': return Error{"dtype '" + shown + "' is complex: save its .real (and .imag) separately"};
    default: break;
  }
  return Error{"dtype '" + shown + "' is not a numeric type Precision Lab reads"};
}

std::string header_dict(const std::string& descr, const std::vector<size_t>& shape) {
  std::string shp = "(";
  for (size_t i = 0; i < shape.size(); ++i) shp += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) shp += ",";
  shp += ")";
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shp + ", }";
}

// Fortran (column-major) order to C order, any number of dimensions.
std::vector<double> to_c_order(const std::vector<double>& f, const std::vector<size_t>& shape) {
  std::vector<double> c(f.size());
  std::vector<size_t> idx(shape.size(), 0);
  for (size_t lin = 0; lin < f.size(); ++lin) {
    // idx is the C-order multi-index of lin; its Fortran offset:
    size_t off = 0, stride = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      off += idx[d] * stride;
      stride *= shape[d];
    }
    c[lin] = f[off];
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return c;
}

}  // namespace

Expected<NpyHeader> parse_npy_header(std::string_view dict) {
  Literal p(dict);
  NpyHeader h;
  bool have_descr = false, have_order = false, have_shape = false;
  if (!p.eat('{')) return Error{"the header is not a dictionary"};
  std::vector<std::string> keys;
  while (!p.eat('}')) {
    std::string key;
    if (!p.string(&key) || !p.eat(':')) return Error{"the header dictionary is malformed"};
    // A Python dict keeps the last of two equal keys; two 'shape's are a broken file, not a choice.
    if (std::find(keys.begin(), keys.end(), key) != keys.end())
      return Error{"the header names '" + printable(key) + "' twice"};
    keys.push_back(key);
    if (key == "descr") {
      if (p.peek() == '[') return Error{"structured dtypes (records) are not supported"};
      if (!p.string(&h.descr)) return Error{"'descr' is not a string"};
      have_descr = true;
    } else if (key == "fortran_order") {
      if (p.word("True")) h.fortran_order = true;
      else if (p.word("False")) h.fortran_order = false;
      else return Error{"'fortran_order' is not True or False"};
      have_order = true;
    } else if (key == "shape") {
      if (!p.eat('(')) return Error{"'shape' is not a tuple"};
      while (!p.eat(')')) {
        size_t d;
        if (!p.integer(&d))
          return Error{p.leading_zero() ? "'shape' has a dimension written with a leading zero (NumPy refuses it)"
                                        : "'shape' holds something other than non-negative integers"};
        if (h.shape.size() >= 32) return Error{"'shape' has more than 32 dimensions"};
        h.shape.push_back(d);
        if (!p.eat(',') && p.peek() != ')') return Error{"'shape' is malformed"};
      }
      have_shape = true;
    } else {
      return Error{"unexpected header key '" + printable(key) + "'"};
    }
    if (!p.eat(',') && p.peek() != '}') return Error{"the header dictionary is malformed"};
  }
  if (!p.at_end()) return Error{"text after the header dictionary"};
  if (!have_descr || !have_order || !have_shape) return Error{"the header lacks 'descr', 'fortran_order' or 'shape'"};
  return h;
}

namespace {

// What the header says, read from the file's first bytes alone: the dtype, the shape, where the
// data starts and how many elements it holds.
struct Layout {
  NpyHeader h;
  Descr d;
  size_t count = 0;
  size_t data_offset = 0;
};

Expected<Layout> parse_layout(std::span<const uint8_t> b) {
  if (b.size() < 6 || std::memcmp(b.data(), kMagic, 6) != 0) return Error{"not a .npy file (no \\x93NUMPY magic)"};
  if (b.size() < 10) return Error{"truncated: " + std::to_string(b.size()) + " bytes, not even the header's length"};
  const int major = b[6];
  size_t header_len, offset;
  if (major == 1) {
    header_len = b[8] | (size_t{b[9]} << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return Error{"the .npy header is truncated"};
    header_len = b[8] | (size_t{b[9]} << 8) | (size_t{b[10]} << 16) | (size_t{b[11]} << 24);
    offset = 12;
  } else {
    return Error{".npy format version " + std::to_string(major) + " is not supported (1, 2, 3 are)"};
  }
  if (header_len > kMaxHeader)
    return Error{"the .npy header claims " + std::to_string(header_len) + " bytes (limit 1 MiB)"};
  if (b.size() - offset < header_len) return Error{"the .npy header is truncated"};
  std::string_view dict(reinterpret_cast<const char*>(b.data() + offset), header_len);
  while (!dict.empty() && (dict.back() == '\n' || dict.back() == ' ' || dict.back() == '\0')) dict.remove_suffix(1);
  auto h = parse_npy_header(dict);
  if (!h) return Error{"bad .npy header: " + h.error()};
  auto d = parse_descr(h->descr);
  if (!d) return Error{d.error()};
  auto count = element_count(h->shape, kMaxElements);
  if (!count) return Error{count.error()};
  return Layout{std::move(*h), *d, *count, offset + header_len};
}

// The data after the header must be exactly the shape's elements.
Status check_data_size(const Layout& l, size_t file_size) {
  const size_t have = file_size - l.data_offset;
  if (have / l.d.bytes < l.count)
    return Error{std::string("the file is truncated: shape ")
                     .append(shape_text(l.h.shape))
                     .append(" of '")
                     .append(printable(l.h.descr))
                     .append("' needs ")
                     .append(std::to_string(l.count * l.d.bytes))
                     .append(" bytes of data, it has ")
                     .append(std::to_string(have))};
  if (have != l.count * l.d.bytes)
    return Error{"the file has " + std::to_string(have - l.count * l.d.bytes) + " bytes after the array's data"};
  return {};
}

// The header and the file's size: what the file holds, without reading its data.
Expected<Layout> read_layout(const std::string& path) {
  if (auto st = not_a_file(path); !st) return Error{st.error()};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"cannot open " + printable_whole(path) + ": " + std::strerror(errno)};
  const auto size = static_cast<size_t>(in.tellg());
  in.seekg(0);
  std::vector<uint8_t> prefix(std::min(size, kMaxHeader + 12));
  if (!in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(prefix.size())))
    return Error{"cannot read " + path};
  auto l = parse_layout(prefix);
  if (!l) return Error{path + ": " + l.error()};
  if (auto st = check_data_size(*l, size); !st) return Error{path + ": " + st.error()};
  return l;
}

}  // namespace

Expected<Tensor> parse_npy(std::span<const uint8_t> b, std::optional<DType> raw_as) {
  auto layout = parse_layout(b);
  if (!layout) return Error{layout.error()};
  if (auto st = check_data_size(*layout, b.size()); !st) return Error{st.error()};
  const NpyHeader* const h = &layout->h;
  const Descr* const d = &layout->d;
  const size_t count = layout->count, data_offset = layout->data_offset;

  Tensor t;
  t.shape = h->shape;
  t.stored_as = h->descr;
  char kind = d->kind;
  if (raw_as) {
    const int raw_bytes = info(*raw_as).storage_bits / 8;
    if (!is_float(*raw_as) || *raw_as == DType::float64 || *raw_as == DType::float32 || *raw_as == DType::float16)
      return Error{std::string(name(*raw_as)) +
                   " is read natively; a raw view is for bfloat16, float8, float6 and float4"};
    if (kind == 'f' || kind == 'b' || d->bytes != raw_bytes)
      return Error{std::string("'")
                       .append(printable(h->descr))
                       .append("' cannot hold raw ")
                       .append(name(*raw_as))
                       .append(" codes (they need ")
                       .append(std::to_string(raw_bytes))
                       .append("-byte integer or void elements)")};
    kind = 'r';
    t.dtype = *raw_as;
    t.stored_as += " viewed as " + std::string(name(*raw_as));
  } else {
    if (kind == 'V')
      return Error{std::string("'").append(printable(h->descr)).append(
          "' holds raw bytes: name the dtype they encode (bfloat16, float8_e4m3fn, ...)")};
    static const std::pair<std::string_view, DType> kNative[] = {
        {"f8", DType::float64}, {"f4", DType::float32}, {"f2", DType::float16}, {"b1", DType::bool_},
        {"i1", DType::int8},    {"u1", DType::uint8},   {"i2", DType::int16},   {"u2", DType::uint16},
        {"i4", DType::int32},   {"u4", DType::uint32},  {"i8", DType::int64},   {"u8", DType::uint64}};
    for (const auto& [code, dt] : kNative)
      if (h->descr.substr(1) == code) t.dtype = dt;
  }
  if (auto st = decode_elements(b.data() + data_offset, count, kind, d->bytes, d->big_endian, t.dtype, t.values); !st)
    return Error{st.error()};
  if (h->fortran_order && t.shape.size() > 1) t.values = to_c_order(t.values, t.shape);
  return t;
}

Expected<NpyHeader> read_npy_header(const std::string& path) {
  auto l = read_layout(path);
  if (!l) return Error{l.error()};
  return l->h;
}

Expected<Tensor> read_npy(const std::string& path, std::optional<DType> raw_as) {
  // The file's bytes and its values as float64 (twice for a Fortran-order array, reordered),
  // refused before they are read when they do not fit (memory_room.h).
  auto l = read_layout(path);
  if (!l) return Error{l.error()};
  const double needed = double(l->data_offset) + double(l->count) * (l->d.bytes + (l->h.fortran_order ? 16 : 8));
  if (auto st = check_room(needed, "reading " + path, memory_room()); !st) return Error{st.error()};
  auto bytes = read_file(path, (kMaxElements + 1) * 8 + kMaxHeader);
  if (!bytes) return Error{bytes.error()};
  auto t = parse_npy(*bytes, raw_as);
  if (!t) return Error{path + ": " + t.error()};
  return t;
}

Status write_npy(const std::string& path, const std::vector<size_t>& shape, std::span<const double> values,
                 DType dtype) {
  auto counted = element_count(shape, kMaxElements);
  if (!counted) return Error{counted.error()};
  const size_t count = *counted;
  if (count != values.size()) return Error{"write_npy: shape and values disagree"};
  std::string descr;
  int bytes = info(dtype).storage_bits / 8;
  switch (dtype) {
    case DType::float64: descr = "<f8"; break;
    case DType::float32: descr = "<f4"; break;
    case DType::float16: descr = "<f2"; break;
    case DType::bool_: descr = "|b1"; break;
    case DType::int8: descr = "|i1"; break;
    case DType::uint8: descr = "|u1"; break;
    case DType::int16: descr = "<i2"; break;
    case DType::uint16: descr = "<u2"; break;
    case DType::int32: descr = "<i4"; break;
    case DType::uint32: descr = "<u4"; break;
    case DType::int64: descr = "<i8"; break;
    case DType::uint64: descr = "<u8"; break;
    default:
      // Raw codes: bfloat16, the float8/6/4 formats, and custom formats of any width (a 24-bit
      // e8m15 in 4 bytes), which --raw reads back.
      if (!is_float(dtype) || (bytes > 2 && !is_custom(dtype)))
        return Error{std::string(name(dtype)) + " cannot be written to .npy"};
      descr = bytes == 8 ? "<u8" : bytes == 4 ? "<u4" : bytes == 2 ? "<u2" : "|u1";
  }
  std::string dict = header_dict(descr, shape);
  // Pad with spaces so the data starts on a 64-byte boundary, ending the header with '\n'.
  const size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + 6);
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(dict.size() & 0xff));
  out.push_back(static_cast<uint8_t>(dict.size() >> 8));
  out.insert(out.end(), dict.begin(), dict.end());
  const FloatFormat* f = is_float(dtype) ? &info(dtype).format : nullptr;
  for (double v : values) {
    uint64_t bits = 0;
    if (dtype == DType::float64) bits = std::bit_cast<uint64_t>(v);
    else if (dtype == DType::float32) bits = std::bit_cast<uint32_t>(static_cast<float>(v));
    else if (f) bits = encode(*f, v, {}).code;
    else {
      // Integers: in range, and (for the 64-bit types) within float64's exact 2^53.
      const double lo = std::max(static_cast<double>(int_min(dtype)), -0x1p53);
      const double hi = std::min(static_cast<double>(int_max(dtype)), 0x1p53);
      if (!(v == std::nearbyint(v) && v >= lo && v <= hi))
        return Error{"value " + shortest_double(v) + " is not a " + std::string(name(dtype))};
      bits = static_cast<uint64_t>(static_cast<int64_t>(v));
    }
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
  }
  // Complete or not at all: a full disk must not leave a truncated .npy that reads as another shape.
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
}

}  // namespace pl::io
