#include "sim/process_group.hpp"

#ifdef TEV_WITH_MPI
#include <mpi.h>
#endif

namespace tev {

namespace {
bool g_initialized_here = false;
}  // namespace

std::pair<std::uint64_t, std::uint64_t> Ranks::slice(std::uint64_t first, std::uint64_t total) const {
  const auto n = static_cast<std::uint64_t>(size), r = static_cast<std::uint64_t>(rank);
  const std::uint64_t begin = total * r / n, end = total * (r + 1) / n;
  return {first + begin, end - begin};
}

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
#ifdef TEV_WITH_MPI
  MPI_Comm_rank(MPI_COMM_WORLD, &ranks.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks.size);
#endif
  return {ranks, ranks.rank == 0};
}

void ProcessGroup::sum(const Ranks& ranks, [[maybe_unused]] std::span<std::uint64_t> values) {
  if (ranks.size == 1) return;
#ifdef TEV_WITH_MPI
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
}

void ProcessGroup::sum(const Ranks& ranks, [[maybe_unused]] std::span<std::int64_t> values) {
  if (ranks.size == 1) return;
#ifdef TEV_WITH_MPI
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
}

}  // namespace tev
