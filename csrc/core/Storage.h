// Storage: one block of device memory shared by a tensor and all its views, with the version counter they
// share.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/Allocator.h"
#include "core/InferenceMode.h"

namespace mt {

struct StorageImpl {
  using Deleter = void (*)(void* ctx, void* data);

  void* data = nullptr;
  size_t nbytes = 0;
  Device device;
  // Either an allocator owns the memory, or (borrowed memory such as a NumPy array) a deleter with context.
  Allocator* allocator = nullptr;
  Deleter deleter = nullptr;
  void* deleter_ctx = nullptr;
  // Bumped by every in-place write through any view; autograd compares it with saved values.
  std::atomic<uint32_t> version{0};
  // Made in inference mode: every tensor over it (views too) is an inference tensor, as in PyTorch; they
  // cannot be saved for backward nor written in place outside inference mode.
  bool inference = tls_inference_mode;

  StorageImpl() = default;
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl() {
    if (deleter)
      deleter(deleter_ctx, data);
    else if (allocator && data)
      allocator->deallocate(data, device);
  }

  static std::shared_ptr<StorageImpl> allocate(size_t nbytes, Device device, Allocator* allocator = nullptr) {
    auto s = std::make_shared<StorageImpl>();
    s->allocator = allocator ? allocator : get_allocator(device.type);
    s->data = s->allocator->allocate(nbytes, device);
    s->nbytes = nbytes;
    s->device = device;
    return s;
  }
};

using Storage = std::shared_ptr<StorageImpl>;

}  // namespace mt
