// The Setup view, the left column of the Experiment panel: everything the next run is made of
// -- the op (linear, matmul, MLP, dot sweep) and its sizes, the input, weight, bias, accumulation
// and output dtypes, rounding and overflow, scaling recipes, data sources or tensor files (typed
// or dropped on the window), the seed, the framework whose rules apply and the backend. It owns
// the setup and says when it changed; the panel decides when to run it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/ui/shell/run_log.h"
#include "app/ui/views/experiment_kinds.h"
#include "app/ui/widgets/backend_picker.h"
#include "core/experiment/spec/matmul_json.h"

namespace pl::ui {

class SetupView {
 public:
  explicit SetupView(RunLog& log);
  // Draws the fields; true when the setup changed.
  bool draw();
  // Refreshes error() and, for the MLP and the dot sweep, other_file(); true when that file
  // changed (typing into a field the file is made from).
  bool check();

  // From an experiment file (precision-lab --setup FILE.json).
  Status load(const std::string& path);
  // From an experiment file's contents; `what` names it in messages.
  Status load_json(const nlohmann::json& j, const std::string& what);
  // The setup as an experiment file (what the window remembers, what export writes).
  nlohmann::json json() const;
  // A tensor file dropped on the window, placed in the field under the mouse on the next frame
  // the fields are drawn, else by place_pending_drops().
  void drop_tensor(const std::string& path);
  // Dropped tensors not yet placed go to the first free of input and weight; true when any did.
  bool place_pending_drops();
  // The pair chosen in the Promotion grid, under its framework; a matrix op runs as matmul.
  void use_pair(DType input, DType weight, const std::string& framework, const std::string& op);
  // An accumulation model read back by the accumulation probe, with the dtype it probed as input
  // and weight, and no framework (the arithmetic alone); false (and a log line saying why) when
  // the spec does not parse.
  bool use_model(const std::string& spec, DType input);
  // Shapes read from the tensor files of a finished run show in the fields.
  void follow_file_shapes(const experiment::MatmulSpec& ran);

  ExperimentMode mode() const { return mode_; }
  const experiment::MatmulSpec& spec() const { return spec_; }      // the matrix product's
  const nlohmann::json& other_file() const { return other_file_; }  // the MLP's or dot sweep's
  const std::string& error() const { return setup_error_; }         // why it cannot run; "" if it can

 private:
  // Each group of fields; true when one changed.
  bool draw_shape_and_op();       // the op and the sizes it takes
  bool draw_training();           // a training run's models, sizes, steps, learning rate, noise
  bool draw_dtypes();             // input, weight, output and bias dtypes (those the op reads)
  bool draw_accumulate();         // the accumulation model (a list for a dot sweep)
  bool draw_rounding_and_data();  // rounding, overflow, scaling recipes, data distributions
  bool draw_group_size(const char* label, experiment::Scaling& s);
  bool draw_seed_and_threads();
  bool draw_files();      // the tensor file fields
  bool draw_framework();  // the framework whose call the product runs as
  bool draw_device();     // the backend, fast accumulation, and where the product will run

  RunLog& log_;
  experiment::MatmulSpec spec_;
  char accumulate_[48] = "f32:blas";
  std::string setup_error_;
  std::vector<std::string> pending_drops_;  // dropped tensors not yet placed in a field
  // The MLP, the dot sweep, the cast and the training run run as experiment files (experiment_kinds.h).
  ExperimentMode mode_ = ExperimentMode::Matrix;
  OtherKindParams other_;
  std::vector<experiment::Accumulation> models_;  // the accumulate field's models (a list for dot sweeps)
  nlohmann::json other_file_;
  BackendPicker backend_;
};

}  // namespace pl::ui
