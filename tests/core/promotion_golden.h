// Reads a golden promotion file written by tests/data/promotion/gen_*.py and compares an
// engine with it cell by cell. The layout: "dtypes" (the framework's names, the order
// every table indexes), "outcomes" (each distinct outcome once: a dtype name, "object",
// or {"error", "message"}) and "tables" (name -> nested lists of outcome indices).
#pragma once

#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/promote/outcome.h"
#include "core/promote/py_value.h"

namespace pl::promote::testing {

// A table's name, "OP:AKIND,BKIND" or "OP:tensor,tensor,bias", split.
struct TableKey {
  std::string op;
  std::vector<std::string> kinds;  // "tensor", "zerodim", "scalar", "pyvalue", "bias"
};

inline TableKey parse_table_key(const std::string& key) {
  const auto colon = key.find(':');
  TableKey k{key.substr(0, colon), {}};
  if (colon == std::string::npos) return k;
  std::stringstream ss(key.substr(colon + 1));
  for (std::string part; std::getline(ss, part, ',');) k.kinds.push_back(part);
  return k;
}

// A Python scalar written as a literal ("300", "2.5+1j"), as an operand whose dtype names its
// Python type's category (int64, float64, complex128, bool).
inline Operand python_scalar(const std::string& literal) {
  const auto pv = parse_py_value(literal);
  EXPECT_TRUE(pv) << pv.error();
  const PyType t = pv ? pv->type : PyType::Int;
  const DType cat = t == PyType::Bool    ? DType::bool_
                    : t == PyType::Int   ? DType::int64
                    : t == PyType::Float ? DType::float64
                                         : DType::complex128;
  return {cat, OperandKind::Scalar, literal};
}

class GoldenFile {
 public:
  using NameOf = std::function<std::string(DType)>;
  using FromName = std::function<std::optional<DType>(const std::string&)>;

  GoldenFile(const std::string& file, NameOf name_of, FromName from_name) : name_of_(std::move(name_of)) {
    // A bare name is a golden file of tests/data/promotion; a path is taken as it is.
    const std::string path = file.starts_with('/') ? file : std::string(PL_PROMOTION_DIR) + "/" + file;
    std::ifstream in(path);
    if (!in) {
      ADD_FAILURE() << "missing " << path;
      return;
    }
    json_ = nlohmann::json::parse(in);
    for (const auto& n : json_["dtypes"]) {
      auto t = from_name(n.get<std::string>());
      EXPECT_TRUE(t) << "unknown dtype " << n;
      dtypes_.push_back(t.value_or(DType::float32));
    }
  }

  const nlohmann::json& json() const { return json_; }
  const std::vector<DType>& dtypes() const { return dtypes_; }

  std::string text_of(const nlohmann::json& outcome) const {
    return outcome.is_string() ? outcome.get<std::string>()
                               : outcome["error"].get<std::string>() + ": " + outcome["message"].get<std::string>();
  }

  std::string text_of(const Outcome& o) const {
    if (o.ok()) return name_of_(*o.result);
    if (!o.other_result.empty()) return o.other_result;
    return o.error_type + ": " + o.message;
  }

  // Compares one table cell by cell; `axes` gives each axis' labels count (empty: the
  // dtypes). Reports every differing cell up to a limit. Returns the number of cells.
  size_t check(const std::string& table, const std::function<Outcome(const std::vector<size_t>&)>& engine,
               std::vector<size_t> axis_sizes = {}) const {
    return check_node(table, json_["tables"][table], engine, std::move(axis_sizes));
  }

  // The same for a table found elsewhere in the file (JAX keeps one set per configuration).
  size_t check_node(const std::string& table, const nlohmann::json& cells,
                    const std::function<Outcome(const std::vector<size_t>&)>& engine,
                    std::vector<size_t> axis_sizes = {}) const {
    const nlohmann::json& outcomes = json_["outcomes"];
    size_t count = 0, bad = 0;
    std::vector<size_t> at;
    auto walk = [&](auto&& self, const nlohmann::json& node) -> void {
      if (!node.is_array()) {
        ++count;
        const std::string want = text_of(outcomes.at(node.get<size_t>()));
        const std::string got = text_of(engine(at));
        if (got != want && ++bad <= 8) {
          std::string cell;
          for (size_t i : at) cell.append(cell.empty() ? "" : ",").append(std::to_string(i));
          ADD_FAILURE() << table << " [" << cell << "]\n  want: " << want << "\n  got:  " << got;
        }
        return;
      }
      const size_t axis = at.size();
      const size_t want_size = axis < axis_sizes.size() ? axis_sizes[axis] : dtypes_.size();
      EXPECT_EQ(node.size(), want_size) << table << " axis " << axis;
      for (size_t i = 0; i < node.size() && i < want_size; ++i) {
        at.push_back(i);
        self(self, node[i]);
        at.pop_back();
      }
    };
    walk(walk, cells);
    EXPECT_EQ(bad, 0u) << table << ": " << bad << " of " << count << " cells differ";
    return count;
  }

 private:
  nlohmann::json json_;
  std::vector<DType> dtypes_;
  NameOf name_of_;
};

}  // namespace pl::promote::testing
