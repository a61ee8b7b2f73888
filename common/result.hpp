#pragma once
// Recoverable errors travel as values (Result<T>); only FatalError is thrown, and only
// main() catches it (a bug: an unchecked Result, exit 70).
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace topolab {

// What kind of failure an Error is. Callers branch on it (not-found vs failed) and the CLI maps
// it to an exit code (common/exit_code.hpp): every kind but `internal` is the user's or the
// machine's (exit 1); `internal` is a bug (exit 70).
enum class ErrorKind {
  failed,        // an operation failed; no finer kind known (the default)
  input,         // refused input: a file, an option, a value out of range
  not_found,     // the thing asked for does not exist (a file, a domain, a row)
  does_not_fit,  // the request is valid but this host cannot hold it (CPUs, memory, nodes)
  libvirt,       // a libvirt call failed
  io,            // reading or writing a file, a socket, a process failed
  guest,         // the guest (agent) failed or answered wrongly
  internal,      // a bug: an invariant of ours does not hold
};

constexpr std::string_view to_string(ErrorKind k) {
  switch (k) {
    case ErrorKind::failed:
      return "failed";
    case ErrorKind::input:
      return "input";
    case ErrorKind::not_found:
      return "not-found";
    case ErrorKind::does_not_fit:
      return "does-not-fit";
    case ErrorKind::libvirt:
      return "libvirt";
    case ErrorKind::io:
      return "io";
    case ErrorKind::guest:
      return "guest";
    case ErrorKind::internal:
      return "internal";
  }
  return "failed";
}

struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::failed;

  // Prefixes context, keeping the kind, e.g. Error{"bad list"}.context("/sys/.../cpulist").
  Error context(const std::string& where) const { return Error{where + ": " + message, kind}; }
  bool is(ErrorKind k) const { return kind == k; }
};

// Thrown for unrecoverable failures (bugs); main() prints what() and exits 70.
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

// Every error names its kind (issue 28): there is no make_error without one, so a new error
// source cannot silently exit 1. Error{message} (kind failed) stays for code that rebuilds one.
inline Error make_error(ErrorKind kind, std::string message) {
  return Error{std::move(message), kind};
}

}  // namespace topolab

#define TL_CONCAT_INNER_(a, b) a##b
#define TL_CONCAT_(a, b) TL_CONCAT_INNER_(a, b)

// Propagates an error from an expression returning Result<...>.
#define TL_TRY(expr)                                    \
  do {                                                  \
    auto&& tl_try_result_ = (expr);                     \
    if (!tl_try_result_) return tl_try_result_.error(); \
  } while (0)

// The same, prefixing context to the propagated error (Error::context).
#define TL_TRY_CTX(expr, where)                                        \
  do {                                                                 \
    auto&& tl_try_result_ = (expr);                                    \
    if (!tl_try_result_) return tl_try_result_.error().context(where); \
  } while (0)

// Declares or assigns `lhs` from the value of a Result<T> expression, or propagates its error:
//   TL_ASSIGN(auto text, read_file(path));   TL_ASSIGN(const CpuList list, parse(text));
// Expands to several statements: not for the single-statement body of an unbraced if/for.
#define TL_ASSIGN(lhs, expr) TL_ASSIGN_IMPL_(TL_CONCAT_(tl_assign_, __LINE__), lhs, expr, )
// The same, prefixing context: TL_ASSIGN_CTX(auto list, parse(text), path.string()).
#define TL_ASSIGN_CTX(lhs, expr, where) \
  TL_ASSIGN_IMPL_(TL_CONCAT_(tl_assign_, __LINE__), lhs, expr, .context(where))
#define TL_ASSIGN_IMPL_(tmp, lhs, expr, ctx) \
  auto tmp = (expr);                         \
  if (!tmp) return tmp.error() ctx;          \
  lhs = std::move(tmp).value()
