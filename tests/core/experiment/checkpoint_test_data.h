// The synthetic checkpoint the scan tests share (tests/data/checkpoint/gen_checkpoint.py): its
// path, the figures NumPy computed for it, and a scan of it.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/experiment/scan/checkpoint_scan.h"

namespace pl::experiment {

inline const std::string kCheckpointDir = PL_CHECKPOINT_DIR;
inline const std::string kSharded = kCheckpointDir + "/sharded";

inline nlohmann::json expected() {
  std::ifstream in(kCheckpointDir + "/expected.json");
  EXPECT_TRUE(in) << "missing tests/data/checkpoint/expected.json";
  return nlohmann::json::parse(in);
}

inline ScanResult scan(const ScanOptions& o) {
  auto c = io::open_checkpoint(kSharded);
  EXPECT_TRUE(c) << c.error();
  auto r = scan_checkpoint(*c, o);
  EXPECT_TRUE(r) << r.error();
  return r ? *r : ScanResult{};
}

}  // namespace pl::experiment
