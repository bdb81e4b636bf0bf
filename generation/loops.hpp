#pragma once
// Speculative generation loops, whole: rounds of drafting, verification and the engine's own
// bookkeeping (the stop checks, the penalty state, the grammar state, min_tokens) until the
// request finishes, and the plain loop they must agree with in law. Each loop draws only through
// a chooser, so one definition both samples (PhiloxChooser) and is enumerated exactly
// (EnumeratingChooser, round by round, generation/exact_law.hpp). The planted faults are the
// bugs engines have shipped in that bookkeeping; each sits at the one place its engine got wrong.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/rejection_sampling.hpp"
#include "core/target_rows.hpp"
#include "core/verifier_catalog.hpp"
#include "generation/model.hpp"
#include "generation/request.hpp"

namespace tev::generation {

// A request on a pair of models: what one generation runs.
struct GenerationCase {
  std::string id;
  std::shared_ptr<const ModelPair> models;  // shared: cases are copied, real models are large
  Request request;
};

enum class Drafting {
  none,   // plain generation: one target token per round
  chain,  // up to kChainDrafts tokens sampled from the drafter, speculative sampling
  tree,   // a tree of the drafter's likeliest tokens, a target-only tree verifier
};

enum class Fault {
  none,
  eos_mid_block_emits_rest,        // the stop is checked only at the block's end
  max_tokens_before_stop,          // a block crossing max_new_tokens is cut there, stops unseen
  min_tokens_not_in_verifier,      // verified rows lack min_tokens' suppression
  penalty_state_last_token_only,   // the penalty state counts one token per round
  penalties_without_block_drafts,  // verified rows count the output, not the block's drafts
  penalties_on_bonus_only,         // rows that test a draft are unpenalized
  penalties_ignored,               // the speculative path applies no penalty
  last_token_counted_twice,        // the penalty history holds the last token twice
  grammar_unconstrained_after_padding,  // the bonus row after a short draft has no mask
  grammar_not_advanced,                 // verified rows keep the round's first grammar state
  eos_suppressed_at_draft_positions,    // EOS masked on every row that tests a draft
};

struct Loop {
  std::string_view name;
  Drafting drafting = Drafting::none;
  VerifierId verifier = VerifierId::tree_exit;  // Drafting::tree only
  Fault fault = Fault::none;
  std::string_view description;  // for faults: the engine bug it stands for
};

inline constexpr std::int32_t kChainDrafts = 2;
// A chain stops drafting where the drafter's likeliest token has less than this probability (a
// dynamic draft length): rows after such a short draft are the padded rows engines mishandle.
inline constexpr double kDraftConfidence = 0.7;
// Tree drafting: the drafter's kTreeWidth likeliest tokens at the root, then one token each.
inline constexpr std::int32_t kTreeWidth = 2;
inline constexpr std::int32_t kTreeDepth = 2;

// The plain reference first, then the exact speculative loops, then the faulty ones.
std::span<const Loop> generation_loops();
const Loop& plain_loop();
bool is_exact_loop(const Loop& loop);

// What a generation carries from one round to the next.
struct GenerationState {
  std::vector<Token> output;
  bool finished = false;
  std::int64_t rounds = 0;
  // Fault::penalty_state_last_token_only: the tokens the engine's penalty state has counted.
  std::vector<Token> penalty_history;
  // The state's identity for enumeration (rounds excluded: they do not change what follows).
  std::vector<Token> key() const;
};

GenerationState initial_state();

// A tree round's drafted tree and the target rows on its nodes: a function of the state alone.
struct TreeRound {
  DraftTree tree;
  TargetRows rows;
};

// Rows (and tree rounds) already computed by one sampler thread for one loop on one case: a row is
// a function of the state and the block's prefix, and a few hundred states recur over thousands of
// generations.
class RowMemo {
 public:
  template <class Compute>
  std::span<const double> get(const std::vector<Token>& key, Compute&& compute) {
    auto it = rows_.find(key);
    if (it == rows_.end()) it = rows_.emplace(key, compute()).first;
    return it->second;
  }
  template <class Compute>
  const TreeRound& tree_round(const std::vector<Token>& key, Compute&& compute) {
    auto it = trees_.find(key);
    if (it == trees_.end()) it = trees_.emplace(key, std::make_unique<TreeRound>(compute())).first;
    return *it->second;
  }

 private:
  struct Hash {
    std::size_t operator()(const std::vector<Token>& key) const;
  };
  std::unordered_map<std::vector<Token>, std::vector<double>, Hash> rows_;
  std::unordered_map<std::vector<Token>, std::unique_ptr<TreeRound>, Hash> trees_;  // by state
};

// The processed rows of one round at `prefix` (tokens after the output within the block), as
// the loop computes them; `tests_draft`: the row tests a drafted token (else it draws the bonus);
// `short_draft`: a chain's bonus row after fewer than kChainDrafts drafts. With a memo, a row
// computed before is read back (the memo must be the loop's and the case's alone).
std::span<const double> target_row(const GenerationCase& c, const Loop& loop,
                                   const GenerationState& s, std::span<const Token> prefix,
                                   bool tests_draft, bool short_draft, RowMemo& memo);
std::span<const double> draft_row(const GenerationCase& c, const GenerationState& s,
                                  std::span<const Token> prefix, RowMemo& memo);

// The law plain generation draws from after `output` (target), or the drafter's processed the
// same way; throws std::invalid_argument on a token outside the vocabulary.
std::vector<double> plain_law(const GenerationCase& c, std::span<const Token> output, bool target);

// Appends a verified block to the output with the loop's stop checks.
void append_block(const GenerationCase& c, const Loop& loop, GenerationState& s,
                  std::span<const Token> block);

// A tree of the drafter's likeliest tokens after the output, its nodes' drafted tokens distinct
// and of positive drafter mass, nothing drafted after a token that ends generation.
DraftTree draft_tree(const GenerationCase& c, const GenerationState& s, RowMemo& memo);

// The tree round at the state: draft_tree and the loop's target rows on its nodes, memoized.
const TreeRound& tree_round(const GenerationCase& c, const Loop& loop, const GenerationState& s,
                            RowMemo& memo);

namespace detail {

// The chain as speculative_sampling reads it: node d drafts its token from q lazily, through the
// same chooser as the verification, so an enumeration branches on the drafts too.
template <class Chooser>
class ChainDrafts {
 public:
  ChainDrafts(const GenerationCase& c, const Loop& loop, const GenerationState& s, Chooser& chooser,
              RowMemo& memo)
      : c_(c), loop_(loop), s_(s), chooser_(chooser), memo_(memo) {}

  const DraftedNode& node(std::span<const Token> prefix) {
    const std::size_t depth = prefix.size();
    while (nodes_.size() <= depth) extend(prefix.first(nodes_.size()));
    return nodes_[depth];
  }

 private:
  void extend(std::span<const Token> prefix) {
    DraftedNode& n = nodes_.emplace_back();
    n.q = draft_row(c_, s_, prefix, memo_);
    const bool after_end = !prefix.empty() && c_.request.ends_generation(prefix.back());
    const bool confident = *std::max_element(n.q.begin(), n.q.end()) >= kDraftConfidence;
    const bool drafts =
        static_cast<std::int32_t>(prefix.size()) < kChainDrafts && !after_end && confident;
    const bool short_draft = !drafts && static_cast<std::int32_t>(prefix.size()) < kChainDrafts;
    n.p = target_row(c_, loop_, s_, prefix, drafts, short_draft, memo_);
    if (drafts) n.drafts.push_back(static_cast<Token>(chooser_.categorical(n.q)));
  }

  const GenerationCase& c_;
  const Loop& loop_;
  const GenerationState& s_;
  Chooser& chooser_;
  RowMemo& memo_;
  std::deque<DraftedNode>
      nodes_;  // (depth) a deque: references speculative_sampling holds stay valid
};

}  // namespace detail

// One round: the loop's block from the state, appended with its stop checks.
template <class Chooser>
void run_round(const GenerationCase& c, const Loop& loop, GenerationState& s, Chooser& chooser,
               RowMemo& memo) {
  std::vector<Token> block;
  switch (loop.drafting) {
    case Drafting::none:
      block.push_back(
          static_cast<Token>(chooser.categorical(target_row(c, loop, s, {}, false, false, memo))));
      break;
    case Drafting::chain: {
      detail::ChainDrafts<Chooser> drafts(c, loop, s, chooser, memo);
      block = speculative_sampling(drafts, chooser);
      break;
    }
    case Drafting::tree: {
      const TreeRound& round = tree_round(c, loop, s, memo);
      const Block b = run_verifier(loop.verifier, round.tree, round.rows, chooser);
      block = round.tree.path_tokens(b.exit);
      block.push_back(b.bonus);
      break;
    }
  }
  append_block(c, loop, s, block);
  ++s.rounds;
}

// One whole generation.
template <class Chooser>
GenerationState generate(const GenerationCase& c, const Loop& loop, Chooser& chooser,
                         RowMemo& memo) {
  GenerationState s = initial_state();
  while (!s.finished) run_round(c, loop, s, chooser, memo);
  return s;
}

}  // namespace tev::generation
