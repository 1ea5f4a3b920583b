// A stand-in GPU for the residency tests (docs/device-residency.md): it keeps the arrays it makes
// in memory of its own, as a device would, and counts what crosses between it and the host --
// operand uploads for a product, host arrays it is handed to work on, and every array read back
// through host(). Its arithmetic is the CPU's own, so its results are the CPU's bit for bit.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/accumulate/gemm.h"
#include "core/accumulate/output_steps.h"
#include "core/analysis/pooled_difference.h"
#include "core/backend/backend.h"
#include "core/dtype/codec.h"
#include "tests/core/stub_backend.h"

namespace pl::testing_support {

struct Traffic {
  std::atomic<int> operand_uploads{0};  // a product's operands sent (each operand once)
  std::atomic<int> array_uploads{0};    // host arrays sent to work on
  std::atomic<int> downloads{0};        // device arrays read back by host()
  std::atomic<bool> lost{false};        // set: no array can be read back, as after a device is lost
  void reset() { operand_uploads = 0, array_uploads = 0, downloads = 0; }
};

// An array in the stub's "device memory". host() counts one download, the first time.
class StubArray final : public HeldValues {
 public:
  StubArray(std::vector<double> v, uint64_t holder, std::shared_ptr<Traffic> traffic)
      : HeldValues(v.size(), holder), device_(std::move(v)), traffic_(std::move(traffic)) {}
  Expected<std::span<const double>> host() const override {
    if (traffic_->lost) return Error{"the device was lost"};
    if (!read_.exchange(true)) ++traffic_->downloads;
    return std::span<const double>(device_);
  }
  const std::vector<double>& on_device() const { return device_; }

 private:
  std::vector<double> device_;
  std::shared_ptr<Traffic> traffic_;
  mutable std::atomic<bool> read_{false};
};

class StubDevice : public StubBackend {
 public:
  explicit StubDevice(std::shared_ptr<Traffic> traffic)
      : StubBackend("cuda", "Stub GPU"), traffic_(std::move(traffic)), id_(new_holder_id()) {}
  uint64_t holder() const override { return id_; }

  Expected<ProductRun> product(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                               const ProductControl& c) override {
    auto r = experiment::gemm(s.shape, a, b, s.accumulate, c.progress, c.cancel, s.stream_offset);
    if (!r) return Error{r.error()};
    return ProductRun{std::move(r).value(), "stub kernel", 0.125};
  }
  // The operands are uploaded unless the call names the owners of the pair kept before.
  Expected<HeldRun> product_held(const ProductSpec& s, std::span<const double> a, std::span<const double> b,
                                 const ProductControl& c) override {
    const bool kept = c.a_owner && c.b_owner && kept_a_.lock() == c.a_owner && kept_b_.lock() == c.b_owner;
    if (!kept) {
      traffic_->operand_uploads += 2;
      if (c.a_owner && c.b_owner) kept_a_ = c.a_owner, kept_b_ = c.b_owner;
    }
    auto run = product(s, a, b, c);
    if (!run) return Error{run.error()};
    return HeldRun{array(std::move(run->c)), run->method, run->device_seconds};
  }
  Expected<HeldOutput> finish_output(const experiment::OutputSteps& steps, Held sums) override {
    std::vector<double> v = read(sums);
    HeldOutput out;
    if (steps.has_epilogue()) {
      experiment::apply_epilogue(steps, v);
      out.accumulated = array(v);
    } else {
      out.accumulated = mine(sums) ? sums : array(v);
    }
    round_each(info(steps.output).format, v, v, steps.cast);
    out.result = array(std::move(v));
    return out;
  }
  Expected<Held> add_to_rows(const Held& x, std::span<const double> row) override {
    std::vector<double> v = read(x);
    for (size_t i = 0; i < v.size(); ++i) v[i] += row[i % row.size()];
    return array(std::move(v));
  }
  Expected<std::vector<experiment::ErrorStats>> error_stats_held(std::span<const HeldComparison> cs, DType output,
                                                                 double rel_floor) override {
    std::vector<std::vector<double>> copies;  // (each read once, whatever its owner)
    std::vector<experiment::Comparison> list;
    copies.reserve(2 * cs.size());
    for (const HeldComparison& c : cs) {
      copies.push_back(read(c.result));
      copies.push_back(read(c.reference));
      list.push_back({copies[copies.size() - 2], copies.back(), c.histograms, {}, c.bound, c.bound_check});
    }
    return experiment::error_stats(list, output, rel_floor);
  }
  Expected<experiment::PooledDifference> pooled_difference(const Held& a, const Held& b, size_t rows, size_t cols,
                                                           size_t limit) override {
    return experiment::pooled_difference(read(a), read(b), rows, cols, limit);
  }

 private:
  bool mine(const Held& h) const { return h->holder() == id_; }
  Held array(std::vector<double> v) const { return std::make_shared<StubArray>(std::move(v), id_, traffic_); }
  // The values of an array on the device: its own as they are; a host array uploaded (counted).
  std::vector<double> read(const Held& h) const {
    if (mine(h)) return static_cast<const StubArray&>(*h).on_device();
    ++traffic_->array_uploads;
    auto v = h->host();
    return v ? std::vector<double>(v->begin(), v->end()) : std::vector<double>();
  }

  std::shared_ptr<Traffic> traffic_;
  uint64_t id_;
  std::weak_ptr<const void> kept_a_, kept_b_;
};

}  // namespace pl::testing_support
