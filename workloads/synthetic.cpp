#include "workloads/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/compensated_sum.hpp"
#include "core/softmax.hpp"

namespace tev::workloads {

namespace {
void normalize(std::vector<double>& row) {
  const double total = compensated_total(row);
  for (double& x : row) x /= total;
}

// FNV-1a over the prefix: the id that keys a prefix's row in the generation stream.
std::uint32_t prefix_id(std::span<const Token> prefix) {
  std::uint32_t h = 2166136261u;
  for (Token t : prefix) {
    for (int byte = 0; byte < 4; ++byte) {
      h ^= (static_cast<std::uint32_t>(t) >> (8 * byte)) & 0xffu;
      h *= 16777619u;
    }
  }
  return h ^ static_cast<std::uint32_t>(prefix.size());
}
}  // namespace

std::string RowFamilySpec::label() const {
  switch (family) {
    case RowFamily::dirichlet:
      return "dirichlet(alpha=" + std::to_string(parameter).substr(0, 4) + ")";
    case RowFamily::zipf:
      return "zipf(s=" + std::to_string(parameter).substr(0, 4) + ")";
    case RowFamily::gaussian_logits:
      return "logits(sigma=" + std::to_string(parameter).substr(0, 4) +
             ",T=" + std::to_string(temperature).substr(0, 4) + ")";
  }
  return "unknown";
}

std::vector<double> sample_row(const RowFamilySpec& spec, std::int32_t vocab,
                               PhiloxEngine& engine) {
  if (vocab <= 0) throw std::invalid_argument("vocabulary must be positive");
  std::vector<double> row(static_cast<std::size_t>(vocab));
  switch (spec.family) {
    case RowFamily::dirichlet: {
      std::gamma_distribution<double> gamma(spec.parameter, 1.0);
      for (double& x : row) x = gamma(engine);
      // With tiny α every gamma draw can underflow; the limit law is one-hot.
      if (!(compensated_total(row) > 0.0)) row[engine() % row.size()] = 1.0;
      break;
    }
    case RowFamily::zipf: {
      std::vector<std::int32_t> rank(row.size());
      std::iota(rank.begin(), rank.end(), 0);
      std::shuffle(rank.begin(), rank.end(), engine);
      for (std::size_t a = 0; a < row.size(); ++a)
        row[a] = std::pow(rank[a] + 1.0, -spec.parameter);
      break;
    }
    case RowFamily::gaussian_logits: {
      std::normal_distribution<double> normal(0.0, spec.parameter);
      std::vector<double> logits(row.size());
      for (double& z : logits) z = normal(engine) / spec.temperature;
      softmax(logits, row);
      return row;
    }
  }
  normalize(row);
  return row;
}

std::vector<double> perturb_row(std::span<const double> p, double noise, PhiloxEngine& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> logq(p.size());
  for (std::size_t a = 0; a < p.size(); ++a) {
    const double z = normal(engine);  // drawn for every token so streams stay aligned
    logq[a] = p[a] > 0.0 ? std::log(p[a]) + noise * z : -std::numeric_limits<double>::infinity();
  }
  softmax(logq, logq);
  return logq;
}

double kl_divergence(std::span<const double> p, std::span<const double> q) {
  CompensatedSum kl;
  for (std::size_t a = 0; a < p.size(); ++a) {
    if (p[a] <= 0.0) continue;
    if (q[a] <= 0.0) return std::numeric_limits<double>::infinity();
    kl.add(p[a] * std::log(p[a] / q[a]));
  }
  return kl.value();
}

SyntheticLanguage::SyntheticLanguage(RowFamilySpec spec, std::int32_t vocab, double draft_noise,
                                     std::uint32_t seed)
    : spec_(spec), vocab_(vocab), draft_noise_(draft_noise), seed_(seed) {
  if (vocab <= 1) throw std::invalid_argument("vocabulary must have at least 2 tokens");
  if (!(draft_noise >= 0.0)) throw std::invalid_argument("draft noise must be non-negative");
}

std::vector<double> SyntheticLanguage::target_row(std::span<const Token> prefix) const {
  PhiloxEngine engine(seed_, uses::synthetic_target_rows, prefix_id(prefix));
  return sample_row(spec_, vocab_, engine);
}

std::vector<double> SyntheticLanguage::draft_row(std::span<const Token> prefix) const {
  PhiloxEngine engine(seed_, uses::synthetic_draft_rows, prefix_id(prefix));
  return perturb_row(target_row(prefix), draft_noise_, engine);
}

TargetRows SyntheticLanguage::target_rows_for(const DraftTree& tree) const {
  std::vector<double> probs;
  probs.reserve(static_cast<std::size_t>(tree.size()) * static_cast<std::size_t>(vocab_));
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto row = target_row(tree.path_tokens(v));
    probs.insert(probs.end(), row.begin(), row.end());
  }
  return TargetRows::from_probabilities(probs, tree.size(), vocab_);
}

double SyntheticLanguage::mean_draft_kl(const DraftTree& tree) const {
  double total = 0.0;
  for (NodeId v = 0; v < tree.size(); ++v) {
    const auto path = tree.path_tokens(v);
    total += kl_divergence(target_row(path), draft_row(path));
  }
  return total / tree.size();
}

}  // namespace tev::workloads
