// Allocator interface and the per-device-type registry; CPU memory is 64-byte aligned for vector loads.
#pragma once
#include <cstddef>

#include "core/Device.h"

namespace mt {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns memory for nbytes on `device` (nbytes may be 0: a valid, unique, non-dereferenceable pointer).
  virtual void* allocate(size_t nbytes, Device device) = 0;
  virtual void deallocate(void* ptr, Device device) = 0;
};

Allocator* get_allocator(DeviceType type);
void set_allocator(DeviceType type, Allocator* alloc);

}  // namespace mt
