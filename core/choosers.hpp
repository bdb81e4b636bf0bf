#pragma once
// Verifiers draw only through a chooser. `categorical(weights)` returns an index with probability
// weights[i] / Σ weights. `next_token(tree, v, weights)` is the same draw over the vocabulary, for
// the token that follows node v, with a promise the verifier keeps: a token that is not one of v's
// drafted children is the bonus, and the verifier returns {v, token} at once, drawing nothing more.
// PhiloxChooser samples (the two draws are one and the same); EnumeratingChooser visits every
// branch with its probability, which turns any verifier into its exact output law. The promise
// lets it lump a token draw into one branch per drafted child plus one for every other token
// together, so a draw over V = 151,936 tokens costs a handful of branches, not V.
// `prepare(compute)` is work a verifier does before its first draw, from the tree and rows alone
// (its exit law, say): enumeration computes it once for all its runs, sampling once per tree when
// it restarts on the same inputs.
#include <any>
#include <cstddef>
#include <deque>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/compensated_sum.hpp"
#include "core/draft_tree.hpp"
#include "core/philox.hpp"
#include "core/sampling.hpp"

namespace tev {

// What a verifier's prepare calls computed, kept by call order for later runs on the same tree and
// rows: a deterministic verifier makes the same calls, before any draw, on every run.
class PreparedResults {
 public:
  template <class Compute>
  const auto& get(Compute&& compute) {
    using Result = decltype(compute());
    if (position_ == results_.size()) results_.emplace_back(compute());
    const Result* kept = std::any_cast<Result>(&results_[position_++]);
    if (kept == nullptr)
      throw std::logic_error("verifier is not a deterministic function of its choices");
    return *kept;
  }
  // Another run on the same inputs: the same calls get the kept results.
  void rewind() { position_ = 0; }
  void clear() {
    results_.clear();
    position_ = 0;
  }

 private:
  std::deque<std::any> results_;  // in call order (a deque: references to them stay valid)
  std::size_t position_ = 0;
};

class PhiloxChooser {
 public:
  explicit PhiloxChooser(const DrawSite& site, DrawLayout layout = DrawLayout::one_per_block)
      : draws_(site, layout) {}
  // Starts another sample's draw sequence in the same layout, keeping the scratch buffer.
  void restart(const DrawSite& site) {
    draws_ = DrawCounter(site, draws_.layout());
    prepared_.clear();
  }
  // The same, for a sample of the same tree and rows: what prepare computed is kept, so a
  // verifier's setup (its exit law, say) runs once per tree instead of once per sample.
  void restart_same_inputs(const DrawSite& site) {
    draws_ = DrawCounter(site, draws_.layout());
    prepared_.rewind();
  }

  std::size_t categorical(std::span<const double> weights) {
    const auto n = static_cast<std::int32_t>(weights.size());
    cumulative_.resize(weights.size());
    cumulate(weights.data(), n, cumulative_.data());
    if (n == 0 || !(cumulative_.back() > 0.0))
      throw std::logic_error("categorical draw over zero total weight");
    return static_cast<std::size_t>(pick_cumulative(cumulative_.data(), n, draws_.next()));
  }

  Token next_token(const DraftTree& /*tree*/, NodeId /*v*/, std::span<const double> weights) {
    return static_cast<Token>(categorical(weights));
  }

  template <class Compute>
  const auto& prepare(Compute&& compute) {
    return prepared_.get(compute);
  }

 private:
  DrawCounter draws_;
  PreparedResults prepared_;
  std::vector<double> cumulative_;  // (weights) scratch reused across draws
};

// How EnumeratingChooser branches on next_token.
enum class TokenDraws {
  lumped,     // one branch per drafted child token with weight, one for all other tokens together
  per_token,  // one branch per token with weight: for a verifier that breaks next_token's promise
};

// A verifier drew again after a lumped outcome: its token draws cannot be lumped.
struct LumpingRefused : std::logic_error {
  using std::logic_error::logic_error;
};
// The enumeration would take more branches (runs of the verifier) than its budget.
struct EnumerationBudgetExceeded : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Enough for any verifier's per-token enumeration on the small trees of the synthetic suites, too
// few for one per-token draw over a real vocabulary (72,547 or 151,936 tokens): a fallback there
// stops at once and says why, instead of running for hours.
inline constexpr std::size_t kEnumerationBranchBudget = std::size_t{1} << 16;

// The non-child outcomes of one lumped token draw: for every token a with weights[a] > 0 the run
// ends with bonus a at `node`, with probability (the branch's probability) · weights[a] / total.
struct Lump {
  NodeId node = kNoNode;
  Token representative =
      kNoToken;  // the token the run was replayed with: the first one of the lump
  std::span<const double>
      weights;         // (V) the draw's weights with node's drafted child tokens zeroed
  double total = 0.0;  // compensated total of the draw's weights, children included
  double mass = 0.0;   // Σ weights / total: the lump's share of the draw
};

// One leaf of an enumeration: the probability of its choices, and the lump when its last draw was
// a lumped outcome (whose share is not in `probability`).
struct Branch {
  double probability = 1.0;
  const Lump* lump = nullptr;
};

// Depth-first enumeration by replay: each run follows the recorded choices, takes the first
// branch at every new draw, and `advance` moves to the next unexplored branch. Draws are lazy: a
// node's draw exists only on the runs that reach it.
class EnumeratingChooser {
 public:
  explicit EnumeratingChooser(TokenDraws token_draws = TokenDraws::lumped,
                              std::size_t max_branches = kEnumerationBranchBudget)
      : token_draws_(token_draws), max_branches_(max_branches) {}

  std::size_t categorical(std::span<const double> weights) {
    return draw(weights, nullptr, kNoNode);
  }

  Token next_token(const DraftTree& tree, NodeId v, std::span<const double> weights) {
    return static_cast<Token>(draw(weights, &tree, v));
  }

  // Before any draw a deterministic verifier makes the same prepare calls in every run, so the
  // k-th call's result is kept from the first run for all the others.
  template <class Compute>
  const auto& prepare(Compute&& compute) {
    if (position_ != 0)
      throw std::logic_error("prepare called after a draw: its result could depend on the choices");
    return prepared_.get(compute);
  }

  Branch branch() const {
    Branch b;
    for (const Choice& c : trail_) {
      if (c.at_lump()) {
        b.lump = &c.lump;
      } else {
        b.probability *= c.outcomes[c.at].second / c.total;
      }
    }
    return b;
  }

  // Leaves of the enumeration tree found so far; after the last run, the number of runs.
  std::size_t branches() const { return branches_; }

  // Moves to the next branch; false when every branch has been visited.
  bool advance() {
    if (position_ != trail_.size())
      throw std::logic_error("verifier is not a deterministic function of its choices");
    position_ = 0;
    prepared_.rewind();
    lumped_run_ = false;
    while (!trail_.empty()) {
      Choice& last = trail_.back();
      if (++last.at < last.branch_count()) return true;
      trail_.pop_back();
    }
    return false;
  }

 private:
  struct Choice {
    std::size_t size =
        0;  // outcomes the draw was over: a replay must draw over as many, at the same node
    NodeId node = kNoNode;
    double total = 0.0;  // compensated total of the draw's weights
    std::vector<std::pair<std::size_t, double>>
        outcomes;                      // (index, weight) of each branch but the lump
    std::vector<double> lump_weights;  // (V) what lump.weights views; empty without a lump
    Lump lump;                         // set only when lumped()
    std::size_t at = 0;                // the branch this run takes

    bool lumped() const { return !lump_weights.empty(); }
    std::size_t branch_count() const { return outcomes.size() + (lumped() ? 1 : 0); }
    bool at_lump() const { return lumped() && at == outcomes.size(); }
  };

  std::size_t draw(std::span<const double> weights, const DraftTree* tree, NodeId v) {
    if (lumped_run_)
      throw LumpingRefused(
          "the verifier drew again after a token that ends the walk (a non-child outcome of "
          "next_token)");
    if (position_ == trail_.size()) {
      trail_.push_back(new_choice(weights, tree, v));
      branches_ += trail_.back().branch_count() - 1;
      if (branches_ > max_branches_) {
        throw EnumerationBudgetExceeded(
            "exact enumeration needs more than " + std::to_string(max_branches_) + " branches" +
            (token_draws_ == TokenDraws::per_token ? " when it branches once per token" : ""));
      }
    } else if (trail_[position_].size != weights.size() || trail_[position_].node != v) {
      throw std::logic_error("verifier is not a deterministic function of its choices");
    }
    const Choice& c = trail_[position_++];
    if (c.at_lump()) {
      lumped_run_ = true;
      return static_cast<std::size_t>(c.lump.representative);
    }
    return c.outcomes[c.at].first;
  }

  Choice new_choice(std::span<const double> weights, const DraftTree* tree, NodeId v) const {
    Choice c;
    c.size = weights.size();
    c.node = v;
    c.total = compensated_total(weights);
    if (!(c.total > 0.0)) throw std::logic_error("categorical draw over zero total weight");
    if (tree == nullptr || token_draws_ == TokenDraws::per_token) {
      for (std::size_t i = 0; i < weights.size(); ++i) {
        if (weights[i] > 0.0) c.outcomes.emplace_back(i, weights[i]);
      }
      return c;
    }
    std::vector<double> rest(weights.begin(), weights.end());
    for (NodeId u = tree->first_child[v]; u < tree->first_child[v] + tree->child_count[v]; ++u) {
      const auto x = static_cast<std::size_t>(tree->token[u]);
      if (weights[x] > 0.0) c.outcomes.emplace_back(x, weights[x]);
      rest[x] = 0.0;
    }
    for (std::size_t a = 0; a < rest.size(); ++a) {
      if (rest[a] > 0.0) {
        c.lump_weights = std::move(rest);
        c.lump = {v, static_cast<Token>(a), c.lump_weights, c.total,
                  compensated_total(c.lump_weights) / c.total};
        break;
      }
    }
    return c;
  }

  TokenDraws token_draws_;
  std::size_t max_branches_;
  std::vector<Choice> trail_;
  std::size_t position_ = 0;
  std::size_t branches_ = 1;
  bool lumped_run_ = false;  // this run took a lumped outcome: any further draw breaks the promise
  PreparedResults prepared_;
};

// Calls visit(outcome, branch) once per branch of run(chooser); the probabilities, lumps'
// shares included, sum to 1. Returns the number of runs.
template <class Run, class Visit>
std::size_t enumerate_outcomes(Run&& run, Visit&& visit,
                               EnumeratingChooser chooser = EnumeratingChooser()) {
  do {
    const auto outcome = run(chooser);
    visit(outcome, chooser.branch());
  } while (chooser.advance());
  return chooser.branches();
}

}  // namespace tev
