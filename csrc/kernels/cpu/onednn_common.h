// What the CPU kernels that call oneDNN share (conv.cpp, rnn.cpp): the one CPU engine, the primitive
// attribute with the scratchpad in user mode, and the hash of their plan caches' shape keys. Included only in
// builds with oneDNN.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <oneapi/dnnl/dnnl.hpp>

namespace mt::onednn_common {

inline dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

// Plans are shared by every Python thread, and oneDNN lets a primitive run in another thread than the one
// that made it, or in two at once, only with the scratchpad in user mode and a buffer per execution (the
// library's own scratchpad holds, e.g., backward-weights' thread barrier: two threads sharing it spun there
// forever). Each call passes a buffer of its own.
inline dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

// The plan caches' key: the shape, layout and thread count a primitive was built for.
template <size_t N>
struct KeyHash {
  size_t operator()(const std::array<int64_t, N>& k) const {
    size_t h = 0;
    for (int64_t v : k) h = h * 1000003u ^ std::hash<int64_t>()(v);
    return h;
  }
};

}  // namespace mt::onednn_common
