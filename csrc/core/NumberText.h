// Numbers as the messages of PyTorch's Python code write them (f"{v:g}"), for the C++ ops that replaced it.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>

namespace mt {

// Python's f"{v:g}": nan without a sign, inf and -inf spelled out, else C's %g (the same digits)
inline std::string g_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

}  // namespace mt
