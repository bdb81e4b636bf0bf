#pragma once
// Runs past one machine: under mpirun each rank takes a contiguous slice of every run's sample
// indices and the integer histograms are summed over ranks, so every rank ends with exactly the
// one-process result (counts are integers; nothing depends on the order of the sum). Without MPI
// (or without mpirun) there is one rank and these are no-ops.
#include <cstdint>
#include <span>
#include <utility>

namespace tev {

class ProcessGroup {
 public:
  // MPI_Init on construction and MPI_Finalize on destruction when built with MPI; make one in main.
  ProcessGroup(int* argc, char*** argv);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  static int rank();
  static int size();
  // This rank's part [first, first + count) of the sample indices [first, first + total).
  static std::pair<std::uint64_t, std::uint64_t> slice(std::uint64_t first, std::uint64_t total);
  // In-place sum over ranks (every rank receives the total).
  static void sum(std::span<std::uint64_t> values);
  static void sum(std::span<std::int64_t> values);
};

}  // namespace tev
