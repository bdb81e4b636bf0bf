#pragma once
// Verifiers draw only through a chooser: `categorical(weights)` returns an index with probability
// weights[i] / Σ weights. PhiloxChooser samples; EnumeratingChooser visits every branch with its
// probability, which turns any verifier into its exact output law on a small tree.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <vector>

#include "core/compensated_sum.hpp"
#include "core/philox.hpp"
#include "core/sampling.hpp"

namespace tev {

class PhiloxChooser {
 public:
  explicit PhiloxChooser(const DrawSite& site) : draws_(site) {}
  // Starts another sample's draw sequence, keeping the scratch buffer.
  void restart(const DrawSite& site) { draws_ = DrawCounter(site); }

  std::size_t categorical(std::span<const double> weights) {
    const auto n = static_cast<std::int32_t>(weights.size());
    cumulative_.resize(weights.size());
    cumulate(weights.data(), n, cumulative_.data());
    if (n == 0 || !(cumulative_.back() > 0.0)) throw std::logic_error("categorical draw over zero total weight");
    return static_cast<std::size_t>(pick_cumulative(cumulative_.data(), n, draws_.next()));
  }

 private:
  DrawCounter draws_;
  std::vector<double> cumulative_;  // (weights) scratch reused across draws
};

// Depth-first enumeration by replay: each run follows the recorded choices, takes the first
// positive-weight branch at every new draw, and `advance` moves to the next unexplored branch.
// Draws are lazy: a node's draw exists only on the runs that reach it.
class EnumeratingChooser {
 public:
  std::size_t categorical(std::span<const double> weights) {
    if (position_ == trail_.size()) {
      Choice choice{std::vector<double>(weights.begin(), weights.end()), compensated_total(weights), 0};
      if (!(choice.total > 0.0)) throw std::logic_error("categorical draw over zero total weight");
      choice.index = next_positive(choice.weights, 0);
      trail_.push_back(std::move(choice));
    } else if (trail_[position_].weights.size() != weights.size()) {
      throw std::logic_error("verifier is not a deterministic function of its choices");
    }
    return trail_[position_++].index;
  }

  double path_probability() const {
    double p = 1.0;
    for (const Choice& c : trail_) p *= c.weights[c.index] / c.total;
    return p;
  }

  // Moves to the next branch; false when every branch has been visited.
  bool advance() {
    if (position_ != trail_.size()) throw std::logic_error("verifier is not a deterministic function of its choices");
    position_ = 0;
    while (!trail_.empty()) {
      Choice& last = trail_.back();
      last.index = next_positive(last.weights, last.index + 1);
      if (last.index < last.weights.size()) return true;
      trail_.pop_back();
    }
    return false;
  }

 private:
  struct Choice {
    std::vector<double> weights;
    double total;
    std::size_t index;
  };
  static std::size_t next_positive(const std::vector<double>& w, std::size_t from) {
    while (from < w.size() && !(w[from] > 0.0)) ++from;
    return from;
  }
  std::vector<Choice> trail_;
  std::size_t position_ = 0;
};

// Calls visit(outcome, probability) once per branch of run(chooser); the probabilities sum to 1.
template <class Run, class Visit>
void enumerate_outcomes(Run&& run, Visit&& visit) {
  EnumeratingChooser chooser;
  do {
    const auto outcome = run(chooser);
    visit(outcome, chooser.path_probability());
  } while (chooser.advance());
}

}  // namespace tev
