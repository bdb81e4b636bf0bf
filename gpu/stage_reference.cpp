#include "gpu/stage_reference.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/sampling.hpp"
#include "gpu/device_api.hpp"

namespace tev::gpu {

namespace {

// The verifier stage's law in double: every row's masses e_a = exp(x_a) from the float32 x_a
// that every implementation computes, and TEV's exit weights w from them.
class Reference {
 public:
  Reference(const DraftTree& tree, const LogitRows& logits)
      : tree_(tree),
        vocab_(static_cast<std::size_t>(tree.vocab)),
        exps_(static_cast<std::size_t>(tree.size()) * vocab_) {
    const auto inverse_t = static_cast<float>(1.0 / logits.temperature);
    for (NodeId v = 0; v < tree.size(); ++v) {
      const std::span<const float> row = logits.row(v);
      const float top = *std::max_element(row.begin(), row.end());
      for (std::size_t a = 0; a < vocab_; ++a)
        exps_[offset(v) + a] = std::exp(static_cast<double>((row[a] - top) * inverse_t));
    }
    exit_weights();
  }

  // Why `b` is not call `call`'s answer up to `error` (see compare_stage_blocks), or "" when it is.
  std::string mismatch(StageVerifier verifier, const Block& b, std::uint64_t call,
                       double error) const {
    if (b.exit < 0 || b.exit >= tree_.size()) return "exit node out of range";
    const DrawCounter draws(stage_draw_site(call));
    if (verifier == StageVerifier::tev) {
      // P and ρ compound one ratio of row sums per level, each ratio off by up to 2 · error.
      const double exit_error = (2.0 * tree_.max_depth() + 2.0) * error;
      const double below = b.exit > 0 ? cumulative_w_[static_cast<std::size_t>(b.exit) - 1] : 0.0;
      if (!answers(below, w_[static_cast<std::size_t>(b.exit)], cumulative_w_.back(), draws.at(0),
                   exit_error)) {
        return "the exit draw (u = " + std::to_string(draws.at(0)) + ") does not reach node " +
               std::to_string(b.exit);
      }
      return draw_mismatch(b.exit, b.bonus, children(b.exit), draws.at(1), error, "bonus");
    }
    // Predraw: the path's draws are the next node's token at each ancestor, the bonus at the exit.
    if (tree_.child_with_token(b.exit, b.bonus) != kNoNode)
      return "the bonus is a drafted child's token: predraw would have followed it";
    std::string wrong = draw_mismatch(b.exit, b.bonus, {},
                                      draws.at(static_cast<std::uint32_t>(b.exit)), error, "bonus");
    for (NodeId c = b.exit; wrong.empty() && c != 0; c = tree_.parent[c]) {
      const NodeId a = tree_.parent[c];
      wrong = draw_mismatch(a, tree_.token[c], {}, draws.at(static_cast<std::uint32_t>(a)), error,
                            "R_" + std::to_string(a));
    }
    return wrong;
  }

 private:
  std::size_t offset(NodeId v) const { return static_cast<std::size_t>(v) * vocab_; }

  std::vector<Token> children(NodeId v) const {
    std::vector<Token> tokens;
    for (NodeId c = tree_.first_child[v]; c < tree_.first_child[v] + tree_.child_count[v]; ++c)
      tokens.push_back(tree_.token[c]);
    return tokens;
  }

  // An inverse-CDF answer whose interval is (below, below + mass] of total, for uniform u, when
  // rounding of up to `error` · total in the target and in the boundaries is allowed.
  static bool answers(double below, double mass, double total, double u, double error) {
    const double target = u * total, window = 2.0 * error * total;
    return mass > 0.0 && below - window < target && target <= below + mass + window;
  }

  std::string draw_mismatch(NodeId v, Token token, const std::vector<Token>& excluded, double u,
                            double error, const std::string& what) const {
    if (token < 0 || token >= tree_.vocab) return what + " out of range";
    const auto is_excluded = [&](std::size_t a) {
      return std::find(excluded.begin(), excluded.end(), static_cast<Token>(a)) != excluded.end();
    };
    if (is_excluded(static_cast<std::size_t>(token)))
      return what + " " + std::to_string(token) + " is a drafted child's token";
    double below = 0.0, total = 0.0;  // summed directly over the tokens not excluded
    for (std::size_t a = 0; a < vocab_; ++a) {
      if (is_excluded(a)) continue;
      if (a < static_cast<std::size_t>(token)) below += exps_[offset(v) + a];
      total += exps_[offset(v) + a];
    }
    if (answers(below, exps_[offset(v) + static_cast<std::size_t>(token)], total, u, error))
      return "";
    return what + " " + std::to_string(token) + " is not row " + std::to_string(v) +
           "'s answer to u = " + std::to_string(u);
  }

  // TEV's law: P(root) = 1, P(c) = P(v) e_{x_c} / Σ e, w(v) = P(v) ρ(v) with ρ summed directly
  // over the non-child tokens; w = P at a leaf. Cumulated in node order, as TEV's exit draw is.
  void exit_weights() {
    const auto n = static_cast<std::size_t>(tree_.size());
    std::vector<double> prefix(n, 0.0);
    w_.assign(n, 0.0);
    prefix[0] = 1.0;
    for (NodeId v = 0; v < tree_.size(); ++v) {
      const auto i = static_cast<std::size_t>(v);
      if (tree_.is_leaf(v)) {
        w_[i] = prefix[i];
        continue;
      }
      const std::vector<Token> tokens = children(v);
      double total = 0.0, rest = 0.0;
      for (std::size_t a = 0; a < vocab_; ++a) {
        total += exps_[offset(v) + a];
        if (std::find(tokens.begin(), tokens.end(), static_cast<Token>(a)) == tokens.end())
          rest += exps_[offset(v) + a];
      }
      for (NodeId c = tree_.first_child[v]; c < tree_.first_child[v] + tree_.child_count[v]; ++c) {
        prefix[static_cast<std::size_t>(c)] =
            prefix[i] * exps_[offset(v) + static_cast<std::size_t>(tree_.token[c])] / total;
      }
      w_[i] = prefix[i] * rest / total;
    }
    cumulative_w_.resize(n);
    cumulate(w_.data(), tree_.size(), cumulative_w_.data());
  }

  const DraftTree& tree_;
  std::size_t vocab_;
  std::vector<double> exps_;          // (N, V) e_a of each node's row
  std::vector<double> w_;             // (N) exit law
  std::vector<double> cumulative_w_;  // (N)
};

}  // namespace

std::vector<Block> cpu_stage_blocks(StageVerifier verifier, const DraftTree& tree,
                                    const LogitRows& logits, std::int32_t calls, int threads) {
  LogitScratch scratch(tree.vocab, tree.size());
  std::vector<Block> blocks;
  for (std::int32_t i = 0; i < calls; ++i) {
    DrawCounter draws(stage_draw_site(static_cast<std::uint64_t>(i)));
    blocks.push_back(verifier == StageVerifier::tev
                         ? tev_from_logits(tree, logits, draws, scratch, threads)
                         : predraw_eager_from_logits(tree, logits, draws, scratch, threads));
  }
  return blocks;
}

StageAgreement compare_stage_blocks(StageVerifier verifier, const DraftTree& tree,
                                    const LogitRows& logits, std::span<const Block> device,
                                    std::span<const Block> cpu, double device_error) {
  if (device.size() != cpu.size())
    throw std::invalid_argument("compare_stage_blocks: as many CPU blocks as device blocks");
  const Reference reference(tree, logits);
  StageAgreement result;
  result.calls = static_cast<std::int32_t>(device.size());
  const auto describe = [](const Block& b) {
    std::ostringstream text;
    text << '(' << b.exit << ", " << b.bonus << ')';
    return text.str();
  };
  for (std::size_t i = 0; i < device.size(); ++i) {
    const std::string call = "call " + std::to_string(i) + ": block " + describe(device[i]) + ": ";
    if (const std::string wrong = reference.mismatch(verifier, device[i], i, device_error);
        !wrong.empty()) {
      result.failures.push_back(call + wrong);
    } else if (device[i] == cpu[i]) {
      ++result.identical;
    } else if (const std::string cpu_wrong = reference.mismatch(verifier, cpu[i], i, kCpuRowError);
               cpu_wrong.empty()) {
      ++result.ties;
    } else {
      result.failures.push_back(call + "the CPU's block " + describe(cpu[i]) +
                                " differs and is no rounding tie: " + cpu_wrong);
    }
  }
  return result;
}

}  // namespace tev::gpu
