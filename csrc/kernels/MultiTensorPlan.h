// Host-side planning of a multi-tensor-apply launch sequence, kept free of CUDA so it can be checked on any
// machine: tensors are cut into chunks, chunks become blocks, and a launch is made whenever the blocks or the
// tensor slots of the kernel-argument struct run out.
#pragma once
#include <cstddef>
#include <cstdint>

namespace mt {

// meta: has block_to_tensor[] and block_to_chunk[] of max_blocks entries. set(slot, i): put tensor i in
// `slot`; carry(slot): copy `slot` into slot 0 (a tensor cut by a launch continues there); launch(nblocks).
template <typename Meta, typename NumelFn, typename SetFn, typename CarryFn, typename LaunchFn>
void plan_multi_tensor(size_t count, int64_t chunk, int max_tensors, int max_blocks, Meta& meta,
                       const NumelFn& numel, const SetFn& set, const CarryFn& carry, const LaunchFn& launch) {
  int nt = 0, nb = 0;
  for (size_t i = 0; i < count; ++i) {
    set(nt, i);
    ++nt;
    const int64_t chunks = (numel(i) + chunk - 1) / chunk;
    for (int64_t c = 0; c < chunks; ++c) {
      meta.block_to_tensor[nb] = static_cast<unsigned char>(nt - 1);
      meta.block_to_chunk[nb] = static_cast<int>(c);
      ++nb;
      const bool last_chunk = c == chunks - 1;
      if (nb == max_blocks || (last_chunk && (nt == max_tensors || i == count - 1))) {
        launch(nb);
        nb = 0;
        if (last_chunk) {
          nt = 0;
        } else {
          carry(nt - 1);
          nt = 1;
        }
      }
    }
  }
}

}  // namespace mt
