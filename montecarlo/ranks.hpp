#pragma once
// Runs past one machine: under mpirun each rank takes a contiguous slice of a run's sample indices
// and the integer histograms are summed over ranks, so every rank ends with exactly the
// one-process result (counts are integers; nothing depends on the order of the sum). Without MPI
// (or without mpirun) there is one rank and these are no-ops. This header knows no MPI: the sum is
// behind Collective, which montecarlo/process_group.hpp (target tev_process_group) implements with MPI,
// so tev_montecarlo and everything above it link no MPI.
#include <cstdint>
#include <span>
#include <utility>

namespace tev::montecarlo {

// An in-place sum over every rank of a group: each rank passes its values and receives the total.
class Collective {
 public:
  virtual void sum(std::span<std::uint64_t> values) const = 0;
  virtual void sum(std::span<std::int64_t> values) const = 0;

 protected:
  ~Collective() = default;  // not owned through this interface
};

// The processes one Monte Carlo run is split over. The default is this process alone: such a run
// never talks to MPI. A run given a RunContext's ranks is a collective: every rank must make it,
// with the same plan, in the same order.
struct Ranks {
  int rank = 0;
  int size = 1;
  const Collective* collective = nullptr;  // sums over the ranks; needed when size > 1, not owned
  // This rank's part [first, first + count) of the sample indices [first, first + total).
  std::pair<std::uint64_t, std::uint64_t> slice(std::uint64_t first, std::uint64_t total) const;
  // In-place sum over ranks (every rank receives the total); a no-op for one rank. Throws
  // std::logic_error for more than one rank without a collective.
  void sum(std::span<std::uint64_t> values) const;
  void sum(std::span<std::int64_t> values) const;
};

// What a command needs to know about the processes it runs in: its rank, how many there are, and
// whether it writes files (rank 0 only: every rank computes the same results). Every command gets
// one, and every path that writes a file asks writes_files.
struct RunContext {
  Ranks ranks{};
  bool writes_files = true;
  bool speaks() const { return ranks.rank == 0; }  // prints to stdout and stderr
};

}  // namespace tev::montecarlo
