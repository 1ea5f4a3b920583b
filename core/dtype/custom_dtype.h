// Custom float formats as dtypes. A format a user names where an experiment wants a dtype
// ("e5m7", "e4m3b11:fnuz") gets a DType id of its own, handed out once per format for the
// life of the process, and info(), name() and short_name() answer for it as for a table row.
// So every experiment, accumulation model and backend that takes a DType takes a custom
// format too, through the same code, and the ones that need a real machine type (cuBLASLt,
// a framework's promotion rules) refuse it as they refuse a table format they lack.
//
// Ids are not stable between runs: files store the name ("e5m7b15:ieee"), which parses back
// to the same format.
#pragma once

#include <string>
#include <vector>

#include "core/dtype/dtype.h"
#include "core/util/expected.h"

namespace pl {

// DType is one byte: ids from kFirstCustomDType up are custom formats (the table stops well
// below, with room to grow).
inline constexpr int kFirstCustomDType = 64;
inline constexpr int kCustomDTypeCapacity = 256 - kFirstCustomDType;

bool is_custom(DType t);

// The dtype of a float format: the table's row where one has exactly this format (e5m10 is
// float16: one dtype per format), else a custom id, registered on first use (thread-safe). The
// format must be one make_custom_format accepts; an error once kCustomDTypeCapacity formats are
// registered.
Expected<DType> custom_dtype(const FloatFormat& f);

// Every custom format registered so far, in the order they were first named.
std::vector<DType> custom_dtypes();

// The row info() returns for a registered custom id; nullptr for any other id.
const DTypeInfo* custom_info(DType t);

// Spellings parse_float_format reads back to f: the canonical one spells every parameter
// ("e5m7b15:ieee"); the short one leaves out a default bias and IEEE specials ("e5m7").
std::string custom_format_name(const FloatFormat& f);
std::string custom_format_short_name(const FloatFormat& f);

}  // namespace pl
