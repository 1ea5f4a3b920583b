// The experiment files' shared reading and writing pieces (matmul_json.cpp and
// sweep_json.cpp): a strict reader that names the key it rejects, and the JSON spellings of
// data sources, recipes and accumulation models that the reader reads back.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/util/printable.h"
#include "core/backend/backend_choice.h"
#include "core/dtype/device/cast_policy.h"
#include "core/dtype/format_lookup.h"
#include "core/experiment/dot_sweep.h"
#include "core/quantise/data_source.h"
#include "core/quantise/scaling.h"

namespace pl::experiment::json_detail {

using nlohmann::json;

// JSON has no inf/nan: they are written as strings.
inline json number(double x) {
  if (std::isfinite(x)) return x;
  return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
}

// v when it is an integer in [lo, hi], signed or unsigned in the JSON (a file's parse as
// unsigned, a config written by to_json may hold signed ones); read in 64 bits, so that a value
// past int's range is refused instead of wrapped into it (threads 2^32 + 1 would run on one thread).
inline std::optional<int64_t> integer_in(const json& v, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) return std::nullopt;
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) return std::nullopt;
  return x;
}

// An error "unknown key 'K'" for the first key of `j` not in `known`: every experiment reader
// names a key it does not take instead of ignoring it.
inline Status unknown_key(const json& j, std::initializer_list<std::string_view> known) {
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end())
      return Error{"unknown key '" + printable(it.key()) + "'"};
  return {};
}

struct Reader {
  const json& j;
  std::string error;

  bool fail(const std::string& key, const std::string& why) {
    if (error.empty()) error = "'" + key + "': " + why;
    return false;
  }
  bool size(const char* key, size_t* out) {
    if (!j.contains(key)) return true;
    // Each caller's check says how large a size may be; 0 is no size (m = 0 would get through to
    // a message naming no key).
    const auto v = integer_in(j[key], 1, INT64_MAX);
    if (!v) return fail(key, "must be a positive integer");
    *out = static_cast<size_t>(*v);
    return true;
  }
  // An integer in [lo, hi]; signed or unsigned in the JSON (a file's parse as unsigned, a config
  // written by to_json may hold signed ones).
  bool integer(const char* key, int64_t lo, int64_t hi, int* out) {
    if (!j.contains(key)) return true;
    const auto v = integer_in(j[key], lo, hi);
    if (!v) return fail(key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    *out = static_cast<int>(*v);
    return true;
  }
  // "rounding" and "overflow": their spellings (rounding_name, overflow_name), the refusal
  // listing every one from the tables.
  bool cast_policy(CastOptions* out) {
    std::string text;
    if (j.contains("rounding") && string("rounding", &text) && !parse_rounding(text.c_str(), &out->rounding))
      fail("rounding", "'" + text + "' is not one of " + rounding_names());
    if (j.contains("overflow") && string("overflow", &text) && !parse_overflow(text.c_str(), &out->overflow))
      fail("overflow", "'" + text + "' is not one of " + overflow_names());
    return error.empty();
  }
  bool dtype(const char* key, DType* out) {
    if (!j.contains(key)) return true;
    if (!j[key].is_string()) return fail(key, "must be a dtype name");
    auto t = parse_dtype(j[key].get<std::string>());
    if (!t) return fail(key, t.error());
    *out = *t;
    return true;
  }
  bool scaling(const char* key, Scaling* out) {
    if (!j.contains(key)) return true;
    const json& v = j[key];
    const json kind = v.is_object() ? (v.contains("kind") ? v["kind"] : json()) : v;
    if (!kind.is_string())
      return fail(key, "must be a recipe NAME[:BLOCK] or {\"kind\": ..., \"history\": N, \"group\": G}");
    auto spec = parse_scaling_spec(kind.get<std::string>());
    if (!spec) return fail(key, spec.error());
    const int history = out->history;
    *out = *spec;
    out->history = history;
    if (v.is_object())
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "kind") continue;
        if (it.key() == "group") {
          const auto group = integer_in(it.value(), 2, kMaxGroup);
          if (!group) return fail(key, "group must be an integer from 2 to 65536");
          out->group = static_cast<int>(*group);
          continue;
        }
        if (it.key() != "history") return fail(key, "unknown key '" + printable(it.key()) + "'");
        const auto history = integer_in(it.value(), 1, 1024);
        if (!history) return fail(key, "history must be an integer from 1 to 1024");
        out->history = static_cast<int>(*history);
      }
    return true;
  }
  bool data(const char* key, DataSource* out) {
    if (!j.contains(key)) return true;
    const json& v = j[key];
    const json dist = v.is_object() ? (v.contains("distribution") ? v["distribution"] : json()) : v;
    if (!dist.is_string()) return fail(key, "must be a distribution name or {\"distribution\": ...}");
    auto d = parse_distribution(dist.get<std::string>());
    if (!d) return fail(key, "unknown distribution '" + dist.get<std::string>() + "' (" + distribution_names() + ")");
    out->distribution = *d;
    if (v.is_object())
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "distribution") continue;
        if (it.key() == "stored_as") {
          if (!it.value().is_string()) return fail(key, "stored_as must be a dtype name");
          auto t = parse_dtype(it.value().get<std::string>());
          if (!t) return fail(key, "stored_as: " + t.error());
          out->stored_as = *t;
          continue;
        }
        double* field = it.key() == "scale"              ? &out->scale
                        : it.key() == "dof"              ? &out->dof
                        : it.key() == "outlier_fraction" ? &out->outlier_fraction
                        : it.key() == "outlier_gain"     ? &out->outlier_gain
                                                         : nullptr;
        if (!field) return fail(key, "unknown key '" + printable(it.key()) + "'");
        if (!it.value().is_number()) return fail(key, it.key() + " must be a number");
        *field = it.value().get<double>();
      }
    if (auto st = check(*out); !st) return fail(key, st.error());
    return true;
  }
  bool string(const char* key, std::string* out) {
    if (!j.contains(key)) return true;
    if (!j[key].is_string()) return fail(key, "must be a string");
    *out = j[key].get<std::string>();
    return true;
  }
  // "backend": one of backend_choice_names(), the same spellings as --backend.
  bool backend(BackendChoice* out) {
    std::string text;
    if (!j.contains("backend") || !string("backend", &text)) return error.empty();
    const auto c = parse_backend_choice(text);
    if (!c) return fail("backend", "'" + text + "': expected " + backend_choice_names());
    *out = *c;
    return true;
  }
  bool boolean(const char* key, bool* out) {
    if (!j.contains(key)) return true;
    if (!j[key].is_boolean()) return fail(key, "must be true or false");
    *out = j[key].get<bool>();
    return true;
  }
  // "seed": the whole of uint64's range, as the draws take it.
  bool seed(uint64_t* out) {
    if (!j.contains("seed")) return true;
    if (!j["seed"].is_number_unsigned()) return fail("seed", "must be a non-negative integer");
    *out = j["seed"].get<uint64_t>();
    return true;
  }
};

inline json data_json(const DataSource& d) {
  json j = {{"distribution", distribution_name(d.distribution)},
            {"scale", d.scale},
            {"dof", d.dof},
            {"outlier_fraction", d.outlier_fraction},
            {"outlier_gain", d.outlier_gain}};
  if (d.stored_as) j["stored_as"] = name(*d.stored_as);
  return j;
}

inline json scaling_json(const Scaling& s) {
  json j{{"kind", scaling_name(s.kind)}, {"history", s.history}};
  if (is_group(s.kind)) j["group"] = s.group;
  return j;
}

}  // namespace pl::experiment::json_detail
