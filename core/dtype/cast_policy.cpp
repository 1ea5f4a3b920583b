#include "core/dtype/device/cast_policy.h"

#include <cstring>

namespace pl {

const char* rounding_name(Rounding r) {
  switch (r) {
    case Rounding::NearestEven: return "rne";
    case Rounding::NearestAway: return "rna";
    case Rounding::TowardZero: return "rtz";
    case Rounding::Up: return "up";
    case Rounding::Down: return "down";
    case Rounding::Stochastic: return "stochastic";
  }
  return "?";
}

const char* rounding_label(Rounding r) {
  switch (r) {
    case Rounding::NearestEven: return "nearest, ties to even";
    case Rounding::NearestAway: return "nearest, ties away from zero";
    case Rounding::TowardZero: return "toward zero (truncate)";
    case Rounding::Up: return "toward +infinity";
    case Rounding::Down: return "toward -infinity";
    case Rounding::Stochastic: return "stochastic (seeded)";
  }
  return "?";
}

const char* overflow_name(Overflow o) {
  switch (o) {
    case Overflow::FormatDefault: return "default";
    case Overflow::Saturate: return "saturate";
    case Overflow::NonSaturating: return "no-saturate";
  }
  return "?";
}

const char* cast_path_name(CastPath p) { return p == CastPath::Direct ? "direct" : "via-float32"; }

bool parse_rounding(const char* text, Rounding* out) {
  for (int i = 0; i < kRoundingCount; ++i) {
    auto r = static_cast<Rounding>(i);
    if (std::strcmp(text, rounding_name(r)) == 0) {
      *out = r;
      return true;
    }
  }
  return false;
}

bool parse_overflow(const char* text, Overflow* out) {
  for (int i = 0; i < kOverflowCount; ++i) {
    auto o = static_cast<Overflow>(i);
    if (std::strcmp(text, overflow_name(o)) == 0) {
      *out = o;
      return true;
    }
  }
  return false;
}

bool parse_cast_path(const char* text, CastPath* out) {
  for (int i = 0; i < kCastPathCount; ++i) {
    auto p = static_cast<CastPath>(i);
    if (std::strcmp(text, cast_path_name(p)) == 0) {
      *out = p;
      return true;
    }
  }
  return false;
}

std::string rounding_names(const char* separator) {
  std::string out;
  for (int r = 0; r < kRoundingCount; ++r)
    out.append(r ? separator : "").append(rounding_name(static_cast<Rounding>(r)));
  return out;
}

std::string overflow_names(const char* separator) {
  std::string out;
  for (int o = 0; o < kOverflowCount; ++o)
    out.append(o ? separator : "").append(overflow_name(static_cast<Overflow>(o)));
  return out;
}

std::string cast_path_names(const char* separator) {
  std::string out;
  for (int p = 0; p < kCastPathCount; ++p)
    out.append(p ? separator : "").append(cast_path_name(static_cast<CastPath>(p)));
  return out;
}

}  // namespace pl
