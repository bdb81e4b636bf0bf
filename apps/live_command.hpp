#pragma once
// `tevsuite live`: the suite's checks on draft trees a real drafter builds for a real target.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "harness/live.hpp"
#include "harness/models.hpp"
#include "sim/verdicts.hpp"

namespace tev {

struct LiveOptions {
  ModelRequest models;
  std::vector<TreeBuilder> builders = {TreeBuilder::ddtree, TreeBuilder::dynamic};
  std::int32_t contexts = 2;          // per drafter × builder
  std::int32_t context_length = 5;    // tokens sampled after the start token
  LiveTreeConfig tree;                // budget and temperature (builder from `builders`)
  JudgingConfig judging;              // samples for fast-path verifiers, seed, threads, alpha
  std::uint64_t chooser_samples = 2000;  // samples for verifiers without a fast path (O(V) per draw)
  bool mutants = false;               // also run the planted mutants (O(N·V) per sample for several)
  std::int32_t rounds = 30;           // speculative generation rounds per drafter × builder
  std::uint64_t first_word_samples = 200000;
  std::string json_path;
  std::string dump_dir;               // write every live tree here
  std::string from_dir;               // check dumped trees instead of building them
};

// Prints progress to `progress` and results to `out`; returns 0 when every verifier's verdict is
// the one its kind calls for and the generation and first-word tests hold, 1 otherwise.
int run_live(const LiveOptions& options, std::ostream& out, std::ostream& progress);

}  // namespace tev
