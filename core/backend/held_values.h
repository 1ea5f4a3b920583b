// A float64 array of an experiment, held where the backend that made it computes: the product,
// its accumulated and rounded outputs and the references stay in a GPU's memory between the
// steps of a run, and only what someone reads comes back (docs/device-residency.md). On the
// CPU it is a host vector. Immutable once made, so a backend may key copies by its identity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/util/expected.h"

namespace pl {

// Values that no one changes once made, shared by everyone who reads them.
using SharedValues = std::shared_ptr<const std::vector<double>>;

class HeldValues {
 public:
  virtual ~HeldValues() = default;
  HeldValues(const HeldValues&) = delete;
  HeldValues& operator=(const HeldValues&) = delete;

  size_t size() const { return size_; }
  // The backend object holding the values in its device's memory (new_holder_id()); 0 when they
  // are in host memory. A backend reads its own arrays where they are and anything else through
  // host().
  uint64_t holder() const { return holder_; }
  // The values in host memory. A device's array is downloaded at the first call (from any thread,
  // once) and kept; an error value when that download fails.
  virtual Expected<std::span<const double>> host() const = 0;

 protected:
  HeldValues(size_t size, uint64_t holder) : size_(size), holder_(holder) {}

 private:
  size_t size_;
  uint64_t holder_;
};

using Held = std::shared_ptr<const HeldValues>;

// A number no other holder has (never 0): each backend object that holds arrays takes one.
uint64_t new_holder_id();

// Host arrays as held values: a vector of its own, a shared one, or a view into an array that
// `owner` keeps unchanged while it lives (null owner: the caller keeps it alive for as long as
// the held value is used).
Held hold_on_host(std::vector<double> values);
Held hold_on_host(SharedValues values);
Held hold_view(std::span<const double> values, std::shared_ptr<const void> owner = nullptr);

// The values as a vector the caller may change: moved out when `held` was the only reference to
// a host vector of its own (a product's fresh result), else copied from host().
Expected<std::vector<double>> take_values(Held held);

}  // namespace pl
