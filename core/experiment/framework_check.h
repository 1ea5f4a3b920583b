// The matrix experiment as a framework would run it. The promotion engine (core/promote)
// says what the framework does with the (input, weight[, bias]) pair; when it raises, the
// experiment runs each fix the engine suggests instead -- x.to(w.dtype), model.to(x.dtype),
// .float() -- side by side, each in the dtype the fix leads to, so the user sees what each
// fix costs in error. A cast in a fix is modelled as it happens: the operand is first stored in
// its own dtype, then converted (MatmulConfig::input_via / weight_via).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/experiment/matmul.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/promote/engine.h"

namespace pl::experiment {

struct FixRun {
  std::string code;    // "x.to(w.dtype)"
  std::string effect;  // "x becomes torch.float32"
  promote::Outcome outcome;
  std::optional<MatmulResult> result;  // set when the fix works and its experiment ran
  std::string note;                    // why it did not run, when it did not
};

struct FrameworkRun {
  std::string engine;  // "torch 2.15.0 (cpu)"
  std::string call;    // "linear(x: torch.float16, w: torch.float32)"
  promote::Outcome as_written;
  std::vector<FixRun> fixes;  // only when as_written raises
};

// What the fixes ran against, in words: "the exact product (double-double)" where a float64
// dtype is in play (the reference is double-double), else "the float64 reference", and both
// where the fixes differ.
std::string fixes_reference_text(const FrameworkRun& f);

// Asks the engine (`engine_id`, e.g. "torch") about the config's op and dtypes; runs the fixes
// when the call raises. Errors: an unknown engine, a dtype the framework does not have.
Expected<FrameworkRun> run_as_framework(const MatmulConfig& c, const std::string& engine_id,
                                        const MatmulOperands& operands = {},
                                        const std::function<void(double)>& progress = {},
                                        const std::atomic<bool>* cancel = nullptr);

// The framework's answer with every fix's experiment, as JSON (framework.json, --json).
nlohmann::json to_json(const FrameworkRun& f);

// A matrix experiment as a setup describes it. With a framework, its answer comes first: a
// call that works computes and returns in the framework's result dtype (the output follows
// it); a call that raises runs the fixes instead and has no experiment of its own. Without
// one, the arithmetic alone. The window, `matmul --framework` and `run` all go through here.
struct SpecRun {
  MatmulSpec spec;                        // as run: files loaded, output set by the framework
  std::optional<FrameworkRun> framework;  // when the spec names one
  std::optional<MatmulResult> result;     // unless the call raises
  bool raised() const { return framework && !framework->as_written.ok(); }
};

// Loads the spec's files (or draws the operands) and runs it. Errors: a file, a dtype the
// framework lacks, a cancelled run ("cancelled").
Expected<SpecRun> run_spec(MatmulSpec spec, const std::function<void(double)>& progress = {},
                           const std::atomic<bool>* cancel = nullptr);

}  // namespace pl::experiment
