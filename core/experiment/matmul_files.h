// Operands of a matrix experiment loaded from the files an experiment names: the shapes come
// from the tensors (A: m x k; B: k x n for matmul, W: n x k for linear; bias: n values) and
// must fit together; the config's m, n, k are set from them.
#pragma once

#include "core/experiment/matmul.h"
#include "core/experiment/spec/matmul_json.h"

namespace pl::experiment {

// Loads the files in spec.files (the input and weight both, or neither; the bias alone may
// be drawn) and sets spec.config's shape. No files: empty operands, config unchanged.
Expected<MatmulOperands> load_operands(MatmulSpec& spec);

}  // namespace pl::experiment
