// The promotion engines behind one interface, so the CLI and the Promotion panel
// ask every framework the same question the same way. Each engine names the
// framework version and device whose behaviour it reproduces.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/promote/outcome.h"
#include "core/util/expected.h"

namespace pl::promote {

// A convolution's operand shapes: on a CPU they decide PyTorch's path (oneDNN or its own
// kernels), and so which dtype error it raises.
struct ConvShape {
  std::vector<int64_t> input;   // N, C, L (conv1d) or N, C, H, W (conv2d)
  std::vector<int64_t> weight;  // O, C / groups, kL (conv1d) or O, C / groups, kH, kW (conv2d)
  int64_t groups = 1;
  int threads = 2;  // torch.get_num_threads(): a 1x1 kernel takes oneDNN only with more than one
};

// Where a tensor operand lives, for the engines that model placement (PyTorch's CPU and CUDA
// engines): a CPU tensor fed to a model on the GPU, and the reverse.
enum class Device : uint8_t { Cpu, Cuda };
std::string_view device_name(Device d);  // "cpu", "cuda"
std::optional<Device> parse_device(std::string_view text);

struct Query {
  std::string op;                                // engine-specific name: "add", "linear", ...
  Operand a;                                     // input (x)
  Operand b;                                     // other operand or weight (w)
  std::optional<DType> bias = std::nullopt;      // bias dtype, for ops that take one
  std::optional<ConvShape> conv = std::nullopt;  // a convolution's shapes, for engines that model them
  // Where a and b live, for engines that place operands; unset: the engine's own device. The
  // bias lives with b, as a module's parameters live together.
  std::optional<Device> a_device = std::nullopt, b_device = std::nullopt;
};

// Which operands' values (Operand::value) an engine models; the others take the default values.
enum class ValuesModelled : uint8_t {
  None,           // True, 2, 2.5 and 2.5+1j only
  PythonScalars,  // a Python scalar's value (PyTorch: only ints past int64 change anything)
  All,            // zero-dim operands' values too (NumPy: np.array(v, dtype) and 1.x value-based casting)
};
bool models_value(ValuesModelled m, OperandKind k);

struct Engine {
  std::string_view id;         // how the CLI and settings name it: "torch", "numpy", "numpy1"
  std::string_view framework;  // "torch", "numpy"
  std::string_view version;    // the release reproduced, e.g. "2.15.0"
  std::string_view device;     // "cpu", or the configuration: "x64 off"
  std::vector<std::string_view> ops;
  std::vector<std::string_view> bias_ops;   // ops that accept a bias
  std::vector<std::string_view> kind_ops;   // ops where zero-dim / scalar operands are modelled
  std::vector<std::string_view> shape_ops;  // ops whose answer depends on Query::conv (the rest ignore it)
  ValuesModelled values;
  // Where the operands live unless a Query places them, for the engines that take
  // Query::a_device / b_device (PyTorch's plain CPU and CUDA engines); none for the others.
  std::optional<Device> operand_device;
  std::string_view cast_method;  // how fixes spell a cast: "to", "astype" (methods) or "tf.cast"
  std::string_view weight_name;  // what holds a layer op's weight: "model" (a module) or "w" (an array)
  bool (*has_dtype)(DType);
  std::string (*spell)(DType);  // "torch.float32"
  Outcome (*evaluate)(const Query&);
  // A library whose release the answers also depend on: NumPy's ml_dtypes dtypes
  // ("ml_dtypes 0.6.0"; 0.7.0 promotes bfloat16 + a Python float to bfloat16, 0.6.0 to float32).
  std::string_view companion = {};
  // Dtypes the framework release has that this engine leaves out (has_dtype is false for them):
  // TensorFlow's experimental float8 fnuz types and its int4 and uint4.
  std::span<const DType> unmodelled = {};
  std::vector<std::string_view> bias_needed_ops = {};  // ops that have no form without a bias: addmm
  // Ops that are a layer's forward (F.linear, the convolutions: nn.Linear's and nn.Conv's), whose
  // weight and bias are a module's parameters: the fixes cast the module (`weight_name`), which
  // converts its floating-point parameters only. The other ops' operands are tensors of their own.
  std::vector<std::string_view> layer_ops = {};
  // The dtype an array cast to t holds, where that is another (JAX with x64 off makes a cast to
  // int64 an int32 array); null: t itself. Fixes name what the operand becomes by it.
  DType (*held_as)(DType) = nullptr;
};

// Why `e` takes no `t`, in words: "int4 is a tensorflow 2.21.0 dtype the tf engine does not
// model", or "float8_e4m3 is not a torch 2.15.0 dtype".
std::string missing_dtype_text(const Engine& e, DType t);

// "numpy 2.4.6 with ml_dtypes 0.6.0", "torch 2.15.0": the framework and the releases its answers are from.
std::string release_text(const Engine& e);
// What heads an answer: the release and the engine's device and configuration ("torch 2.15.0
// (cuda, autocast float16)"), so an autocast answer is never read as plain PyTorch's. Where the
// call places its operands on devices, they are named with the operands instead, and a bare
// device here would contradict them ("torch 2.15.0 (cpu): linear(..., b: ... on cuda)").
std::string engine_heading(const Engine& e, bool operands_placed);
// For a Python scalar b whose value the result cannot hold, why, in the engine's spelling ("1000
// is not a torch.uint8 value (0 to 255): the result cannot hold it"); "" otherwise. (b only: the
// grid and the panel ask b's kind; an a that is a Python scalar is not said.)
std::string scalar_not_held(const Engine& e, const Query& q, const Outcome& o);

// The parts of an engine's device description ("cpu with AVX-512, autocast bfloat16"): where it
// runs, its first word ("cpu"); the configuration after it (" with AVX-512, autocast bfloat16",
// empty for a bare placement); and the autocast part ("autocast bfloat16", empty where the
// engine does not autocast).
std::string_view placement_of(std::string_view device);
std::string_view configuration_of(std::string_view device);
std::string_view autocast_of(std::string_view device);

std::span<const Engine> engines();
// Why `e` takes no value for an operand of kind `k` (models_value is false), in a sentence.
std::string unmodelled_value_message(const Engine& e, OperandKind k);
// Whether op is one of Engine::bias_needed_ops, and why it cannot be asked without a bias.
bool needs_bias(const Engine& e, std::string_view op);
std::string bias_needed_message(std::string_view op);
// Whether op is one of Engine::layer_ops: its weight is a module's parameter.
bool is_layer_op(const Engine& e, std::string_view op);
const Engine* find_engine(std::string_view id);  // also "pytorch", "tensorflow", "tensorflow-numpy"
std::string engine_names();                      // "torch, numpy, numpy1" (the ids, for messages)

// Puts a and b on the devices named ("cpu", "cuda"; empty: the engine's own, set when the other is
// named), or says why not: the engine places no operands, a name is no device, or the operand is
// a Python scalar.
// The labels name the two settings in messages ("--a-device").
Status place_operands(const Engine& e, Query& q, std::string_view a_device, std::string_view b_device,
                      std::string_view a_label, std::string_view b_label);

// The engine of base's framework that reproduces another release (version prefix: "1.13",
// "1") or device ("cuda"); an empty string keeps base's. Another device keeps base's autocast
// ("cpu, autocast bfloat16" on cuda is "cuda, autocast bfloat16"). Null when there is none.
const Engine* find_variant(const Engine& base, std::string_view version, std::string_view device);

// What a user would try after an error, and what each attempt gives.
struct Fix {
  std::string code;    // e.g. "x.to(w.dtype)"
  std::string effect;  // what it changes, in words
  Outcome outcome;     // the same call after the change
};
std::vector<Fix> suggest_fixes(const Engine& engine, const Query& q);

}  // namespace pl::promote
