// Device string parsing and printing with PyTorch's error messages.
#include "core/Device.h"

#include <cctype>

#include "core/Exception.h"

namespace mt {

Device::Device(const std::string& spec) {
  auto colon = spec.find(':');
  std::string name = spec.substr(0, colon);
  if (name == "cpu") {
    type = DeviceType::CPU;
  } else if (name == "cuda") {
    type = DeviceType::CUDA;
  } else if (name == "meta") {
    type = DeviceType::Meta;
  } else {
    // PyTorch's list of device types, word for word (minitorch accepts cpu, cuda and meta)
    MT_ERROR(
        "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
        "vulkan, "
        "mps, meta, hpu, mtia, privateuseone device type at start of device string: ",
        spec);
  }
  if (colon == std::string::npos) return;
  std::string idx = spec.substr(colon + 1);
  bool ok = !idx.empty() && idx.size() < 10 && !(idx.size() > 1 && idx[0] == '0');
  for (char c : idx) ok = ok && std::isdigit(static_cast<unsigned char>(c));
  MT_CHECK(ok, "Invalid device string: '", spec, "'");
  index = std::stoi(idx);
}

const char* Device::type_name() const {
  return type == DeviceType::CPU ? "cpu" : type == DeviceType::CUDA ? "cuda" : "meta";
}

std::string Device::str() const {
  std::string s = type_name();
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace mt
