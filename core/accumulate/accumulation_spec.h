// The accumulation models' grammar: the text a user writes for a model ("f16:pairwise:32"),
// read by every command, experiment file and picker, and written back by accumulation_spec.
#pragma once

#include <string>

#include "core/accumulate/accumulate.h"
#include "core/util/expected.h"

namespace pl::experiment {

// A model from its command-line spelling: "f64", "f32:sequential", "f16:pairwise:32",
// "bf16:kahan", "f16:chunked:128" (inner format, then the chunk length; outer float32),
// "f32:blas", "f64:blas" (the OpenBLAS GEMM), a custom format ("e6m9:pairwise:32",
// "e4m3b9:fnuz:kahan"), optionally ending in ":rtz" etc. for the rounding.
Expected<Accumulation> parse_accumulation(const std::string& spec);
// Every spelling parse_accumulation takes, from the tables of models and roundings: "f64 | i32 |
// f32:blas | f64:blas | FMT:sequential | FMT:pairwise[:BLOCK] | ..., optionally ending :rtz ...".
// The commands' help and the window's tooltip show this text. Without `with_int32`, no "i32":
// the dot sweep draws float inputs only, and refuses it.
std::string accumulation_grammar(bool with_int32 = true);
// The spec string parse_accumulation reads back: "f32:pairwise:32", "bf16:sequential:rtz".
std::string accumulation_spec(const Accumulation& a);

}  // namespace pl::experiment
