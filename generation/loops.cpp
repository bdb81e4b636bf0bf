#include "generation/loops.hpp"

#include <array>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace tev::generation {

namespace {

using F = Fault;
using D = Drafting;

constexpr std::array kLoops = {
    Loop{"plain", D::none, VerifierId::tree_exit, F::none,
         "plain autoregressive sampling: the reference"},
    Loop{"tev_tree", D::tree, VerifierId::tree_exit, F::none,
         "Tree Exit Verification over a drafted tree"},
    Loop{"walk_tree", D::tree, VerifierId::pathwise_walk, F::none,
         "the pathwise walk over a drafted tree"},
    Loop{"chain_rejection", D::chain, VerifierId::tree_exit, F::none,
         "speculative sampling on a chain sampled from the drafter"},
    Loop{"eos_mid_block_emits_rest", D::chain, VerifierId::tree_exit, F::eos_mid_block_emits_rest,
         "an EOS accepted mid-block, the rest of the block emitted after it (transformers "
         "assisted decoding, koboldcpp)"},
    Loop{"max_tokens_before_stop", D::chain, VerifierId::tree_exit, F::max_tokens_before_stop,
         "max_new_tokens checked before the stop token: tokens after a stop leak (SGLang "
         "update_finish_state)"},
    Loop{"min_tokens_not_in_verifier", D::chain, VerifierId::tree_exit,
         F::min_tokens_not_in_verifier,
         "min_tokens not applied by the rejection sampler: EOS accepted early (vLLM)"},
    Loop{"penalty_state_last_token_only", D::chain, VerifierId::tree_exit,
         F::penalty_state_last_token_only,
         "the penalty state updated with only the last accepted token of each round (SGLang "
         "penalizers)"},
    Loop{"penalties_without_block_drafts", D::chain, VerifierId::tree_exit,
         F::penalties_without_block_drafts,
         "verified rows penalized without the drafted tokens of the same block (relaxed)"},
    Loop{"penalties_on_bonus_only", D::chain, VerifierId::tree_exit, F::penalties_on_bonus_only,
         "penalties applied on the bonus position only (SGLang DFlash)"},
    Loop{"penalties_ignored", D::chain, VerifierId::tree_exit, F::penalties_ignored,
         "penalties ignored by the speculative path (TensorRT-LLM one-model modes, mlx ports)"},
    Loop{"last_token_counted_twice", D::chain, VerifierId::tree_exit, F::last_token_counted_twice,
         "the penalty history counts the last sampled token twice (a vLLM model-runner kernel)"},
    Loop{"grammar_unconstrained_after_padding", D::chain, VerifierId::tree_exit,
         F::grammar_unconstrained_after_padding,
         "the grammar mask left off the row after a padded (short) draft (vLLM structured "
         "output)"},
    Loop{"grammar_not_advanced", D::chain, VerifierId::tree_exit, F::grammar_not_advanced,
         "the grammar state not advanced along the draft path (vLLM structured output)"},
    Loop{"eos_suppressed_at_draft_positions", D::chain, VerifierId::tree_exit,
         F::eos_suppressed_at_draft_positions,
         "EOS suppressed on the rows that test a draft (a proposed engine change)"},
};

std::vector<Token> joined(std::span<const Token> a, std::span<const Token> b) {
  std::vector<Token> out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The tokens the penalties count at a position: the output and the block's tokens before it, or
// what the fault makes of them.
std::vector<Token> penalty_output(const Loop& loop, const GenerationState& s,
                                  std::span<const Token> prefix) {
  switch (loop.fault) {
    case F::penalty_state_last_token_only:
      return joined(s.penalty_history, prefix);
    case F::penalties_without_block_drafts:
      return s.output;
    case F::last_token_counted_twice: {
      std::vector<Token> out = joined(s.output, prefix);
      if (!out.empty()) out.push_back(out.back());
      return out;
    }
    default:
      return joined(s.output, prefix);
  }
}

std::vector<double> computed_target_row(const GenerationCase& c, const Loop& loop,
                                        const GenerationState& s, std::span<const Token> prefix,
                                        bool tests_draft, bool short_draft);

}  // namespace

std::span<const Loop> generation_loops() { return kLoops; }

const Loop& plain_loop() { return kLoops.front(); }

bool is_exact_loop(const Loop& loop) { return loop.fault == F::none; }

std::vector<Token> GenerationState::key() const {
  std::vector<Token> k(output);
  k.push_back(finished ? -2 : -1);
  k.insert(k.end(), penalty_history.begin(), penalty_history.end());
  return k;
}

GenerationState initial_state() { return {}; }

std::size_t RowMemo::Hash::operator()(const std::vector<Token>& key) const {
  std::size_t h = 1469598103934665603ull;  // FNV-1a over the tokens
  for (Token t : key)
    h = (h ^ static_cast<std::size_t>(static_cast<std::uint32_t>(t))) * 1099511628211ull;
  return h;
}

std::span<const double> draft_row(const GenerationCase& c, const GenerationState& s,
                                  std::span<const Token> prefix, RowMemo& memo) {
  // Key: 0, output, −1, prefix (a draft row depends on the tokens before it alone).
  std::vector<Token> key{0};
  key.insert(key.end(), s.output.begin(), s.output.end());
  key.push_back(-1);
  key.insert(key.end(), prefix.begin(), prefix.end());
  return memo.get(key, [&] {
    const std::vector<Token> output = joined(s.output, prefix);
    const Request& r = c.request;
    const RowInputs in{output, static_cast<std::int32_t>(output.size()),
                       r.grammar ? r.grammar->state_after(output) : kUnconstrained};
    return processed_row(r, c.models->draft_logits(joined(r.prompt, output)), in);
  });
}

std::span<const double> target_row(const GenerationCase& c, const Loop& loop,
                                   const GenerationState& s, std::span<const Token> prefix,
                                   bool tests_draft, bool short_draft, RowMemo& memo) {
  // Key: 1 + the two flags, the state's key (its output and what a fault carries), −3, prefix.
  std::vector<Token> key{1 + (tests_draft ? 2 : 0) + (short_draft ? 4 : 0)};
  const std::vector<Token> state = s.key();
  key.insert(key.end(), state.begin(), state.end());
  key.push_back(-3);
  key.insert(key.end(), prefix.begin(), prefix.end());
  return memo.get(
      key, [&] { return computed_target_row(c, loop, s, prefix, tests_draft, short_draft); });
}

namespace {

std::vector<double> computed_target_row(const GenerationCase& c, const Loop& loop,
                                        const GenerationState& s, std::span<const Token> prefix,
                                        bool tests_draft, bool short_draft) {
  const std::vector<Token> output = joined(s.output, prefix);
  Request r = c.request;  // the request as the loop's rows see it
  const bool speculative = loop.drafting != Drafting::none;
  if (speculative) {
    if (loop.fault == F::min_tokens_not_in_verifier) r.min_tokens = 0;
    if (loop.fault == F::penalties_ignored ||
        (loop.fault == F::penalties_on_bonus_only && tests_draft)) {
      r.repetition_penalty = 1.0;
      r.frequency_penalty = r.presence_penalty = 0.0;
    }
    if (loop.fault == F::eos_suppressed_at_draft_positions && tests_draft) {
      // Only the EOS ids: a min_tokens never reached suppresses them (and, in vLLM, the stops).
      r.stop.clear();
      r.min_tokens = std::numeric_limits<std::int32_t>::max();
    }
  }
  std::int32_t grammar_state = kUnconstrained;
  if (r.grammar) {
    const bool unmasked = loop.fault == F::grammar_unconstrained_after_padding && short_draft;
    const bool stale = loop.fault == F::grammar_not_advanced;
    if (!unmasked) grammar_state = r.grammar->state_after(stale ? s.output : output);
  }
  const std::vector<Token> counted = penalty_output(loop, s, prefix);
  const RowInputs in{counted, static_cast<std::int32_t>(output.size()), grammar_state};
  return processed_row(r, c.models->target_logits(joined(r.prompt, output)), in);
}

}  // namespace

std::vector<double> plain_law(const GenerationCase& c, std::span<const Token> output, bool target) {
  for (Token t : output) {
    if (t < 0 || t >= c.models->vocab())
      throw std::invalid_argument("output token " + std::to_string(t) +
                                  " is outside the vocabulary [0, " +
                                  std::to_string(c.models->vocab()) + ")");
  }
  GenerationState s = initial_state();
  s.output.assign(output.begin(), output.end());
  RowMemo memo;
  const auto row =
      target ? target_row(c, plain_loop(), s, {}, false, false, memo) : draft_row(c, s, {}, memo);
  return {row.begin(), row.end()};
}

void append_block(const GenerationCase& c, const Loop& loop, GenerationState& s,
                  std::span<const Token> block) {
  const Request& r = c.request;
  const auto max = static_cast<std::size_t>(r.max_new_tokens);
  if (loop.fault == F::eos_mid_block_emits_rest) {
    bool ended = false;
    for (Token t : block) {
      if (s.output.size() == max) break;
      s.output.push_back(t);
      ended = ended || r.ends_generation(t);
    }
    s.finished = ended || s.output.size() == max;
  } else if (loop.fault == F::max_tokens_before_stop && s.output.size() + block.size() >= max) {
    s.output.insert(s.output.end(), block.begin(),
                    block.begin() + static_cast<std::ptrdiff_t>(max - s.output.size()));
    s.finished = true;
  } else {
    for (Token t : block) {
      s.output.push_back(t);
      if (r.ends_generation(t) || s.output.size() == max) {
        s.finished = true;
        break;
      }
    }
  }
  if (loop.fault == F::penalty_state_last_token_only) s.penalty_history.push_back(s.output.back());
}

DraftTree draft_tree(const GenerationCase& c, const GenerationState& s, RowMemo& memo) {
  std::vector<NodeId> parents{kNoNode};
  std::vector<Token> tokens{kNoToken};
  std::vector<std::vector<Token>> paths{{}};
  // Breadth first: node i's children are the likeliest drafter tokens after its path.
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto depth = static_cast<std::int32_t>(paths[i].size());
    if (depth == kTreeDepth) continue;
    if (!paths[i].empty() && c.request.ends_generation(paths[i].back())) continue;
    const std::span<const double> q = draft_row(c, s, paths[i], memo);
    const std::int32_t width = depth == 0 ? kTreeWidth : 1;
    // The `width` likeliest, ties to the lower id: only they are read, and a full sort costs
    // O(V log V) per node at a real vocabulary.
    std::vector<Token> order(q.size());
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + width, order.end(), [&](Token a, Token b) {
      const double qa = q[static_cast<std::size_t>(a)], qb = q[static_cast<std::size_t>(b)];
      return qa > qb || (qa == qb && a < b);
    });
    for (std::int32_t k = 0;
         k < width && q[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] > 0.0; ++k) {
      parents.push_back(static_cast<NodeId>(i));
      tokens.push_back(order[static_cast<std::size_t>(k)]);
      std::vector<Token> path = paths[i];
      path.push_back(order[static_cast<std::size_t>(k)]);
      paths.push_back(std::move(path));
    }
  }
  return tree_from_parents(parents, tokens, c.models->vocab()).tree;
}

const TreeRound& tree_round(const GenerationCase& c, const Loop& loop, const GenerationState& s,
                            RowMemo& memo) {
  return memo.tree_round(s.key(), [&] {
    DraftTree tree = draft_tree(c, s, memo);
    std::vector<double> probs;  // (N, V)
    for (NodeId v = 0; v < tree.size(); ++v) {
      const std::vector<Token> path = tree.path_tokens(v);
      const auto row = target_row(c, loop, s, path, !tree.is_leaf(v), false, memo);
      probs.insert(probs.end(), row.begin(), row.end());
    }
    TargetRows rows = TargetRows::from_probabilities(probs, tree.size(), tree.vocab);
    return TreeRound{std::move(tree), std::move(rows)};
  });
}

}  // namespace tev::generation
