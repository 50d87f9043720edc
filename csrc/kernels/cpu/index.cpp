// CPU kernels for indexing: gather/put through element offsets, and nonzero.
#include "ops/index.h"

#include <algorithm>
#include <cstring>

#include "core/Parallel.h"
#include "ops/Dispatch.h"
#include "ops/copy.h"
#include "ops/kernels.h"

namespace mt {
namespace {

// inner[] is 0, 1, 2, ...: each index moves one dense row (index_select and x[idx] on a contiguous tensor)
bool dense_rows(const int64_t* inner, int64_t r) {
  for (int64_t j = 0; j < r; ++j)
    if (inner[j] != j) return false;
  return true;
}

template <typename T>
void gather_loop(T* out, const T* src, const int64_t* outer, int64_t n, const int64_t* inner, int64_t r) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(r, 1));
  if (r == 1 && inner[0] == 0) {
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = src[outer[i]];
    });
  } else if (dense_rows(inner, r)) {
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) std::memcpy(out + i * r, src + outer[i], r * sizeof(T));
    });
  } else {
    parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T* base = src + outer[i];
        T* o = out + i * r;
        for (int64_t j = 0; j < r; ++j) o[j] = base[inner[j]];
      }
    });
  }
}

void gather_kernel(const Tensor& out, const Tensor& src, const int64_t* outer, int64_t n,
                   const int64_t* inner, int64_t r) {
  switch (src.itemsize()) {  // moving bytes: only the width matters
    case 1:
      return gather_loop(out.data<uint8_t>(), src.data<uint8_t>(), outer, n, inner, r);
    case 2:
      return gather_loop(out.data<uint16_t>(), src.data<uint16_t>(), outer, n, inner, r);
    case 4:
      return gather_loop(out.data<uint32_t>(), src.data<uint32_t>(), outer, n, inner, r);
    default:
      return gather_loop(out.data<uint64_t>(), src.data<uint64_t>(), outer, n, inner, r);
  }
}

void put_kernel(const Tensor& dst, const Tensor& values, const int64_t* outer, int64_t n,
                const int64_t* inner, int64_t r, PutMode mode) {
  // Sequential: duplicate indices must accumulate deterministically (and assign last-writer-wins).
  MT_DISPATCH_ALL_TYPES(dst.dtype(), "index_put_", [&] {
    scalar_t* d = dst.data<scalar_t>();
    const scalar_t* v = values.data<scalar_t>();
    using op_t = opmath_t<scalar_t>;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < r; ++j) {
        scalar_t& x = d[outer[i] + inner[j]];
        scalar_t y = v[i * r + j];
        if (mode == PutMode::assign)
          x = y;
        else if (mode == PutMode::add)
          x = static_cast<scalar_t>(static_cast<op_t>(x) + static_cast<op_t>(y));
        else
          x = static_cast<scalar_t>(static_cast<op_t>(x) * static_cast<op_t>(y));
      }
  });
}

Tensor nonzero_kernel(const Tensor& self) {
  Tensor b = contiguous(to(self, ScalarType::Bool, self.device()));
  const bool* p = b.data<bool>();
  int64_t n = b.numel(), count = 0;
  for (int64_t i = 0; i < n; ++i) count += p[i];
  int64_t nd = self.dim();
  Tensor out = make_empty({count, nd}, ScalarType::Long, self.device());
  int64_t* o = out.data<int64_t>();
  DimVector idx(nd, 0);
  for (int64_t i = 0; i < n; ++i) {
    if (p[i]) {
      for (int64_t d = 0; d < nd; ++d) *o++ = idx[d];
    }
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < self.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace

MT_REGISTER_KERNEL(index_gather_stub, CPU, &gather_kernel);
MT_REGISTER_KERNEL(index_put_stub, CPU, &put_kernel);
MT_REGISTER_KERNEL(nonzero_stub, CPU, &nonzero_kernel);

}  // namespace mt
