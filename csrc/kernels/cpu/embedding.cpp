// CPU embedding gather (rows copied whole) and its backward (per-column accumulation; layout: ops/nn.h).
#include <cmath>
#include <cstring>
#include <vector>

#include "core/CopyBytes.h"
#include "core/Exception.h"
#include "core/Generator.h"
#include "core/Parallel.h"
#include "core/ScalarType.h"
#include "kernels/cpu/ParallelRows.h"
#include "ops/nn.h"

namespace mt {
namespace {

template <typename I>
void embedding_rows(const Tensor& out, const Tensor& weight, const I* idx, int64_t n) {
  int64_t num = weight.sizes()[0], D = weight.sizes()[1];
  size_t row_bytes = static_cast<size_t>(D) * weight.itemsize();
  for (int64_t i = 0; i < n; ++i) MT_CHECK_INDEX(idx[i] >= 0 && idx[i] < num, "index out of range in self");
  const char* src = static_cast<const char*>(weight.data_ptr());
  char* dst = static_cast<char*>(out.data_ptr());
  parallel_for(0, n, grain_for(D), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      copy_bytes(dst + i * row_bytes, src + static_cast<int64_t>(idx[i]) * row_bytes, row_bytes);
  });
}

void embedding_cpu(const Tensor& out, const Tensor& weight, const Tensor& indices) {
  if (indices.dtype() == ScalarType::Long)
    embedding_rows(out, weight, indices.data<int64_t>(), indices.numel());
  else
    embedding_rows(out, weight, indices.data<int32_t>(), indices.numel());
}

template <typename I>
void embedding_backward_rows(const Tensor& acc, const Tensor& counts, const Tensor& g, const I* idx,
                             int64_t padding_idx) {
  int64_t n = g.sizes()[0], D = g.sizes()[1];
  MT_DISPATCH_FLOATING_TYPES(g.dtype(), "embedding_backward", [&] {
    using st_t = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    const scalar_t* pg = g.data<scalar_t>();
    st_t* pa = acc.data<st_t>();
    st_t* pc = counts.defined() ? counts.data<st_t>() : nullptr;
    if (pc)
      for (int64_t i = 0; i < n; ++i)
        if (idx[i] != padding_idx) pc[idx[i]] += 1;
    // each thread owns a block of columns and walks the rows in order: no atomics, deterministic sums
    parallel_for(0, D, std::max<int64_t>(16, grain_for(n)), [&](int64_t j0, int64_t j1) {
      for (int64_t i = 0; i < n; ++i) {
        int64_t id = static_cast<int64_t>(idx[i]);
        if (id == padding_idx) continue;
        st_t scale = pc ? st_t(1) / pc[id] : st_t(1);
        const scalar_t* gr = pg + i * D;
        st_t* ar = pa + id * D;
        for (int64_t j = j0; j < j1; ++j)
          ar[j] += static_cast<st_t>(static_cast<opmath_t<scalar_t>>(gr[j])) * scale;
      }
    });
  });
}

void embedding_backward_cpu(const Tensor& acc, const Tensor& counts, const Tensor& g, const Tensor& indices,
                            int64_t padding_idx) {
  if (indices.dtype() == ScalarType::Long)
    embedding_backward_rows(acc, counts, g, indices.data<int64_t>(), padding_idx);
  else
    embedding_backward_rows(acc, counts, g, indices.data<int32_t>(), padding_idx);
}

}  // namespace

MT_REGISTER_KERNEL(embedding_stub, CPU, &embedding_cpu);
MT_REGISTER_KERNEL(embedding_backward_stub, CPU, &embedding_backward_cpu);

}  // namespace mt
