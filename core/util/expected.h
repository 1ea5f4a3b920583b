// Errors as values, the one convention of the code base: a function that can fail
// returns Expected<T> (a T or a message a user can act on), or Status when there
// is no value to return (a check, a write). No empty-string-means-OK results and
// no string out-parameters. (C++20 has no std::expected; this is the small part
// we use.)
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace pl {

struct Error {
  std::string message;
  // The work failed (a file that could be read a moment ago cannot), not what it was asked to do:
  // the command line exits 1 for it instead of 2. Set where a caller needs the difference.
  bool environment = false;
};

template <typename T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  // The value, or `fallback` when there is none (the error dropped: for callers to whom a
  // failure only means "take the other way").
  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }
  template <typename U>
  T value_or(U&& fallback) && {
    return ok() ? std::move(std::get<0>(v_)) : static_cast<T>(std::forward<U>(fallback));
  }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }
  bool environment_failure() const { return !ok() && std::get<1>(v_).environment; }

 private:
  std::variant<T, Error> v_;
};

// Nothing, or an error: `return {};` succeeds, `return Error{"why"};` fails.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error.message)), failed_(true), environment_(error.environment) {}

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  // The message; "" when ok.
  const std::string& error() const { return error_; }
  bool environment_failure() const { return failed_ && environment_; }

 private:
  std::string error_;
  bool failed_ = false;
  bool environment_ = false;
};

}  // namespace pl
