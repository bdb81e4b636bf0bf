#include "sim/process_group.hpp"

#ifdef TEV_WITH_MPI
#include <mpi.h>
#endif

namespace tev {

namespace {
int g_rank = 0;
int g_size = 1;
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
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#endif
}

ProcessGroup::~ProcessGroup() {
#ifdef TEV_WITH_MPI
  if (g_initialized_here) MPI_Finalize();
#endif
}

int ProcessGroup::rank() { return g_rank; }
int ProcessGroup::size() { return g_size; }

std::pair<std::uint64_t, std::uint64_t> ProcessGroup::slice(std::uint64_t first, std::uint64_t total) {
  const auto n = static_cast<std::uint64_t>(g_size), r = static_cast<std::uint64_t>(g_rank);
  const std::uint64_t begin = total * r / n, end = total * (r + 1) / n;
  return {first + begin, end - begin};
}

void ProcessGroup::sum([[maybe_unused]] std::span<std::uint64_t> values) {
#ifdef TEV_WITH_MPI
  if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
}

void ProcessGroup::sum([[maybe_unused]] std::span<std::int64_t> values) {
#ifdef TEV_WITH_MPI
  if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#endif
}

}  // namespace tev
