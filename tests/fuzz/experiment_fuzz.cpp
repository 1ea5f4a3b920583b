// libFuzzer target: any bytes as an experiment file (docs/experiment-json.md) and as a scenario
// file. Each reader must return a value or an error; and what a reader accepts must survive the
// trip the app makes with it -- written back as setup.json, read again, written again, the same
// JSON -- or a re-run would not be the run it claims to repeat. A broken trip aborts with both
// texts. (A setting the writer drops every time keeps that fixed point: tests/core/
// experiment/experiment_json_test.cpp looks for those.) Nothing is run: the readers alone.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "core/experiment/spec/matmul_json.h"
#include "core/experiment/spec/sweep_json.h"
#include "core/experiment/spec/train_json.h"
#include "core/experiment/throughput_run.h"
#include "core/io/file_read.h"
#include "core/scenario/scenario.h"
#include "tests/fuzz/file_input.h"

namespace {

using nlohmann::json;

// read(j) accepted: read(write(read(j))) must be accepted and write the same JSON.
template <class Read>
void check_trip(const json& j, const char* kind, Read read) {
  auto first = read(j);
  if (!first) return;
  const json written = to_json(*first);
  auto second = read(written);
  if (!second) {
    std::fprintf(stderr, "%s: the reader refuses what it wrote: %s\n  input:   %s\n  written: %s\n", kind,
                 second.error().c_str(), j.dump().c_str(), written.dump().c_str());
    std::abort();
  }
  const json again = to_json(*second);
  if (again != written) {
    std::fprintf(stderr, "%s: written twice, two files:\n  input:  %s\n  first:  %s\n  second: %s\n", kind,
                 j.dump().c_str(), written.dump().c_str(), again.dump().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Through the reader the command line and the window use: nesting and repeated keys checked.
  const auto parsed = pl::io::parse_json_strictly(std::string_view(reinterpret_cast<const char*>(data), size), "input");
  // And through the file reader `run` and the window's --setup call, which must agree.
  if (const std::string path = pl::fuzz::as_file(data, size, ".json"); !path.empty()) {
    const auto from_file = pl::io::read_json_file(path);
    if (bool(from_file) != bool(parsed) || (parsed && *from_file != *parsed)) {
      std::fprintf(stderr, "read_json_file and parse_json_strictly disagree on one input\n");
      std::abort();
    }
  }
  if (!parsed) return 0;
  const json& j = *parsed;
  using namespace pl::experiment;
  check_trip(j, "matmul", [](const json& x) { return matmul_spec_from_json(x); });
  check_trip(j, "mlp", [](const json& x) { return mlp_config_from_json(x); });
  check_trip(j, "dot", [](const json& x) { return dot_config_from_json(x); });
  check_trip(j, "roundtrip", [](const json& x) { return roundtrip_spec_from_json(x); });
  check_trip(j, "throughput", [](const json& x) { return throughput_config_from_json(x); });
  check_trip(j, "train", [](const json& x) { return train_config_from_json(x); });
  (void)pl::scenario::scenario_from_json(j, "fuzz");
  return 0;
}
