#pragma once
// The glue an engine writes once: tevsuite's case views to the engine's own buffers, the engine's
// block back, one engine RNG per sample seeded from tevsuite's randomness.
#include <tevsuite/check.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine_sampler.hpp"

namespace engine {

inline TreeView engine_view(const tevsuite::TreeCase& c) {
  return {c.vocab, c.nodes(), c.parents.data(), c.tokens.data(), c.probs.data()};
}

inline tevsuite::Block emitted(Block b) { return {std::move(b.accepted), b.bonus}; }

// Safe to call from several threads at once: each call has its own Rng.
inline tevsuite::TreeVerifier tree_verifier(TreeBug bug) {
  return [bug](const tevsuite::TreeCase& c, tevsuite::Randomness& randomness) {
    Rng rng(randomness.bits());
    return emitted(verify_tree(engine_view(c), rng, bug));
  };
}

// A batch of requests in one call, as the engine's scheduler verifies them: each request with its
// own Rng, seeded from the round's randomness. The planted bug seeds every request's Rng with one
// seed (the batch shares one random stream): each request is exact, the requests are not
// independent.
enum class BatchBug { none, one_seed_for_the_batch };
inline tevsuite::RequestBatchVerifier batch_verifier(BatchBug bug) {
  return [bug](std::span<const tevsuite::TreeCase> requests, tevsuite::Randomness& round) {
    tevsuite::BlockBatch batch;
    for (const tevsuite::TreeCase& c : requests) batch.width = std::max(batch.width, c.nodes() - 1);
    batch.accepted.assign(requests.size() * static_cast<std::size_t>(batch.width), -1);
    const std::uint64_t batch_seed = round.bits();
    for (std::size_t k = 0; k < requests.size(); ++k) {
      Rng rng(bug == BatchBug::one_seed_for_the_batch ? batch_seed : round.bits());
      const Block b = verify_tree(engine_view(requests[k]), rng, TreeBug::none);
      std::copy(b.accepted.begin(), b.accepted.end(),
                batch.accepted.begin() +
                    static_cast<std::ptrdiff_t>(k * static_cast<std::size_t>(batch.width)));
      batch.bonus.push_back(b.bonus);
    }
    return batch;
  };
}

// The engine's vectorized path: one call per batch of a case's samples, each sample verified with
// an Rng at its own offset of the batch's stream (the engine's counter, one step a sample; a step
// jumps 2^32 draws ahead, so no sample's draws reach the next one's: with a step of one draw,
// sample k's first draw would be sample k − 1's second, and the tests of independence see it). The
// planted bug advances the offset every other sample only, as when one step's increment is lost:
// samples 2k and 2k + 1 draw the same numbers, so each block is exact and the pair is not
// independent.
enum class OffsetBug { none, advanced_every_other_sample };
inline tevsuite::TreeBatchVerifier batched_tree_verifier(OffsetBug bug) {
  return [bug](const tevsuite::TreeCase& c, std::uint64_t first, std::uint64_t count,
               std::uint64_t seed) {
    tevsuite::BlockBatch batch;
    batch.width = c.nodes() - 1;
    batch.accepted.assign(count * static_cast<std::size_t>(batch.width), -1);
    std::uint64_t offset = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
      Rng rng(seed + (offset << 32) * 0x9E3779B97F4A7C15ULL);
      const Block b = verify_tree(engine_view(c), rng, TreeBug::none);
      std::copy(b.accepted.begin(), b.accepted.end(),
                batch.accepted.begin() +
                    static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(batch.width)));
      batch.bonus.push_back(b.bonus);
      offset += bug == OffsetBug::advanced_every_other_sample ? (first + i) % 2 : 1;
    }
    return batch;
  };
}

inline SamplingParams engine_params(const tevsuite::SamplingParams& s) {
  const FilterOrder order = s.order == tevsuite::FilterOrder::min_p_last ? FilterOrder::min_p_last
                            : s.order == tevsuite::FilterOrder::top_p_full_and_top_k
                                ? FilterOrder::top_p_full_and_top_k
                                : FilterOrder::min_p_first;
  return {s.temperature, s.top_k, s.top_p, s.min_p, order};
}

// An engine-shaped case (logits and sampling parameters): the engine processes every row with its
// own sampler front end, then verifies the tree. Every sample of a case is the same request, so
// its rows are processed once, on first use (under a lock: the check calls from several threads).
inline tevsuite::TreeVerifier tree_verifier_on_logits(SamplingBug sampling_bug) {
  auto lock = std::make_shared<std::mutex>();
  auto processed = std::make_shared<std::map<std::string, std::vector<double>, std::less<>>>();
  return [sampling_bug, lock, processed](const tevsuite::TreeCase& c,
                                         tevsuite::Randomness& randomness) {
    const std::vector<double>* probs = nullptr;
    {
      const std::lock_guard guard(*lock);
      auto it = processed->find(c.id);
      if (it == processed->end()) {
        std::vector<double> rows(c.logits.size());
        for (int v = 0; v < c.nodes(); ++v) {
          const std::size_t at = static_cast<std::size_t>(v) * static_cast<std::size_t>(c.vocab);
          apply_sampling(c.logits.data() + at, c.vocab, engine_params(*c.sampling),
                         rows.data() + at, sampling_bug);
        }
        it = processed->emplace(std::string(c.id), std::move(rows)).first;
      }
      probs = &it->second;
    }
    Rng rng(randomness.bits());
    return emitted(
        verify_tree({c.vocab, c.nodes(), c.parents.data(), c.tokens.data(), probs->data()}, rng));
  };
}

inline tevsuite::ModelVerifier chain_verifier(ChainBug bug) {
  return [bug](const tevsuite::ModelCase& c, tevsuite::Randomness& randomness) {
    const ChainModel model{
        c.vocab, c.depth,
        [&](const std::vector<std::int32_t>& prefix) { return c.p(prefix).data(); },
        [&](const std::vector<std::int32_t>& prefix) { return c.q(prefix).data(); }};
    Rng rng(randomness.bits());
    return emitted(speculative_sampling(model, rng, bug));
  };
}

}  // namespace engine
