// Whole-array conversions, multi-threaded, with the fast element path where
// the format allows it and the exact scalar codec elsewhere. Element i of a
// stochastic conversion draws stochastic_bits(seed, i), so results do not
// depend on the number of threads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/dtype/device/cast_policy.h"
#include "core/dtype/device/float_format.h"
#include "core/dtype/device/roundtrip_f32.h"

namespace pl {

RoundtripF32Params make_roundtrip_params(const FloatFormat& f, const CastOptions& o);

// out[i] = decode(encode_f32(in[i])) as float32. `in` and `out` may be the same array
// (in-place), but must not otherwise overlap.
// threads = 0: one per hardware thread.
void roundtrip_f32_array(const FloatFormat& f, const CastOptions& o, const float* in, float* out, size_t n,
                         unsigned threads = 0);

// codes[i] = encode_f32(in[i]).code, stored in `code_bytes` (1, 2, 4 or 8) bytes per element.
void encode_f32_array(const FloatFormat& f, const CastOptions& o, const float* in, void* codes, int code_bytes,
                      size_t n, unsigned threads = 0);

// Parallel memcpy with the same threading, the yardstick bulk conversions are measured against.
void copy_array(const void* in, void* out, size_t bytes, unsigned threads = 0);

}  // namespace pl
