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

namespace {

// The value of an enum numbered 0 .. count - 1 whose name is `text`, by the enum's own name
// function: the three policies' tables read and list alike.
template <typename E>
bool parse_by_name(const char* text, int count, const char* (*name_of)(E), E* out) {
  for (int i = 0; i < count; ++i)
    if (std::strcmp(text, name_of(static_cast<E>(i))) == 0) {
      *out = static_cast<E>(i);
      return true;
    }
  return false;
}

template <typename E>
std::string names_by_name(int count, const char* (*name_of)(E), const char* separator) {
  std::string out;
  for (int i = 0; i < count; ++i) out.append(i ? separator : "").append(name_of(static_cast<E>(i)));
  return out;
}

}  // namespace

bool parse_rounding(const char* text, Rounding* out) { return parse_by_name(text, kRoundingCount, rounding_name, out); }

bool parse_overflow(const char* text, Overflow* out) { return parse_by_name(text, kOverflowCount, overflow_name, out); }

bool parse_cast_path(const char* text, CastPath* out) {
  return parse_by_name(text, kCastPathCount, cast_path_name, out);
}

std::string rounding_names(const char* separator) { return names_by_name(kRoundingCount, rounding_name, separator); }

std::string overflow_names(const char* separator) { return names_by_name(kOverflowCount, overflow_name, separator); }

std::string cast_path_names(const char* separator) { return names_by_name(kCastPathCount, cast_path_name, separator); }

}  // namespace pl
