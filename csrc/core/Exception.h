// Typed errors and the check macros; csrc/python/module.cpp maps each kind to its Python exception.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace mt {

enum class ErrorKind { Runtime, Index, Value, Type, NotImplemented, OutOfMemory, Assertion, Internal };

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::string msg) : kind_(kind), msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
  std::string msg_;
};

namespace detail {
inline void append(std::ostringstream&) {}
template <typename T, typename... Rest>
void append(std::ostringstream& os, const T& v, const Rest&... rest) {
  os << v;
  append(os, rest...);
}
}  // namespace detail

// Concatenates its arguments with operator<<; only evaluated on the failure path of a check.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::append(os, args...);
  return os.str();
}

[[noreturn]] inline void throw_error(ErrorKind k, std::string msg) {
  throw Error(k, std::move(msg));
}

// A UserWarning from inside an op (PyTorch's TORCH_WARN): the binding installs a handler that raises it
// through Python's warnings machinery (so filters and pytest.warns see it); without one it goes to stderr.
using WarningHandler = void (*)(const std::string&);
inline WarningHandler& warning_handler() {
  static WarningHandler h = nullptr;
  return h;
}
void warn(const std::string& msg);

}  // namespace mt

#define MT_CHECK_KIND(kind, cond, ...)                            \
  do {                                                            \
    if (!(cond)) ::mt::throw_error(kind, ::mt::str(__VA_ARGS__)); \
  } while (0)

#define MT_CHECK(cond, ...) MT_CHECK_KIND(::mt::ErrorKind::Runtime, cond, __VA_ARGS__)
#define MT_CHECK_INDEX(cond, ...) MT_CHECK_KIND(::mt::ErrorKind::Index, cond, __VA_ARGS__)
#define MT_CHECK_VALUE(cond, ...) MT_CHECK_KIND(::mt::ErrorKind::Value, cond, __VA_ARGS__)
#define MT_CHECK_TYPE(cond, ...) MT_CHECK_KIND(::mt::ErrorKind::Type, cond, __VA_ARGS__)
#define MT_CHECK_NOT_IMPLEMENTED(cond, ...) MT_CHECK_KIND(::mt::ErrorKind::NotImplemented, cond, __VA_ARGS__)
#define MT_ERROR(...) ::mt::throw_error(::mt::ErrorKind::Runtime, ::mt::str(__VA_ARGS__))
// For our own invariants: a failure is a minitorch bug, never the user's.
#define MT_INTERNAL_ASSERT(cond, ...)                                                               \
  MT_CHECK_KIND(::mt::ErrorKind::Internal, cond, "minitorch internal assert failed: " #cond " at ", \
                __FILE__, ":", __LINE__, ". ", ##__VA_ARGS__, " Please report a bug to minitorch.")
