// How long a matrix experiment takes, against the bare library calls it cannot do without,
// timed in the same run on the same data (so the ratio survives a busy or slower machine).
// `precision-lab bench --op matmul` and the README's performance table use it.
#pragma once

#include <string>
#include <vector>

#include "core/experiment/matmul.h"
#include "core/util/expected.h"

namespace pl::experiment {

struct MatmulTiming {
  MatmulConfig config;
  int reps = 0;
  double experiment_ms = 0;             // median of run_matmul on operands drawn beforehand (references and
                                        // quantised operands computed)
  double cached_ms = 0;                 // median of the same run again, its references, quantised operands
                                        // and |A||B| kept from the run before: the best case of the window's
                                        // re-run on a change of a setting (a change redoes what it touches)
  double blas_ms = 0;                   // median of the OpenBLAS calls it makes, nothing else
  std::vector<std::string> blas_calls;  // which: "dgemm (reference)", ...
  double product_ms = 0;                // the experiment's product stage (median run's)
  double product_gflops = 0;            // 2 m n k / product stage
  StageTimes stages;                    // the median run's stages (a run with its references computed)
  StageTimes cached_stages;             // the median cached run's stages: a window update at best (nothing changed)
  std::string reference_method;         // how that run's reference was made ("... (cached)" never)
  std::string product_backend;          // where that run's product ran: "cpu" or "cuda (device)"
  double ratio() const { return blas_ms > 0 ? experiment_ms / blas_ms : 0; }
};

// reps >= 1 timed runs of each (after one untimed warm-up run of each).
Expected<MatmulTiming> time_matmul(const MatmulConfig& c, int reps);

}  // namespace pl::experiment
