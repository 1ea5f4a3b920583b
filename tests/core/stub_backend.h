// A backend for tests that stand in for a device: everything but the products answers "not
// here"; a test derives and gives it the products it needs.
#pragma once

#include <string>
#include <utility>

#include "core/backend/backend.h"

namespace pl::testing_support {

class StubBackend : public Backend {
 public:
  StubBackend(std::string name, std::string device) : name_(std::move(name)), device_(std::move(device)) {}
  std::string name() const override { return name_; }
  DeviceInfo device_info() const override { return DeviceInfo{name_, device_, "", 1, 1, "", "", ""}; }
  Support supports_roundtrip(const FloatFormat&, const CastOptions&) const override { return {false, "stub"}; }
  Status roundtrip_f32(const FloatFormat&, const CastOptions&, const float*, float*, size_t) override {
    return Error{"stub"};
  }
  Status roundtrip_f64(const FloatFormat&, const CastOptions&, std::span<double>) override { return Error{"stub"}; }
  Expected<ConvertTiming> time_roundtrip_f32(const FloatFormat&, const CastOptions&, size_t, int) override {
    return Error{"stub"};
  }
  Support supports_product(const ProductSpec&) const override { return {true, ""}; }
  Expected<ProductTiming> time_product(const ProductSpec&, std::span<const double>, std::span<const double>, int,
                                       const std::atomic<bool>*) override {
    return Error{"stub"};
  }

 private:
  std::string name_, device_;
};

}  // namespace pl::testing_support
