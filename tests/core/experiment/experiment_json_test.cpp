// An experiment file's every setting survives the trip through setup.json: read, written back,
// each key the file gave is written with the value it gave. (The fuzz target experiment_fuzz
// checks that what is written reads back to the same JSON; it cannot see a setting that the
// writer drops every time, which is what these tests look for.) The files give canonical
// spellings, as the writer prints them, and no default, so a dropped key cannot pass unseen.
#include <gtest/gtest.h>

#include <cmath>

#include "core/experiment/matmul.h"
#include "core/experiment/roundtrip.h"
#include "core/experiment/spec/experiment_file.h"
#include "core/experiment/spec/matmul_json.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/experiment/throughput_run.h"

namespace pl::experiment {
namespace {

using nlohmann::json;

// Each key of `file` but "comment" (documented as ignored) in `written`, with the same value.
void expect_every_key_kept(const json& file, const json& written) {
  for (auto it = file.begin(); it != file.end(); ++it) {
    if (it.key() == "comment") continue;
    ASSERT_TRUE(written.contains(it.key())) << "setup.json drops '" << it.key() << "': " << written.dump();
    EXPECT_EQ(written[it.key()], it.value()) << "'" << it.key() << "' is written differently";
  }
}

// Files as users write them: parsed from text (a non-negative integer is unsigned there, as the
// readers expect).
json experiment_json_test_file(const char* text) { return json::parse(text); }

#define PL_DATA \
  R"({"distribution": "heavy-tailed", "dof": 2.5, "outlier_fraction": 0.05, "outlier_gain": 8.0, "scale": 0.25})"

TEST(ExperimentJson, EveryMatmulSettingIsWrittenBack) {
  const json file = experiment_json_test_file(R"({"experiment": "matmul", "m": 3, "n": 5, "k": 7, "input": "float16",
      "weight": "float8_e4m3fn", "bias": "float32", "output": "bfloat16", "accumulate": "f16:pairwise:8:rtz",
      "rounding": "stochastic", "overflow": "saturate", "input_scaling": {"history": 16, "kind": "per-tensor"},
      "weight_scaling": {"history": 16, "kind": "mx"}, "input_data": )" PL_DATA R"(, "weight_data": )" PL_DATA
                                              R"(, "bias_data": )" PL_DATA
                                              R"(, "seed": 99, "high_precision_reference": true, "threads": 1,
      "comment": "kept out", "input_via": "float32", "weight_via": "bfloat16", "bias_via": "float16",
      "backend": "cuda", "fast_accumulation": true})");
  auto spec = matmul_spec_from_json(file);
  ASSERT_TRUE(spec) << spec.error();
  expect_every_key_kept(file, to_json(*spec));
}

// Operands from files: the shapes and values are the files', so the keys of drawn operands are
// neither read nor written, and the files' keys are kept.
TEST(ExperimentJson, EveryMatmulFileSettingIsWrittenBack) {
  const json file = experiment_json_test_file(R"({"experiment": "linear", "input": "bfloat16", "weight": "bfloat16",
      "bias": "float32", "seed": 3, "input_file": "x.npy", "weight_file": "w.npy", "bias_file": "b.npy", "raw": true})");
  auto spec = matmul_spec_from_json(file);
  ASSERT_TRUE(spec) << spec.error();
  const json written = to_json(*spec);
  expect_every_key_kept(file, written);
  for (const char* drawn : {"m", "n", "k", "input_data", "weight_data", "bias_data"})
    EXPECT_FALSE(written.contains(drawn)) << drawn << " written beside the files: " << written.dump();
}

// What `matmul` refuses in a combination, the file refuses too: "m" with operand files was
// silently ignored, and "raw" without files did nothing.
TEST(ExperimentJson, TheFileRefusesWhatTheCommandLineRefuses) {
  auto error_of = [](const char* text) {
    const auto spec = matmul_spec_from_json(json::parse(text));
    return spec ? std::string("accepted") : spec.error();
  };
  for (const char* key : {"m", "n", "k"})
    EXPECT_EQ(
        error_of((std::string(R"({"input_file": "x.npy", "weight_file": "w.npy", ")") + key + R"(": 4})").c_str()),
        std::string("'") + key +
            "': is for drawn operands: with input_file and weight_file the shapes and values are the files'");
  EXPECT_NE(
      error_of(R"({"input_file": "x.npy", "weight_file": "w.npy", "input_data": "uniform"})").find("'input_data'"),
      std::string::npos);
  EXPECT_EQ(error_of(R"({"raw": true})"),
            "'raw': reads the .npy files of input_file and weight_file as raw codes: give the files");
  EXPECT_EQ(error_of(R"({"bias": "float32", "bias_file": "b.npy", "bias_data": "normal"})"),
            "'bias_data': is for a drawn bias: with bias_file the values are the file's");
  // A rounding or overflow they do not know is refused with every spelling from the tables, in
  // both readers (each typed its own list).
  EXPECT_EQ(error_of(R"({"overflow": "wrap"})"), "'overflow': 'wrap' is not one of default, saturate, no-saturate");
  EXPECT_EQ(error_of(R"({"rounding": "even"})"),
            "'rounding': 'even' is not one of rne, rna, rtz, up, down, stochastic");
  EXPECT_EQ(roundtrip_spec_from_json(json::parse(R"({"experiment": "roundtrip", "overflow": "wrap"})")).error(),
            "'overflow': 'wrap' is not one of default, saturate, no-saturate");
  // The same for the cast experiment (`roundtrip --input` refuses --rows, --cols and --data).
  const auto cast =
      roundtrip_spec_from_json(json::parse(R"({"experiment": "roundtrip", "input_file": "x.npy", "rows": 9})"));
  ASSERT_FALSE(cast);
  EXPECT_EQ(cast.error(), "'rows': is for drawn values: with input_file the shape is the tensor's");
  const auto delayed = roundtrip_spec_from_json(json::parse(
      R"({"experiment": "roundtrip", "dtype": "float8_e4m3fn", "scaling": "delayed", "input_file": "x.npy", "data": "uniform"})"));
  EXPECT_TRUE(delayed) << delayed.error();  // a delayed recipe draws its amax history from the data
}

// A key written "" took its default silently, as --out "" did on the command line.
TEST(ExperimentJson, AnEmptyValueIsNotAMissingOne) {
  for (const char* key : {"accumulate", "framework", "backend", "input_file", "weight_file", "bias_file"}) {
    const auto spec = experiment::matmul_spec_from_json({{"experiment", "matmul"}, {key, ""}});
    ASSERT_FALSE(spec) << key;
    EXPECT_EQ(spec.error(),
              std::string("'").append(key).append("': is empty: leave it out for its default, or give a value"));
  }
}

TEST(ExperimentJson, EveryMlpSettingIsWrittenBack) {
  const json file = experiment_json_test_file(R"({"experiment": "mlp", "layers": 3, "width": 48, "batch": 16,
      "activation": "gelu", "input": "bfloat16", "weight": "bfloat16", "output": "float16",
      "accumulate": "f32:kahan", "rounding": "rtz", "seed": 5, "input_data": )" PL_DATA
                                              R"(, "threads": 1, "backend": "cuda"})");
  auto c = mlp_config_from_json(file);
  ASSERT_TRUE(c) << c.error();
  expect_every_key_kept(file, to_json(*c));
}

TEST(ExperimentJson, EveryDotSettingIsWrittenBack) {
  const json file = experiment_json_test_file(R"({"experiment": "dot", "lengths": [8, 64], "a": "float16",
      "b": "bfloat16", "accumulate": ["f16:sequential", "f32:pairwise:32"], "trials": 3, "seed": 7,
      "backend": "cuda", "comment": "kept out"})");
  auto c = dot_config_from_json(file);
  ASSERT_TRUE(c) << c.error();
  expect_every_key_kept(file, to_json(*c));
}

TEST(ExperimentJson, EveryCastSettingIsWrittenBack) {
  const json file = experiment_json_test_file(R"({"experiment": "roundtrip", "rows": 4, "cols": 6,
      "dtype": "float4_e2m1fn", "scaling": {"history": 16, "kind": "nvfp4"}, "rounding": "up",
      "overflow": "no-saturate", "data": )" PL_DATA R"(, "seed": 11, "backend": "cuda"})");
  auto c = roundtrip_spec_from_json(file);
  ASSERT_TRUE(c) << c.error();
  expect_every_key_kept(file, to_json(*c));
  // From a file: its shape and values, so rows, cols and data are not written beside it (and the
  // seed only where a stochastic rounding reads it).
  const json from_file = experiment_json_test_file(R"({"experiment": "roundtrip", "dtype": "bfloat16",
      "input_file": "x.npy", "rounding": "stochastic", "seed": 2})");
  auto f = roundtrip_spec_from_json(from_file);
  ASSERT_TRUE(f) << f.error();
  const json written = to_json(*f);
  expect_every_key_kept(from_file, written);
  for (const char* drawn : {"rows", "cols", "data"}) EXPECT_FALSE(written.contains(drawn)) << written.dump();
}

// Bug: a round trip's result.json gave "saturated": 7 (the values out of the format's range)
// beside "stats": {"saturated": 0, "max_ulp": 1.1e15}, counted against float64, in which the
// statistics compare the dequantised values. Those float64-sense keys are left out.
TEST(ExperimentJson, ARoundTripsResultCountsSaturationOnce) {
  RoundtripConfig c;
  c.rows = 16, c.cols = 64;
  c.dtype = DType::float16;
  c.data.scale = 1e5;  // past float16's 65504: some overflow
  auto r = run_roundtrip(c);
  ASSERT_TRUE(r) << r.error();
  const json j = to_json(*r);
  EXPECT_GT(j.at("saturated").get<size_t>(), 0u);
  EXPECT_EQ(j.at("stats").at("inf").get<size_t>(), j.at("saturated").get<size_t>());
  for (const char* key : {"saturated", "max_ulp", "mean_ulp"}) EXPECT_FALSE(j.at("stats").contains(key)) << key;
  EXPECT_TRUE(j.at("stats").contains("normwise_rel"));
}

TEST(ExperimentJson, EveryThroughputSettingIsWrittenBack) {
  const json file = experiment_json_test_file(R"({"experiment": "throughput", "dtypes": ["float16", "int8"],
      "baseline": "float16", "n": 64, "repetitions": 3, "datasheet": "H200 SXM"})");
  auto c = throughput_config_from_json(file);
  ASSERT_TRUE(c) << c.error();
  expect_every_key_kept(file, to_json(*c));
}

// Integers past what the setting's C++ type holds are refused, not wrapped: 2^32 + 1 threads
// ran on one thread, 2^32 + 2 layers made two, an amax history of 2^32 + 16 kept sixteen.
// What a reader says of a file's text: "accepted", or its error.
std::string matmul_error(const char* text) {
  auto s = matmul_spec_from_json(json::parse(text));
  return s ? std::string("accepted") : s.error();
}
std::string mlp_error(const char* text) {
  auto c = mlp_config_from_json(json::parse(text));
  return c ? std::string("accepted") : c.error();
}

TEST(ExperimentJson, IntegersThatWouldWrapAreRefusedNamingTheKey) {
  EXPECT_EQ(matmul_error(R"({"experiment": "matmul", "threads": 4294967297})"),
            "'threads': must be an integer from 0 (all cores) to 4096");
  EXPECT_EQ(matmul_error(R"({"experiment": "matmul", "threads": 4097})"),
            "'threads': must be an integer from 0 (all cores) to 4096");
  EXPECT_EQ(matmul_error(R"({"experiment": "matmul", "threads": -1})"),
            "'threads': must be an integer from 0 (all cores) to 4096");
  EXPECT_EQ(matmul_error(R"({"experiment": "matmul", "threads": 4096})"), "accepted");
  EXPECT_EQ(matmul_error(R"({"experiment": "matmul", "input_scaling": {"kind": "delayed", "history": 4294967312}})"),
            "'input_scaling': history must be an integer from 1 to 1024");
  EXPECT_EQ(matmul_error(R"({"experiment": "matmul", "input_scaling": {"kind": "delayed", "history": 0}})"),
            "'input_scaling': history must be an integer from 1 to 1024");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "layers": 4294967298})"), "'layers': must be an integer from 1 to 256");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "layers": 0})"), "'layers': must be an integer from 1 to 256");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "layers": 256, "width": 8, "batch": 2})"), "accepted");
}

// An MLP's weights and biases are drawn with nn.Linear's init and it runs no framework call, so
// these keys would do nothing, and are refused -- but for the data sources that setup.json files
// written by earlier releases hold in every MLP's setup, which say nothing.
TEST(ExperimentJson, MlpKeysWithoutEffectAreRefused) {
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "framework": "torch"})"),
            "'framework' is not an MLP key (an MLP runs its layers' own arithmetic; a linear experiment runs a call "
            "as a framework would)");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "weight_data": "outlier-channels"})"),
            "'weight_data' is not an MLP key (MLP weights and biases are drawn with nn.Linear's init)");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "bias_data": {"distribution": "torch-linear", "scale": 2}})"),
            "'bias_data' is not an MLP key (MLP weights and biases are drawn with nn.Linear's init)");
  EXPECT_EQ(
      mlp_error(R"({"experiment": "mlp", "weight_data": "cauchy"})"),
      "'weight_data': unknown distribution 'cauchy' (normal, uniform, torch-linear, heavy-tailed, outlier-channels)");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "width": 8, "batch": 1, "layers": 1,
      "weight_data": {"distribution": "normal", "scale": 1.0, "dof": 3.0, "outlier_fraction": 0.01, "outlier_gain": 20.0},
      "bias_data": "torch-linear"})"),
            "accepted");
  auto written = to_json(*mlp_config_from_json(json::parse(R"({"experiment": "mlp"})")));
  EXPECT_FALSE(written.contains("weight_data"));
  EXPECT_FALSE(written.contains("bias_data"));
  EXPECT_FALSE(written.contains("framework"));
}

// A size of 0 or past 2^24 is refused naming the key: it was let through the reader and refused
// by the shape check as "every dimension must lie in [1, 2^24]", which named none (an MLP's
// width and batch have no m, n or k the user wrote).
TEST(ExperimentJson, SizesOutOfRangeAreRefusedNamingTheKey) {
  EXPECT_EQ(matmul_error(R"({"m": 0})"), "'m': must be a positive integer");
  EXPECT_EQ(matmul_error(R"({"n": -4})"), "'n': must be a positive integer");
  EXPECT_EQ(matmul_error(R"({"k": 18446744073709551615})"), "'k': must be a positive integer");
  EXPECT_EQ(matmul_error(R"({"k": 16777217})"), "k = 16777217: every dimension must lie in [1, 2^24]");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "width": 0})"), "'width': must be an integer from 1 to 16777216");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "batch": 16777217})"), "'batch': must be an integer from 1 to 16777216");
  EXPECT_EQ(mlp_error(R"({"experiment": "mlp", "width": 8, "batch": 1, "layers": 1})"), "accepted");
}

// One table of kinds: an unknown kind names every kind the table has (an unknown one was read
// as a matrix product and refused as "not matmul or linear"), and each name finds its row.
TEST(ExperimentFile, TheKindTableNamesEveryKindAndRefusesOthers) {
  for (const ExperimentKind& k : experiment_kinds()) {
    ASSERT_EQ(find_experiment_kind(k.name), &k) << k.name;
    EXPECT_FALSE(k.command.empty()) << k.name;
    EXPECT_NE(experiment_kind_names().find(k.name), std::string::npos) << k.name;
  }
  const auto run = run_experiment_file(json{{"experiment", "conv"}});
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error(), "'experiment': unknown kind 'conv' (" + experiment_kind_names() + ")");
  const auto not_text = run_experiment_file(json{{"experiment", 3}});
  ASSERT_FALSE(not_text);
  EXPECT_NE(not_text.error().find("must be a string"), std::string::npos) << not_text.error();
}

// The array round trip was "cast" in files (while `cast` is the scalar codec's command): the old
// spelling is still read, as "roundtrip", with a note; files are written with the new name.
TEST(ExperimentFile, TheOldNameOfTheRoundTripIsReadWithANote) {
  const json old_file = json::parse(R"({"experiment": "cast", "rows": 4, "cols": 8, "dtype": "bfloat16"})");
  EXPECT_EQ(experiment_kind(old_file), "roundtrip");
  EXPECT_NE(kind_alias_note(old_file).find("'cast' is the old name of the experiment 'roundtrip'"), std::string::npos)
      << kind_alias_note(old_file);
  auto spec = roundtrip_spec_from_json(old_file);
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(to_json(*spec)["experiment"], "roundtrip");
  const auto run = run_experiment_file(old_file);
  ASSERT_TRUE(run) << run.error();
  EXPECT_EQ(run->kind, "roundtrip");
  EXPECT_TRUE(run->roundtrip.has_value());
  EXPECT_EQ(kind_alias_note(json::parse(R"({"experiment": "roundtrip"})")), "");
  for (const KindAlias& a : experiment_kind_aliases()) {
    EXPECT_NE(find_experiment_kind(a.name), nullptr) << a.name;
    EXPECT_EQ(find_experiment_kind(a.old_name), nullptr) << a.old_name;  // the table holds one name each
  }
}

// Bug: result.json wrote numbers that were no measurement: a device time of 0.0 for a product on
// the CPU, an amax of 0.0 for recipes that take none (and for an absent bias), and an integer
// operand's or an int32 accumulator's "unit roundoff" (0.5, its placeholder float format's).
// Each is null, so no reader takes it for a measurement.
TEST(ExperimentJson, AMatmulResultWritesNullWhereThereIsNoFigure) {
  MatmulConfig c;
  c.m = c.n = 4, c.k = 32;
  c.input = c.weight = DType::int8;
  c.input_scaling.kind = ScalingKind::PerTensor;
  c.weight_scaling.kind = ScalingKind::PerChannel;
  c.accumulate = {AccumKind::Int32, DType::int32};
  const auto r = run_matmul(c);
  ASSERT_TRUE(r) << r.error();
  const json j = to_json(*r);
  EXPECT_TRUE(j["product_device_seconds"].is_null()) << j["product_device_seconds"];
  EXPECT_TRUE(j["operands"]["input"]["amax"].is_number());  // per-tensor: the amax it scaled by
  EXPECT_TRUE(j["operands"]["weight"]["amax"].is_null());   // per-channel: one a row, none here
  EXPECT_TRUE(j["operands"]["bias"].is_null());             // no bias
  EXPECT_TRUE(j["unit_roundoff"]["input"].is_null());
  EXPECT_TRUE(j["unit_roundoff"]["accumulator"].is_null());
  EXPECT_EQ(j["unit_roundoff"]["output"], std::ldexp(1.0, -24));
}

}  // namespace
}  // namespace pl::experiment
