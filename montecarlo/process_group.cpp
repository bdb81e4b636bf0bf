#include "montecarlo/process_group.hpp"

#ifdef TEV_WITH_MPI
#include <mpi.h>
#endif

namespace tev::montecarlo {

namespace {
bool g_initialized_here = false;
}  // namespace

ProcessGroup::ProcessGroup([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#ifdef TEV_WITH_MPI
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    MPI_Init(argc, argv);
    g_initialized_here = true;
  }
#endif
}

ProcessGroup::~ProcessGroup() {
#ifdef TEV_WITH_MPI
  if (g_initialized_here) MPI_Finalize();
#endif
}

RunContext ProcessGroup::context() const {
  Ranks ranks;
  ranks.collective = this;
#ifdef TEV_WITH_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);
#endif
  return {ranks, ranks.rank == 0};
}

// Without MPI there is one rank, and Ranks::sum never calls these.
void ProcessGroup::sum([[maybe_unused]] std::span<std::uint64_t> values) const {
#ifdef TEV_WITH_MPI
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
#endif
}

void ProcessGroup::sum([[maybe_unused]] std::span<std::int64_t> values) const {
#ifdef TEV_WITH_MPI
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM,
                MPI_COMM_WORLD);
#endif
}

}  // namespace tev::montecarlo
