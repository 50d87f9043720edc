// Defines every DispatchStub of ops/op_table.h, checks the stub table's row count, and lists the stubs with
// the devices that registered a kernel (for _C._op_table("stubs")).
#include "ops/op_table.h"

#include "ops/attention.h"
#include "ops/grid_sample.h"
#include "ops/index_dim.h"
#include "ops/kernels.h"
#include "ops/linalg_decomp.h"
#include "ops/ops.h"
#include "ops/rnn.h"
#include "ops/sort.h"
#include "ops/upsample.h"

namespace mt {

#define MT_DEFINE_STUB_ROW(name, family, fn_type) MT_DEFINE_STUB(name, fn_type);
MT_DISPATCH_STUBS(MT_DEFINE_STUB_ROW)
#undef MT_DEFINE_STUB_ROW

#define MT_COUNT_ROW(...) +1
static_assert(
    0 MT_DISPATCH_STUBS(MT_COUNT_ROW) == MT_NUM_DISPATCH_STUBS,
    "a dispatch stub was added or removed: update MT_NUM_DISPATCH_STUBS (ops/op_table.h) and give the new "
    "stub its kernels and a case in tests/ops/test_op_table.py");
#undef MT_COUNT_ROW

std::vector<StubRow> dispatch_stub_rows() {
  std::vector<StubRow> rows;
#define MT_STUB_ROW(name, family, fn_type)                                              \
  {                                                                                     \
    StubRow r{#name, #family, {}};                                                      \
    for (int d = 0; d < kNumDeviceTypes; ++d) r.has_kernel[d] = name.fns[d] != nullptr; \
    rows.push_back(r);                                                                  \
  }
  MT_DISPATCH_STUBS(MT_STUB_ROW)
#undef MT_STUB_ROW
  return rows;
}

}  // namespace mt
