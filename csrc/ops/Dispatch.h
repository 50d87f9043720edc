// DispatchStub: the per-device kernel table an op calls through. Kernels register themselves
// (MT_REGISTER_KERNEL in kernels/cpu/*.cpp, kernels/cuda/*.cu), so adding a device never edits an op.
#pragma once
#include <type_traits>

#include "core/Device.h"
#include "core/Exception.h"
#include "ops/op_table.h"

namespace mt {

// The meta device's kernel for every stub: the front end has already made the outputs (shape, dtype,
// strides), so a kernel that only writes them does nothing. A kernel that returns something computes it from
// data (nonzero's count), which a meta tensor has not: it raises, as PyTorch's data-dependent ops do.
template <typename Fn>
struct MetaKernel;
template <typename R, typename... Args>
struct MetaKernel<R (*)(Args...)> {
  static R run(Args...) {
    if constexpr (!std::is_void_v<R>) {
      MT_CHECK_NOT_IMPLEMENTED(false,
                               "this operator's result depends on the data of its inputs, which meta "
                               "tensors do not have");
      return R();
    }
  }
};

template <typename Fn>
struct DispatchStub {
  const char* name;
  Fn fns[kNumDeviceTypes];

  Fn get(Device d) const {
    if (d.type == DeviceType::Meta) return &MetaKernel<Fn>::run;
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
