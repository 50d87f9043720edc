// DispatchStub: the per-device kernel table an op calls through. Kernels register themselves
// (MT_REGISTER_KERNEL in kernels/cpu/*.cpp, kernels/cuda/*.cu), so adding a device never edits an op.
#pragma once
#include "core/Device.h"
#include "core/Exception.h"
#include "ops/op_table.h"

namespace mt {

template <typename Fn>
struct DispatchStub {
  const char* name;
  Fn fns[kNumDeviceTypes];

  Fn get(Device d) const {
    Fn f = fns[static_cast<int>(d.type)];
    MT_CHECK_NOT_IMPLEMENTED(f != nullptr, "Could not run '", name, "' with arguments from the '",
                             d.is_cuda() ? "CUDA" : "CPU", "' backend.");
    return f;
  }
};

}  // namespace mt

// Constant-initialized, so registration from any translation unit's static initializer is order-safe.
#define MT_DECLARE_STUB(name, fn_type) extern ::mt::DispatchStub<fn_type> name
#define MT_DEFINE_STUB(name, fn_type) ::mt::DispatchStub<fn_type> name = {#name, {}}
// Declares one row of ops/op_table.h's MT_DISPATCH_STUBS: each header declaring stubs expands its group with
// it.
#define MT_DECLARE_STUB_ROW(name, family, fn_type) MT_DECLARE_STUB(name, fn_type);
#define MT_REGISTER_KERNEL(name, device_type, fn)       \
  static const bool name##_##device_type##_registered = \
      (name.fns[static_cast<int>(::mt::DeviceType::device_type)] = (fn), true)
