#include "core/experiment/throughput_run.h"

#include <algorithm>

#include "core/backend/backend.h"
#include "core/backend/peak_rates.h"
#include "core/experiment/spec/json_reader.h"
#include "core/experiment/throughput.h"
#include "core/util/join.h"
#include "core/util/median.h"

namespace pl::experiment {

using nlohmann::json;
using namespace json_detail;

Status check(const ThroughputConfig& c) {
  if (c.dtypes.empty()) return Error{"'dtypes': name at least one dtype"};
  for (size_t i = 0; i < c.dtypes.size(); ++i) {
    if (auto a = default_product_accumulation(c.dtypes[i]); !a) return Error{"'dtypes': " + a.error()};
    if (std::find(c.dtypes.begin(), c.dtypes.begin() + i, c.dtypes[i]) != c.dtypes.begin() + i)
      return Error{"'dtypes': " + std::string(name(c.dtypes[i])) + " is listed twice"};
  }
  if (std::find(c.dtypes.begin(), c.dtypes.end(), c.baseline) == c.dtypes.end())
    return Error{"'baseline': " + std::string(name(c.baseline)) + " is not among the dtypes"};
  const size_t largest = largest_product_bench(c.backend);  // a GPU's memory takes 16384^2
  if (c.n < 1 || c.n > largest) return Error{"'n': must lie in [1, " + std::to_string(largest) + "]"};
  if (c.repetitions < 1 || c.repetitions > 1000) return Error{"'repetitions': must lie in [1, 1000]"};
  if (!c.datasheet.empty() && !peak::find_part(c.datasheet)) {
    const std::string known = join(peak::parts(), ", ", [](const peak::Part& p) { return std::string(p.name); });
    return Error{"'datasheet': no part '" + c.datasheet + "' in the peak table (" + known + ", or \"\")"};
  }
  return {};
}

const ThroughputRow* ThroughputResult::row(DType t) const {
  for (const auto& r : rows)
    if (r.dtype == t) return &r;
  return nullptr;
}

Expected<ThroughputConfig> throughput_config_from_json(const json& j) {
  if (!j.is_object()) return Error{"an experiment is a JSON object"};
  if (auto st =
          unknown_key(j, {"experiment", "dtypes", "baseline", "n", "repetitions", "datasheet", "comment", "backend"});
      !st)
    return Error{st.error()};
  ThroughputConfig c;
  Reader r{j, {}};
  std::string kind = "throughput";
  r.string("experiment", &kind);
  if (kind != "throughput") r.fail("experiment", "'" + kind + "' is not throughput");
  if (j.contains("dtypes")) {
    c.dtypes.clear();
    if (!j["dtypes"].is_array()) r.fail("dtypes", "must be a list of dtype names");
    else
      for (const auto& v : j["dtypes"]) {
        auto t = v.is_string() ? parse_dtype(v.get<std::string>()) : Expected<DType>(Error{"must be a dtype name"});
        if (t) c.dtypes.push_back(*t);
        else r.fail("dtypes", t.error());
      }
  }
  r.dtype("baseline", &c.baseline);
  r.size("n", &c.n);
  r.integer("repetitions", 1, 1000, &c.repetitions);
  r.string("datasheet", &c.datasheet);
  r.backend(&c.backend);
  if (!r.error.empty()) return Error{r.error};
  if (auto st = check(c); !st) return Error{st.error()};
  return c;
}

json to_json(const ThroughputConfig& c) {
  json dtypes = json::array();
  for (DType t : c.dtypes) dtypes.push_back(name(t));
  json j = {{"experiment", "throughput"},   {"dtypes", dtypes},        {"baseline", name(c.baseline)}, {"n", c.n},
            {"repetitions", c.repetitions}, {"datasheet", c.datasheet}};
  if (c.backend != BackendChoice::Cpu) j["backend"] = backend_choice_name(c.backend);
  return j;
}

json to_json(const ThroughputResult& r) {
  json rows = json::array();
  for (const auto& x : r.rows)
    rows.push_back({{"dtype", name(x.dtype)},
                    {"method", x.method},
                    {"emulated", x.emulated},
                    {"seconds", x.seconds},
                    {"median_seconds", x.median_seconds},
                    {"gflops", x.gflops},
                    {"speedup", x.speedup}});
  json out{{"experiment", "throughput"},
           {"setup", to_json(r.config)},
           {"device", r.device},
           {"runtime", r.runtime},
           {"rows", rows}};
  if (!r.datasheet.empty()) {
    json sheet = json::array();
    for (const auto& d : r.datasheet) {
      json row{{"dtype", name(d.dtype)}, {"supported", d.supported}};
      if (d.supported) row.update({{"unit", d.unit}, {"tflops", d.tflops}, {"speedup", d.speedup}});
      else row["why_not"] = d.why_not;
      sheet.push_back(row);
    }
    out["datasheet"] = {{"part", r.config.datasheet},
                        {"architecture", r.datasheet_architecture},
                        {"source", r.datasheet_source},
                        {"rows", sheet}};
  }
  return out;
}

namespace {

std::vector<DatasheetRow> datasheet_rows(const ThroughputConfig& c, const peak::Part& p) {
  std::vector<DatasheetRow> out;
  for (DType t : c.dtypes) {
    DatasheetRow d;
    d.dtype = t;
    // Both fail, naming the dtype, when the part cannot run it (speedup: or the baseline).
    const auto rate = peak::fastest_rate(p, t);
    if (auto s = rate ? peak::speedup(p, t, c.baseline) : Expected<double>(Error{rate.error()})) {
      d.supported = true;
      d.unit = peak::unit_name(rate->unit);
      d.tflops = peak::published_value(*rate);
      d.speedup = *s;
    } else {
      d.why_not = s.error();
    }
    out.push_back(d);
  }
  return out;
}

// The medians, speed-ups and datasheet rows of rows whose seconds are filled in.
void finish(ThroughputResult& r) {
  for (auto& row : r.rows) {
    // The median of the runs' rates, as the window's table takes it, and the time of that run:
    // with an even number of runs the median time is another run's (the slower of the middle
    // two), and a speed-up from it disagreed with the table's.
    std::vector<double> rates;
    for (double s : row.seconds) rates.push_back(product_gflops(r.config.n, s));
    row.gflops = median(std::move(rates));
    row.median_seconds = row.gflops > 0 ? product_seconds(r.config.n, row.gflops) : median(row.seconds);
  }
  const ThroughputRow* base = r.row(r.config.baseline);
  for (auto& row : r.rows) row.speedup = base && base->gflops > 0 ? row.gflops / base->gflops : 0;
  if (const peak::Part* p = r.config.datasheet.empty() ? nullptr : peak::find_part(r.config.datasheet)) {
    r.config.datasheet = std::string(p->name);
    r.datasheet_source = std::string(p->source);
    r.datasheet_architecture = std::string(p->architecture);
    r.datasheet = datasheet_rows(r.config, *p);
  }
}

}  // namespace

ThroughputResult summarise_history(const ThroughputHistory& h, size_t n, const std::string& datasheet,
                                   const std::string& device) {
  ThroughputResult r;
  r.config.dtypes = h.dtypes();
  r.config.n = n;
  r.config.datasheet = datasheet;
  const bool f32 = std::find(r.config.dtypes.begin(), r.config.dtypes.end(), DType::float32) != r.config.dtypes.end();
  r.config.baseline = f32 || r.config.dtypes.empty() ? DType::float32 : r.config.dtypes.front();
  r.device = device;
  size_t fewest = 0;
  for (DType t : r.config.dtypes) {
    ThroughputRow row{t, product_method(t), product_emulated(t), {}, 0, 0, 0};
    for (const auto& s : h.of(t))
      if (s.gflops > 0) row.seconds.push_back(product_seconds(n, s.gflops));
    fewest = r.rows.empty() ? row.seconds.size() : std::min(fewest, row.seconds.size());
    r.rows.push_back(std::move(row));
  }
  r.config.repetitions = static_cast<int>(fewest);
  finish(r);
  return r;
}

Expected<ThroughputResult> run_throughput(const ThroughputConfig& c, const std::function<void(double)>& progress,
                                          const std::atomic<bool>* cancel) {
  if (auto st = check(c); !st) return Error{st.error()};
  ThroughputResult r;
  r.config = c;
  const ThroughputDevice where = throughput_device(c.backend);
  r.device = where.info.backend + ": " + where.info.name;
  r.gpu = where.gpu;
  r.runtime = where.info.runtime;
  // Steps: prepare + warm up each dtype, then every timed product.
  const double steps = double(c.dtypes.size()) * (1 + c.repetitions);
  double done = 0;
  auto step = [&] {
    if (progress) progress(++done / steps);
    return !(cancel && cancel->load());
  };
  std::vector<ProductBench> benches;
  for (DType t : c.dtypes) {
    auto b = prepare_product_bench(t, c.n, c.backend);
    if (!b) return Error{std::string(name(t)) + ": " + b.error()};
    if (auto w = time_product(*b, cancel); !w) return Error{w.error()};
    r.rows.push_back({t, b->method, b->emulated, {}, 0, 0, 0});
    benches.push_back(std::move(b).value());
    if (!step()) return Error{"cancelled"};
  }
  for (int rep = 0; rep < c.repetitions; ++rep)
    for (size_t i = 0; i < benches.size(); ++i) {
      auto s = time_product(benches[i], cancel);
      if (!s) return Error{s.error()};
      r.rows[i].seconds.push_back(*s);
      if (!step()) return Error{"cancelled"};
    }
  finish(r);
  return r;
}

}  // namespace pl::experiment
