#include "core/io/tensor.h"

#include <bit>
#include <cstring>

#include "core/dtype/codec.h"

namespace pl::io {

size_t Tensor::rows() const {
  if (shape.size() < 2) return 1;
  size_t r = 1;
  for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
  return r;
}

size_t Tensor::cols() const { return shape.empty() ? 1 : shape.back(); }

std::string shape_text(const std::vector<size_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

Expected<size_t> element_count(const std::vector<size_t>& shape, size_t limit) {
  size_t n = 1;
  for (size_t d : shape) {
    if (d != 0 && n > limit / d)
      return Error{"shape " + shape_text(shape) + " holds more than " + std::to_string(limit) + " elements"};
    n *= d;
  }
  return n;
}

namespace {

uint64_t load(const uint8_t* p, int bytes, bool big_endian) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    const uint64_t byte = p[big_endian ? i : bytes - 1 - i];
    v = (v << 8) | byte;
  }
  return v;
}

double half_to_double(uint16_t h) { return decode(info(DType::float16).format, h); }

}  // namespace

Status decode_elements(const uint8_t* data, size_t count, char kind, int bytes, bool big_endian, DType raw,
                       std::vector<double>& out) {
  out.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const uint64_t v = load(data + i * bytes, bytes, big_endian);
    double x = 0;
    switch (kind) {
      case 'f':
        x = bytes == 8   ? std::bit_cast<double>(v)
            : bytes == 4 ? static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v)))
                         : half_to_double(static_cast<uint16_t>(v));
        break;
      case 'b':
        if (v > 1) return Error{"a bool element holds " + std::to_string(v) + " (only 0 and 1 are booleans)"};
        x = static_cast<double>(v);
        break;
      case 'i': {
        const int shift = 64 - 8 * bytes;
        const int64_t s = static_cast<int64_t>(v << shift) >> shift;  // sign-extend
        if (s > (int64_t{1} << 53) || s < -(int64_t{1} << 53))
          return Error{"integer " + std::to_string(s) + " is beyond 2^53 and would not convert exactly"};
        x = static_cast<double>(s);
        break;
      }
      case 'u':
        if (v > (uint64_t{1} << 53))
          return Error{"integer " + std::to_string(v) + " is beyond 2^53 and would not convert exactly"};
        x = static_cast<double>(v);
        break;
      case 'r': {
        const FloatFormat& f = info(raw).format;
        if (v & ~f.code_mask())
          return Error{"code " + std::to_string(v) + " does not fit " + std::string(name(raw)) + "'s " +
                       std::to_string(f.total_bits()) + " bits"};
        x = decode(f, v);
        break;
      }
      default: return Error{"unsupported element kind"};
    }
    out[i] = x;
  }
  return {};
}

}  // namespace pl::io
