#pragma once
// The MPI side of montecarlo/ranks.hpp, in its own target (tev_process_group) so that only programs link
// MPI: the libraries take a RunContext and never see this header.
#include <cstdint>
#include <span>

#include "montecarlo/ranks.hpp"

namespace tev::montecarlo {

class ProcessGroup final : public Collective {
 public:
  // MPI_Init on construction and MPI_Finalize on destruction when built with MPI; make one in main.
  ProcessGroup(int* argc, char*** argv);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  // This process's rank in MPI_COMM_WORLD, whose sums go through this group: it must outlive the
  // context and every run given its ranks.
  RunContext context() const;
  // MPI_Allreduce in place over MPI_COMM_WORLD.
  void sum(std::span<std::uint64_t> values) const override;
  void sum(std::span<std::int64_t> values) const override;
};

}  // namespace tev::montecarlo
