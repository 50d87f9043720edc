// Checks kernels/MultiTensorPlan.h (the CUDA multi-tensor-apply launch planner) on the CPU: over random
// tensor sizes and limits every (tensor, chunk) lands in exactly one block of one launch. Built and run by
// tests/optim/test_optim.py::test_multi_tensor_plan_covers_every_chunk_once.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "kernels/MultiTensorPlan.h"

struct Meta {
  size_t tensor_of_slot[128];
  unsigned char block_to_tensor[320];
  int block_to_chunk[320];
};

int main() {
  std::mt19937_64 rng(1);
  long launches_total = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t chunk = 1 + rng() % 7;
    const int max_tensors = 1 + rng() % 6;
    const int max_blocks = 1 + rng() % 9;
    const size_t count = 1 + rng() % 20;
    std::vector<int64_t> numel(count);
    for (auto& n : numel) n = 1 + rng() % 40;
    Meta meta{};
    std::map<std::pair<size_t, int64_t>, int> seen;
    int launches = 0;
    mt::plan_multi_tensor(
        count, chunk, max_tensors, max_blocks, meta, [&](size_t i) { return numel[i]; },
        [&](int slot, size_t i) {
          if (slot >= max_tensors) {
            std::printf("slot overflow\n");
            std::exit(1);
          }
          meta.tensor_of_slot[slot] = i;
        },
        [&](int slot) { meta.tensor_of_slot[0] = meta.tensor_of_slot[slot]; },
        [&](int nb) {
          ++launches;
          if (nb < 1 || nb > max_blocks) {
            std::printf("bad nb %d\n", nb);
            std::exit(1);
          }
          for (int b = 0; b < nb; ++b) {
            const int slot = meta.block_to_tensor[b];
            if (slot >= max_tensors) {
              std::printf("bad slot\n");
              std::exit(1);
            }
            const size_t t = meta.tensor_of_slot[slot];
            const int64_t c = meta.block_to_chunk[b];
            if (c * chunk >= numel[t]) {
              std::printf("chunk past end\n");
              std::exit(1);
            }
            seen[{t, c}]++;
          }
        });
    launches_total += launches;
    for (size_t t = 0; t < count; ++t)
      for (int64_t c = 0; c * chunk < numel[t]; ++c)
        if (seen[{t, c}] != 1) {
          std::printf("trial %d: tensor %zu chunk %ld seen %d\n", trial, t, (long)c, seen[{t, c}]);
          return 1;
        }
  }
  std::printf("ok, %ld launches checked\n", launches_total);
  return 0;
}
