#pragma once
// The glue an engine writes once: tevsuite's case views to the engine's own buffers, the engine's
// block back, one engine RNG per sample seeded from tevsuite's randomness.
#include <tevsuite/check.hpp>

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

inline tevsuite::ModelVerifier chain_verifier(ChainBug bug) {
  return [bug](const tevsuite::ModelCase& c, tevsuite::Randomness& randomness) {
    const ChainModel model{c.vocab, c.depth, [&](const std::vector<std::int32_t>& prefix) { return c.p(prefix).data(); },
                           [&](const std::vector<std::int32_t>& prefix) { return c.q(prefix).data(); }};
    Rng rng(randomness.bits());
    return emitted(speculative_sampling(model, rng, bug));
  };
}

}  // namespace engine
