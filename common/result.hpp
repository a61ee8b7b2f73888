#pragma once
// Recoverable errors travel as values (Result<T>); only FatalError is thrown, and only
// main() catches it.
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace topolab {

struct Error {
  std::string message;

  // Prefixes context, e.g. Error{"bad list"}.context("/sys/.../cpulist").
  Error context(const std::string& where) const { return Error{where + ": " + message}; }
};

// Thrown for unrecoverable failures; main() prints what() and exits non-zero.
class FatalError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return checked(); }
  const T& value() const& { return const_cast<Result*>(this)->checked(); }
  T&& value() && { return std::move(checked()); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }
  T value_or(T fallback) const { return ok() ? std::get<0>(state_) : fallback; }

 private:
  T& checked() {
    if (!ok()) throw FatalError("unchecked error: " + error().message);
    return std::get<0>(state_);
  }
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }

}  // namespace topolab

// Propagates an error from an expression returning Result<...>.
#define TL_TRY(expr)                                    \
  do {                                                  \
    auto&& tl_try_result_ = (expr);                     \
    if (!tl_try_result_) return tl_try_result_.error(); \
  } while (0)
