// Device: a type (CPU, CUDA or meta) and an index; parsed from PyTorch's strings ("cpu", "cuda", "cuda:1",
// "meta"). A meta tensor has sizes, strides and a dtype but no data: ops compute its shape and skip the
// kernel.
#pragma once
#include <cstdint>
#include <string>

namespace mt {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2 };
constexpr int kNumDeviceTypes = 3;

struct Device {
  DeviceType type = DeviceType::CPU;
  int index = -1;  // -1: "the current one" (only meaningful for CUDA before resolution)

  Device() = default;
  Device(DeviceType t, int i = -1) : type(t), index(i) {}
  explicit Device(const std::string& spec);  // throws RuntimeError in PyTorch's words on a bad string

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_cuda() const { return type == DeviceType::CUDA; }
  bool is_meta() const { return type == DeviceType::Meta; }
  bool operator==(const Device& o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;        // "cpu", "cuda:0", "meta"
  const char* type_name() const;  // "cpu", "cuda", "meta"
};

}  // namespace mt
