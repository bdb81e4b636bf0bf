#pragma once
// CUDA runtime errors as exceptions with a message that says which call failed.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tev::gpu {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}

// A device allocation freed with its owner.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    check(cudaMalloc(&data_, count * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return data_; }
  void upload(const T* host) {
    check(cudaMemcpy(data_, host, count_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  void download(T* host) const {
    check(cudaMemcpy(host, data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
  }

 private:
  T* data_ = nullptr;
  std::size_t count_;
};

// Milliseconds between two CUDA events around work on the default stream.
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() { check(cudaEventRecord(start_), "cudaEventRecord"); }
  double stop_seconds() {
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "kernel");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return 1e-3 * ms;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace tev::gpu
