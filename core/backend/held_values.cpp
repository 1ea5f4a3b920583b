#include "core/backend/held_values.h"

#include <atomic>
#include <utility>

namespace pl {
namespace {

// A vector of its own (mutable only through take_values, when no one else holds it).
class OwnedValues final : public HeldValues {
 public:
  explicit OwnedValues(std::vector<double> v) : HeldValues(v.size(), 0), values_(std::move(v)) {}
  Expected<std::span<const double>> host() const override { return std::span<const double>(values_); }
  std::vector<double> release() { return std::move(values_); }

 private:
  std::vector<double> values_;
};

class SharedHostValues final : public HeldValues {
 public:
  explicit SharedHostValues(SharedValues v) : HeldValues(v ? v->size() : 0, 0), values_(std::move(v)) {}
  Expected<std::span<const double>> host() const override {
    return values_ ? std::span<const double>(*values_) : std::span<const double>();
  }

 private:
  SharedValues values_;
};

class ViewValues final : public HeldValues {
 public:
  ViewValues(std::span<const double> v, std::shared_ptr<const void> owner)
      : HeldValues(v.size(), 0), view_(v), owner_(std::move(owner)) {}
  Expected<std::span<const double>> host() const override { return view_; }

 private:
  std::span<const double> view_;
  std::shared_ptr<const void> owner_;
};

}  // namespace

uint64_t new_holder_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

Held hold_on_host(std::vector<double> values) { return std::make_shared<OwnedValues>(std::move(values)); }
Held hold_on_host(SharedValues values) { return std::make_shared<SharedHostValues>(std::move(values)); }
Held hold_view(std::span<const double> values, std::shared_ptr<const void> owner) {
  return std::make_shared<ViewValues>(values, std::move(owner));
}

Expected<std::vector<double>> take_values(Held held) {
  if (!held) return std::vector<double>();
  if (held.use_count() == 1)
    if (const auto* owned = dynamic_cast<const OwnedValues*>(held.get()))
      // The only reference, to a vector made for it: no one can see the move.
      return const_cast<OwnedValues*>(owned)->release();
  auto v = held->host();
  if (!v) return Error{v.error()};
  return std::vector<double>(v->begin(), v->end());
}

}  // namespace pl
