// Eight doubles as two GCC vectors of four, for hot loops written once for every target
// (PL_CLONES, target_clones.h): GCC does not vectorise the same lanes written as arrays where a
// loop takes an absolute value or a maximum.
//
// Why two halves and not one vector of eight: on a target without AVX-512 (x86-64-v3: AVX2),
// GCC 12 lowers a comparison or a selection of eight doubles lane by lane (vcmpsd and
// vblendvpd on single doubles), and keeps the eight lanes in memory between operations; a
// statistics loop over a block ran at 5.4 ns an element there against 0.18 ns written as two
// vectors of four. Four doubles fill an AVX2 register, and the AVX-512 clone runs the same two
// halves (Zen 4 splits a 512-bit operation into two 256-bit halves anyway). Lane l is element
// l % 4 of half l / 4, so what is added to what, and every result's bits, do not depend on it.
//
// C++ has no overloadable ?:, so a lane-wise choice is select(mask, a, b); bits_of and lanes_of
// reinterpret a vector's bits.
#pragma once

#include <cstddef>
#include <cstring>

namespace pl {

inline constexpr size_t kVectorLanes = 8;
inline constexpr size_t kHalfLanes = kVectorLanes / 2;

// Aligned as wide as they are whatever the target: without AVX2 GCC aligns them to 16 bytes,
// and the AVX2 or AVX-512 clone of a function reading them from the caller's memory would fault
// on its aligned loads (a std::vector of them allocates to the type's alignment).
using HalfLanes =
    double __attribute__((vector_size(kHalfLanes * sizeof(double)), aligned(kHalfLanes * sizeof(double))));
using HalfMask =
    long long __attribute__((vector_size(kHalfLanes * sizeof(long long)), aligned(kHalfLanes * sizeof(long long))));

// Every function here is always inlined: one of its own would be compiled for baseline x86-64,
// which passes vectors through memory, while an AVX2 or AVX-512 clone calling it expects them
// in registers (an unoptimised build read garbage).
#define PL_LANES_INLINE [[gnu::always_inline]] inline

// Lane l of a vector V (Lanes or LaneMask), to read or to assign: clang binds no reference to a
// vector's element (GCC does), so non-const subscripts return this instead.
template <typename V, typename T>
struct LaneRef {
  V* v;
  size_t l;
  PL_LANES_INLINE operator T() const { return v->h[l / kHalfLanes][l % kHalfLanes]; }
  PL_LANES_INLINE LaneRef& operator=(T x) {
    v->h[l / kHalfLanes][l % kHalfLanes] = x;
    return *this;
  }
  PL_LANES_INLINE LaneRef& operator=(const LaneRef& o) { return *this = T(o); }  // (a[l] = b[l] = 1)
};

struct LaneMask {  // -1 (every bit set) or 0 in each lane; also 64-bit integers lane by lane
  HalfMask h[2];

  PL_LANES_INLINE LaneRef<LaneMask, long long> operator[](size_t l) { return {this, l}; }
  PL_LANES_INLINE long long operator[](size_t l) const { return h[l / kHalfLanes][l % kHalfLanes]; }
};

struct Lanes {
  HalfLanes h[2];

  PL_LANES_INLINE LaneRef<Lanes, double> operator[](size_t l) { return {this, l}; }
  PL_LANES_INLINE double operator[](size_t l) const { return h[l / kHalfLanes][l % kHalfLanes]; }
};

// Each operator lane by lane, as GCC's vector types do it; a scalar operand is broadcast.
#define PL_LANES_BINARY(T, S, op)                                                              \
  PL_LANES_INLINE T operator op(T a, T b) { return {{a.h[0] op b.h[0], a.h[1] op b.h[1]}}; }   \
  PL_LANES_INLINE T operator op(T a, S b) { return {{a.h[0] op b, a.h[1] op b}}; }             \
  PL_LANES_INLINE T operator op(S a, T b) { return {{a op b.h[0], a op b.h[1]}}; }             \
  PL_LANES_INLINE T& operator op##=(T & a, T b) { return a = a op b; }
#define PL_LANES_COMPARE(T, S, op)                                                                 \
  PL_LANES_INLINE LaneMask operator op(T a, T b) { return {{a.h[0] op b.h[0], a.h[1] op b.h[1]}}; } \
  PL_LANES_INLINE LaneMask operator op(T a, S b) { return {{a.h[0] op b, a.h[1] op b}}; }

PL_LANES_BINARY(Lanes, double, +)
PL_LANES_BINARY(Lanes, double, -)
PL_LANES_BINARY(Lanes, double, *)
PL_LANES_BINARY(Lanes, double, /)
PL_LANES_COMPARE(Lanes, double, <)
PL_LANES_COMPARE(Lanes, double, <=)
PL_LANES_COMPARE(Lanes, double, >)
PL_LANES_COMPARE(Lanes, double, >=)
PL_LANES_COMPARE(Lanes, double, ==)
PL_LANES_COMPARE(Lanes, double, !=)

PL_LANES_BINARY(LaneMask, long long, +)
PL_LANES_BINARY(LaneMask, long long, -)
PL_LANES_BINARY(LaneMask, long long, &)
PL_LANES_BINARY(LaneMask, long long, |)
PL_LANES_BINARY(LaneMask, long long, ^)
PL_LANES_BINARY(LaneMask, long long, <<)
PL_LANES_BINARY(LaneMask, long long, >>)
PL_LANES_COMPARE(LaneMask, long long, <)
PL_LANES_COMPARE(LaneMask, long long, >)
PL_LANES_COMPARE(LaneMask, long long, ==)

#undef PL_LANES_BINARY
#undef PL_LANES_COMPARE

PL_LANES_INLINE LaneMask operator~(LaneMask m) { return {{~m.h[0], ~m.h[1]}}; }
PL_LANES_INLINE Lanes operator-(Lanes a) { return {{-a.h[0], -a.h[1]}}; }

// a where the mask is set, b elsewhere.
PL_LANES_INLINE Lanes select(LaneMask m, Lanes a, Lanes b) { return {{m.h[0] ? a.h[0] : b.h[0], m.h[1] ? a.h[1] : b.h[1]}}; }
PL_LANES_INLINE LaneMask select(LaneMask m, LaneMask a, LaneMask b) {
  return {{m.h[0] ? a.h[0] : b.h[0], m.h[1] ? a.h[1] : b.h[1]}};
}

// The same 64 bits of each lane, read as the other type.
PL_LANES_INLINE LaneMask bits_of(Lanes v) { return {{(HalfMask)v.h[0], (HalfMask)v.h[1]}}; }
PL_LANES_INLINE Lanes lanes_of(LaneMask m) { return {{(HalfLanes)m.h[0], (HalfLanes)m.h[1]}}; }

PL_LANES_INLINE Lanes abs_of(Lanes v) { return lanes_of(bits_of(v) & ~(1ll << 63)); }

// x[0, 8), each half loaded on its own: one copy of 64 bytes went through the stack in 16-byte
// pieces read back 32 at a time, and stalled on store forwarding.
PL_LANES_INLINE Lanes load_lanes(const double* x) {
  Lanes v;
  std::memcpy(&v.h[0], x, sizeof v.h[0]);
  std::memcpy(&v.h[1], x + kHalfLanes, sizeof v.h[1]);
  return v;
}

// x[0, n) for n up to 8, the lanes past n set to `fill`.
PL_LANES_INLINE Lanes load_lanes(const double* x, size_t n, double fill) {
  if (n >= kVectorLanes) return load_lanes(x);
  Lanes v = Lanes{} + fill;
  for (size_t l = 0; l < n; ++l) v[l] = x[l];
  return v;
}

#undef PL_LANES_INLINE

}  // namespace pl
