// The DLPack 1.0 C ABI (https://dmlc.github.io/dlpack/latest/c_api.html): the structs exchanged in
// "dltensor" / "dltensor_versioned" capsules. Declared here from the specification; layout must not change.
#pragma once
#include <cstdint>

extern "C" {

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };
struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};
enum DLDataTypeCode : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLComplex = 5,
  kDLBool = 6
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; may be null for a compact row-major tensor
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor* self);
};
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};
constexpr uint64_t kDLPackFlagReadOnly = 1ull << 0;
constexpr uint64_t kDLPackFlagIsCopied = 1ull << 1;

}  // extern "C"
