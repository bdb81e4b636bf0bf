#pragma once
// Verifiers written against the public API alone, as an engine would write them: a target-only
// walk drawn through tevsuite's Draws (exact and saturated), its planted bug, and a seeded
// verifier that accepts nothing (exact, not saturated).
#include <algorithm>
#include <random>
#include <span>
#include <vector>

#include <tevsuite/check.hpp>

namespace public_verifiers {

// The child of `node` drafted with `token`, or −1.
inline std::int32_t child_with_token(const tevsuite::TreeCase& c, std::int32_t node,
                                     std::int32_t token) {
  for (std::int32_t u = 1; u < c.nodes(); ++u) {
    if (c.parents[static_cast<std::size_t>(u)] == node &&
        c.tokens[static_cast<std::size_t>(u)] == token)
      return u;
  }
  return -1;
}

// Draw the next token from the target row; follow it while it is a drafted child, else it is the
// bonus. Its exit law is the canonical one: P(reach v) = P(v), exit with ρ(v), bonus residual.
inline tevsuite::Block target_walk(const tevsuite::TreeCase& c, tevsuite::Draws& draws) {
  tevsuite::Block block;
  for (std::int32_t node = 0;;) {
    const std::int32_t token = draws.next_token(node, c.row(node));
    const std::int32_t child = child_with_token(c, node, token);
    if (child < 0) {
      block.bonus = token;
      return block;
    }
    block.accepted.push_back(token);
    node = child;
  }
}

// The planted bug: where the walk stops, the bonus is drawn again from the full row, drafted
// children included (not exact: the judge completes a child's token, so some exits move down).
inline tevsuite::Block target_walk_full_row_bonus(const tevsuite::TreeCase& c,
                                                  tevsuite::Draws& draws) {
  tevsuite::Block block = target_walk(c, draws);
  const std::int32_t stop = [&] {
    std::int32_t node = 0;
    for (const std::int32_t token : block.accepted) node = child_with_token(c, node, token);
    return node;
  }();
  block.bonus = static_cast<std::int32_t>(draws.categorical(c.row(stop)));
  return block;
}

// Draws from an engine's own generator (for batched verifiers, seeded once per batch).
class SeededDraws final : public tevsuite::Draws {
 public:
  explicit SeededDraws(std::uint64_t seed) : engine_(seed) {}
  std::size_t categorical(std::span<const double> weights) override {
    double total = 0.0;
    for (const double w : weights) total += w;
    double u = std::uniform_real_distribution<double>(0.0, total)(engine_);
    for (std::size_t a = 0; a < weights.size(); ++a) {
      if (u < weights[a]) return a;
      u -= weights[a];
    }
    return weights.size() - 1;
  }
  std::int32_t next_token(std::int32_t, std::span<const double> weights) override {
    return static_cast<std::int32_t>(categorical(weights));
  }

 private:
  std::mt19937_64 engine_;
};

// target_walk for a batch of samples: rows of accepted tokens padded with −1.
inline tevsuite::BlockBatch target_walk_batch(const tevsuite::TreeCase& c, std::uint64_t,
                                              std::uint64_t count, std::uint64_t seed) {
  SeededDraws draws(seed);
  tevsuite::BlockBatch batch;
  batch.width = std::max(c.nodes() - 1, 1);
  batch.accepted.assign(count * static_cast<std::size_t>(batch.width), -1);
  for (std::uint64_t i = 0; i < count; ++i) {
    const tevsuite::Block b = target_walk(c, draws);
    std::copy(b.accepted.begin(), b.accepted.end(),
              batch.accepted.begin() +
                  static_cast<std::ptrdiff_t>(i * static_cast<std::size_t>(batch.width)));
    batch.bonus.push_back(b.bonus);
  }
  return batch;
}

// A batch of requests verified together: every request walks its own tree with its own generator,
// seeded from the round's randomness. The planted bug seeds every request's generator with one
// seed, as an engine that hands the whole batch one random stream: each request's law is right,
// the requests are not independent.
inline tevsuite::BlockBatch batch_walk(std::span<const tevsuite::TreeCase> requests,
                                       tevsuite::Randomness& round, bool one_seed) {
  tevsuite::BlockBatch batch;
  for (const tevsuite::TreeCase& c : requests) batch.width = std::max(batch.width, c.nodes() - 1);
  batch.accepted.assign(requests.size() * static_cast<std::size_t>(batch.width), -1);
  const std::uint64_t shared = round.bits();
  for (std::size_t k = 0; k < requests.size(); ++k) {
    SeededDraws draws(one_seed ? shared : round.bits());
    const tevsuite::Block b = target_walk(requests[k], draws);
    std::copy(b.accepted.begin(), b.accepted.end(),
              batch.accepted.begin() +
                  static_cast<std::ptrdiff_t>(k * static_cast<std::size_t>(batch.width)));
    batch.bonus.push_back(b.bonus);
  }
  return batch;
}

// A token of `row` by inverse CDF at u (the last token when rounding leaves u above the total).
inline std::int32_t draw_from(std::span<const double> row, double u) {
  double below = 0.0;
  for (std::size_t a = 0; a < row.size(); ++a) {
    below += row[a];
    if (u < below) return static_cast<std::int32_t>(a);
  }
  return static_cast<std::int32_t>(row.size()) - 1;
}

// An engine-shaped case's rows as the verifier builds them from its logits: processed by the
// case's parameters, or, for the planted bug, by none (softmax of the logits). (N, V)
inline std::vector<double> engine_rows(const tevsuite::TreeCase& c, bool apply_sampling) {
  std::vector<double> rows(c.logits.size());
  const auto vocab = static_cast<std::size_t>(c.vocab);
  for (std::int32_t v = 0; v < c.nodes(); ++v) {
    tevsuite::process_logits(
        c.logit_row(v), apply_sampling ? *c.sampling : tevsuite::SamplingParams{},
        std::span<double>(rows).subspan(static_cast<std::size_t>(v) * vocab, vocab));
  }
  return rows;
}

// target_walk on an engine-shaped case, after the verifier processes the logits (or not).
inline tevsuite::Block engine_walk(const tevsuite::TreeCase& c, tevsuite::Draws& draws,
                                   bool apply_sampling) {
  const std::vector<double> rows = engine_rows(c, apply_sampling);
  tevsuite::TreeCase processed = c;
  processed.probs = rows;
  return target_walk(processed, draws);
}

// Speculative sampling on a model case's first position: draft x ~ q, accept with min(1, p/q),
// else the bonus from norm(max(0, p − q)). Engine-shaped: p and q processed from their logits; the
// planted bug hands the acceptance ratio and the residual softmax(q logits), not the drafted q.
inline tevsuite::Block first_position_speculative(const tevsuite::ModelCase& c,
                                                  tevsuite::Randomness& r, bool raw_q_ratio) {
  const auto vocab = static_cast<std::size_t>(c.vocab);
  std::vector<double> p(vocab), q(vocab), q_ratio(vocab);
  tevsuite::process_logits(c.p_logits({}), *c.target_sampling, p);
  tevsuite::process_logits(c.q_logits({}), *c.drafter_sampling, q);
  tevsuite::process_logits(c.q_logits({}),
                           raw_q_ratio ? tevsuite::SamplingParams{} : *c.drafter_sampling, q_ratio);
  const std::int32_t x = draw_from(q, r.uniform());
  const auto at = static_cast<std::size_t>(x);
  if (r.uniform() * q_ratio[at] < p[at]) {
    std::vector<double> next(vocab);
    tevsuite::process_logits(c.p_logits(std::span<const std::int32_t>(&x, 1)), *c.target_sampling,
                             next);
    return {{x}, draw_from(next, r.uniform())};
  }
  std::vector<double> residual(vocab);
  double total = 0.0;
  for (std::size_t a = 0; a < vocab; ++a) total += residual[a] = std::max(0.0, p[a] - q_ratio[a]);
  for (double& w : residual) w /= total;
  return {{}, draw_from(residual, r.uniform())};
}

// Accept nothing, bonus from the root's full row (a drafted child's token is completed by the
// judge): exact, not saturated.
inline tevsuite::Block root_bonus(const tevsuite::TreeCase& c, tevsuite::Randomness& r) {
  return {{}, draw_from(c.row(0), r.uniform())};
}

}  // namespace public_verifiers
