#include "core/experiment/framework_check.h"

#include <algorithm>

#include "core/experiment/matmul_files.h"

namespace pl::experiment {
namespace {

// The engine's name for the config's op: linear where the engine has it, else matmul.
std::string op_for(const promote::Engine& e, MatmulOp op) {
  auto has = [&](std::string_view n) { return std::find(e.ops.begin(), e.ops.end(), n) != e.ops.end(); };
  if (op == MatmulOp::Linear && has("linear")) return "linear";
  return "matmul";
}

// The experiment of a call that computes in r -- a working fix, or a call the framework runs
// after converting its operands (NumPy's float16 @ float32, autocast's float32 to bfloat16):
// both operands (and the bias) in r, each first stored in its own dtype. Accumulation: the
// user's emulated model where it applies to the new dtypes; BLAS follows the result, as the
// framework's own call does: dgemm for float64, else sgemm (CPU frameworks accumulate
// reduced-precision products in float32) -- a float64 BLAS chosen for a float64 x float32 setup
// does not make x.to(torch.float32) run in float64.
MatmulConfig computed_in(const MatmulConfig& c, DType r) {
  MatmulConfig f = c;
  if (c.input != r) f.input_via = c.input_via.value_or(c.input), f.input = r;
  if (c.weight != r) f.weight_via = c.weight_via.value_or(c.weight), f.weight = r;
  if (f.bias && *f.bias != r) f.bias_via = c.bias_via.value_or(*c.bias), f.bias = r;
  f.output = r;
  f.input_scaling = f.weight_scaling = Scaling{};
  if (r == DType::float64) f.accumulate = {AccumKind::Blas, DType::float64};
  else if (f.accumulate.kind == AccumKind::Blas || !check(f)) f.accumulate = {AccumKind::Blas, DType::float32};
  return f;
}

// The experiment of a call that works and returns r. Where an operand is not in r the framework
// converts it first: computed_in(c, r) (before, autocast's linear(float32, float32) computed in
// float32 and only rounded its output to bfloat16). Where both are, the setup as written with
// its output in r -- but an accumulation those dtypes cannot take (a float32 model for float64
// data) is the framework's own BLAS for r.
MatmulConfig call_config(const MatmulConfig& c, DType r) {
  if (c.input != r || c.weight != r) return computed_in(c, r);
  MatmulConfig f = c;
  f.output = r;
  if (!check(f) && check_setup(f))
    f.accumulate = {AccumKind::Blas, r == DType::float64 ? DType::float64 : DType::float32};
  return f;
}

}  // namespace

std::string fixes_reference_text(const FrameworkRun& f) {
  // Each fix has its own reference: a fix that computes in float32 is scored against float64 even
  // beside one that computes in float64.
  size_t exact = 0, ran = 0;
  for (const FixRun& x : f.fixes)
    if (x.result) ++ran, exact += double_double_reference(x.result->config) ? 1 : 0;
  if (exact == 0) return "the float64 reference";
  if (exact == ran) return "the exact product (double-double)";
  return "the exact product (double-double) where float64 is in play, else the float64 reference";
}

Expected<FrameworkRun> run_as_framework(const MatmulConfig& c, const std::string& engine_id,
                                        const MatmulOperands& operands, const std::function<void(double)>& progress,
                                        const std::atomic<bool>* cancel) {
  if (auto st = framework_lacks(c, engine_id); !st) return Error{st.error()};
  const promote::Engine* e = promote::find_engine(engine_id);
  FrameworkRun run;
  run.engine = std::string(e->id) + " " + std::string(e->version) + " (" + std::string(e->device) + ")";
  promote::Query q;
  q.op = op_for(*e, c.op);
  q.a = {c.input};
  q.b = {c.weight};
  if (c.bias && std::find(e->bias_ops.begin(), e->bias_ops.end(), q.op) != e->bias_ops.end()) q.bias = c.bias;
  run.call = q.op + "(x: " + e->spell(c.input) + ", w: " + e->spell(c.weight) +
             (q.bias ? ", bias: " + e->spell(*q.bias) : std::string()) + ")";
  run.as_written = e->evaluate(q);
  if (run.as_written.ok()) return run;
  const auto fixes = promote::suggest_fixes(*e, q);
  for (size_t i = 0; i < fixes.size(); ++i) {
    FixRun f{fixes[i].code, fixes[i].effect, fixes[i].outcome, std::nullopt, ""};
    if (!f.outcome.ok()) {
      f.note = "the fix raises too";
    } else if (!is_float(*f.outcome.result)) {
      f.note = "the fix computes in " + std::string(name(*f.outcome.result)) + ", not a float dtype";
    } else {
      if (cancel && cancel->load()) return Error{"cancelled"};
      const MatmulConfig fc = computed_in(c, *f.outcome.result);
      auto r = run_matmul(
          fc, operands,
          [&](double p) {
            if (progress) progress((static_cast<double>(i) + p) / static_cast<double>(fixes.size()));
          },
          cancel);
      if (r) f.result = std::move(r).value();
      else f.note = r.error();
    }
    run.fixes.push_back(std::move(f));
  }
  return run;
}

nlohmann::json to_json(const FrameworkRun& f) {
  nlohmann::json fixes = nlohmann::json::array();
  for (const auto& x : f.fixes) {
    nlohmann::json j = {{"code", x.code}, {"effect", x.effect}, {"note", x.note}};
    if (x.outcome.ok()) j["result"] = name(*x.outcome.result);
    if (x.result) j["experiment"] = to_json(*x.result);
    fixes.push_back(j);
  }
  nlohmann::json j = {{"engine", f.engine}, {"call", f.call}, {"rule", f.as_written.rule}};
  if (f.as_written.ok()) {
    j["result"] = name(*f.as_written.result);
  } else {
    j["error_type"] = f.as_written.error_type;
    j["message"] = f.as_written.message;
    j["fixes"] = fixes;
  }
  return j;
}

Expected<SpecRun> run_spec(MatmulSpec spec, const std::function<void(double)>& progress,
                           const std::atomic<bool>* cancel) {
  auto ops = load_operands(spec);
  if (!ops) return Error{ops.error()};
  SpecRun run;
  if (!spec.framework.empty()) {
    auto f = run_as_framework(spec.config, spec.framework, *ops, progress, cancel);
    if (!f) return Error{f.error()};
    run.framework = std::move(f).value();
    const promote::Outcome& o = run.framework->as_written;
    if (!o.ok()) {
      run.spec = std::move(spec);
      return run;
    }
    // The call works: the result comes back in the framework's dtype, computed as the framework
    // computes it (call_config). The spec keeps the setup as written, so that it runs again the same way.
    if (is_float(*o.result)) spec.config.output = *o.result;
  }
  const MatmulConfig as_run = run.framework && is_float(*run.framework->as_written.result)
                                  ? call_config(spec.config, *run.framework->as_written.result)
                                  : spec.config;
  auto r = run_matmul(as_run, std::move(ops).value(), progress, cancel);
  if (!r) return Error{r.error(), r.environment_failure()};
  run.result = std::move(r).value();
  run.spec = std::move(spec);
  return run;
}

}  // namespace pl::experiment
