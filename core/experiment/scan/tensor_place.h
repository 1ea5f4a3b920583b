// Where a tensor sits in a model, read from its dotted name as PyTorch modules name parameters:
// "model.layers.12.mlp.down_proj.weight" is layer 12 of the stack "model.layers", role
// "mlp.down_proj", parameter "weight". The first all-digit part is the layer; a name without
// one ("model.embed_tokens.weight", "lm_head.weight") has no layer and its module path is its role;
// a parameter straight under a layer ("blocks.3.weight") takes its parameter name as its role.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pl::experiment {

struct TensorPlace {
  std::string stack;          // the names before the layer number ("model.layers"); empty without one
  std::optional<long> layer;  // the layer number
  std::string role;           // the module path after the layer ("mlp.down_proj"), or the whole path
  std::string param;          // the last part ("weight", "bias")
};

TensorPlace place_of(std::string_view name);

}  // namespace pl::experiment
