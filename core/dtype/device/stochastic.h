// Counter-based random bits for stochastic rounding. Element i of a stream
// with seed s always draws the same 32 bits, whatever thread or device
// computes it, so the CPU codec, the bulk kernels and the CUDA kernels agree
// bit for bit and a run is reproducible.
//
// The draw is output i of SplitMix64 (Steele, Lea, Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014) started at state s: the
// state advances by the golden-ratio increment and is finalised by the
// variant-13 mixer. Its outputs pass BigCrush; we keep the top 32 bits.
//
// Rounding rule (shared by every implementation): with the discarded part of
// the significand written as a fraction f in [0, 1) of one quantum, and F its
// first 32 bits as an integer, round up iff F + R >= 2^32 for R the 32 random
// bits. P(round up) = F / 2^32 exactly, so the rounding is unbiased whenever at
// most 32 bits are discarded (a float32 source into a narrower format, but for
// one far below the target's subnormal range) and biased by less than 2^-32 of
// a quantum otherwise.
#pragma once

#include <cstdint>

#include "core/util/host_device.h"

namespace pl {

PL_HD inline uint32_t stochastic_bits(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z = z ^ (z >> 31);
  return static_cast<uint32_t>(z >> 32);
}

// The seed of the same stream from element `offset` on: stochastic_bits(stochastic_seed_at(s, k),
// i) == stochastic_bits(s, k + i). A run of rows rounded on its own (the checkpoint scan's) draws
// what the whole array would have drawn there.
PL_HD inline uint64_t stochastic_seed_at(uint64_t seed, uint64_t offset) {
  return seed + offset * 0x9E3779B97F4A7C15ull;
}

// The seed of stream `stream` of a run seeded `seed`: what the run's operands, its output and
// each layer draw, one stream each, so that no two roundings take the same bits at the same
// index. (Seeds s and s + j * 0x9E37... would run the same stream j elements apart, so the
// pair is mixed, not added: SplitMix64's finaliser over a second odd increment.)
PL_HD inline uint64_t stochastic_stream_seed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed ^ ((stream + 1) * 0xD1B54A32D192ED03ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace pl
