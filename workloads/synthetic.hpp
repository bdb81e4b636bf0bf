#pragma once
// Synthetic target and draft distributions.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/target_rows.hpp"
#include "core/philox_engine.hpp"

namespace tev::workloads {

enum class RowFamily { dirichlet, zipf, gaussian_logits };

struct RowFamilySpec {
  RowFamily family = RowFamily::dirichlet;
  double parameter = 1.0;    // Dirichlet α, Zipf exponent s, or logit standard deviation σ
  double temperature = 1.0;  // used by gaussian_logits: softmax(σ z / T)
  std::string label() const;
};

// One probability row of the family over `vocab` tokens.
std::vector<double> sample_row(const RowFamilySpec& spec, std::int32_t vocab, PhiloxEngine& engine);

// softmax(log p + noise · z) with z ~ N(0, 1) per token: a draft that is the target perturbed by a
// controllable amount; zero-probability tokens stay at zero.
std::vector<double> perturb_row(std::span<const double> p, double noise, PhiloxEngine& engine);

// KL(p ‖ q) in nats; infinite where q misses mass p has.
double kl_divergence(std::span<const double> p, std::span<const double> q);

// An autoregressive synthetic language: the target's next-token row after a prefix is a fixed
// function of (seed, prefix), and the drafter's row is that row perturbed.
class SyntheticLanguage {
 public:
  SyntheticLanguage(RowFamilySpec spec, std::int32_t vocab, double draft_noise, std::uint32_t seed);
  std::vector<double> target_row(std::span<const Token> prefix) const;
  std::vector<double> draft_row(std::span<const Token> prefix) const;
  // Rows p_v for every node of the tree, in the tree's order.
  TargetRows target_rows_for(const DraftTree& tree) const;
  // Mean KL(target ‖ draft) over the tree's nodes.
  double mean_draft_kl(const DraftTree& tree) const;
  std::int32_t vocab() const { return vocab_; }
  const RowFamilySpec& spec() const { return spec_; }

 private:
  RowFamilySpec spec_;
  std::int32_t vocab_;
  double draft_noise_;
  std::uint32_t seed_;
};

}  // namespace tev::workloads
