#include "core/logit_verifiers.hpp"

#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "core/row_kernels.hpp"
#include "core/sampling.hpp"

namespace tev {

RowExps::RowExps(std::int32_t vocab)
    : block_max_((static_cast<std::size_t>(vocab) + kRowBlock - 1) / kRowBlock),
      block_factor_(block_max_.size()),
      block_sums_(block_max_.size()),
      block_(kRowBlock) {}

void RowExps::compute(std::span<const float> logits, double temperature) {
  logits_ = logits;
  scale_ = static_cast<float>(1.0 / temperature);
  row_kernels().blocks(logits.data(), logits.size(), scale_, block_max_.data(),
                       block_factor_.data(), block_sums_.data(), &total_);
}

double RowExps::at(Token a) const {
  const auto i = static_cast<std::size_t>(a), b = i / kRowBlock;
  if (block_factor_[b] == 0.0f) return 0.0;
  float e = 0.0f;
  row_kernels().exp_store_sum(logits_.data() + i, 1, block_max_[b], scale_, &e);
  return static_cast<double>(e) * static_cast<double>(block_factor_[b]);
}

double RowExps::block_without(std::size_t b, std::span<const Token> excluded) const {
  const std::size_t begin = b * kRowBlock, len = std::min(kRowBlock, logits_.size() - begin);
  const bool touched = std::any_of(excluded.begin(), excluded.end(), [&](Token t) {
    return static_cast<std::size_t>(t) >= begin && static_cast<std::size_t>(t) < begin + len;
  });
  if (!touched || block_factor_[b] == 0.0f) return block_sums_[b];
  // The same lanes in the same order with the excluded tokens adding exactly nothing, so the
  // result never exceeds the block's sum.
  std::copy_n(logits_.data() + begin, len, block_.data());
  for (Token t : excluded) {
    const auto i = static_cast<std::size_t>(t);
    if (i >= begin && i < begin + len) block_[i - begin] = -std::numeric_limits<float>::infinity();
  }
  return row_kernels().exp_sum(block_.data(), len, block_max_[b], scale_) *
         static_cast<double>(block_factor_[b]);
}

double RowExps::total_without(std::span<const Token> excluded) const {
  double rest = 0.0;
  for (std::size_t b = 0; b < block_sums_.size(); ++b) rest += block_without(b, excluded);
  return rest;
}

void RowExps::sums_only(std::span<const float> logits, double temperature,
                        std::span<const Token> children, double& total, double& rest,
                        std::span<double> child_exps) {
  compute(logits, temperature);
  total = total_;
  rest = total_without(children);
  for (std::size_t j = 0; j < children.size(); ++j) child_exps[j] = at(children[j]);
}

Token RowExps::draw(double u, std::span<const Token> excluded, double mass) const {
  const double target = u * mass;
  auto is_excluded = [&](std::size_t a) {
    return std::find(excluded.begin(), excluded.end(), static_cast<Token>(a)) != excluded.end();
  };
  const RowKernels& k = row_kernels();
  double acc = 0.0;
  Token last = kNoToken;
  for (std::size_t b = 0; b < block_sums_.size(); ++b) {
    const double block = block_without(b, excluded);
    if (acc + block < target || block_factor_[b] == 0.0f) {
      acc += block;
      continue;
    }
    const std::size_t begin = b * kRowBlock, len = std::min(kRowBlock, logits_.size() - begin);
    k.exp_store_sum(logits_.data() + begin, len, block_max_[b], scale_, block_.data());
    const auto factor = static_cast<double>(block_factor_[b]);
    for (std::size_t j = 0; j < len; ++j) {
      if (block_[j] <= 0.0f || is_excluded(begin + j)) continue;
      acc += static_cast<double>(block_[j]) * factor;
      last = static_cast<Token>(begin + j);
      if (acc >= target) return last;
    }
  }
  if (last != kNoToken) return last;  // rounding ran past the end of the cumulative sum
  // u · mass beyond every block the scan entered: the last token with positive mass.
  for (std::size_t b = block_sums_.size(); b-- > 0;) {
    if (block_factor_[b] == 0.0f) continue;
    const std::size_t begin = b * kRowBlock, len = std::min(kRowBlock, logits_.size() - begin);
    k.exp_store_sum(logits_.data() + begin, len, block_max_[b], scale_, block_.data());
    for (std::size_t j = len; j-- > 0;) {
      if (block_[j] > 0.0f && !is_excluded(begin + j)) return static_cast<Token>(begin + j);
    }
  }
  return kNoToken;
}

namespace {

std::span<const Token> child_tokens(const DraftTree& tree, NodeId v, std::vector<Token>& out) {
  out.clear();
  for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c)
    out.push_back(tree.token[c]);
  return out;
}

// Row scratch for worker threads in the level-parallel paths (allocated once per thread).
RowExps& thread_row(std::int32_t vocab) {
  thread_local std::unique_ptr<RowExps> row;
  thread_local std::int32_t size = -1;
  if (size != vocab) {
    row = std::make_unique<RowExps>(vocab);
    size = vocab;
  }
  return *row;
}

// Child-token and child-mass scratch per thread, reused across calls.
std::vector<Token>& thread_children() {
  thread_local std::vector<Token> children;
  return children;
}
std::vector<double>& thread_child_exps() {
  thread_local std::vector<double> exps;
  return exps;
}

// Runs body(v) for v in [begin, end), on `threads` threads when more than one.
template <class Body>
void for_nodes(NodeId begin, NodeId end, int threads, Body&& body) {
  if (threads <= 1) {
    for (NodeId v = begin; v < end; ++v) body(v);
    return;
  }
  oneapi::tbb::task_arena arena(threads);
  arena.execute([&] { oneapi::tbb::parallel_for(begin, end, [&](NodeId v) { body(v); }); });
}

}  // namespace

Block tev_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                      LogitScratch& s, int threads) {
  s.prefix[0] = 1.0;
  // Level by level: a level's rows depend only on their parents' P, already final.
  for (std::int32_t d = 0; d + 1 < static_cast<std::int32_t>(tree.level_offset.size()); ++d) {
    for_nodes(tree.level_offset[d], tree.level_offset[d + 1], threads, [&](NodeId v) {
      if (tree.is_leaf(v)) {
        s.exit[v] = s.prefix[v];  // ρ = 1 at a leaf: its row is not needed
        return;
      }
      RowExps& row = threads > 1 ? thread_row(tree.vocab) : s.row;
      const auto cs = child_tokens(tree, v, thread_children());
      std::vector<double>& child_exps = thread_child_exps();
      child_exps.resize(cs.size());
      double total = 0.0, rest = 0.0;
      row.sums_only(logits.row(v), logits.temperature, cs, total, rest, child_exps);
      for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c) {
        s.prefix[c] =
            s.prefix[v] * child_exps[static_cast<std::size_t>(c - tree.first_child[v])] / total;
      }
      s.exit[v] = s.prefix[v] * rest / total;
    });
  }
  // The exit draw compares a uniform with the cumulative w, as every sampler here does.
  cumulate(s.exit.data(), tree.size(), s.cumulative.data());
  const NodeId v = pick_cumulative(s.cumulative.data(), tree.size(), draws.next());
  s.row.compute(logits.row(v), logits.temperature);
  const auto cs = child_tokens(tree, v, s.children);
  return {v, s.row.draw(draws.next(), cs, s.row.total_without(cs))};
}

Block walk_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                       LogitScratch& s) {
  NodeId v = 0;
  for (;;) {
    s.row.compute(logits.row(v), logits.temperature);
    if (tree.is_leaf(v)) return {v, s.row.draw(draws.next(), {}, s.row.total())};
    const auto cs = child_tokens(tree, v, s.children);
    const double rest = s.row.total_without(cs);
    // Child-or-exit: children in stored order, then the exit, against one uniform.
    const double target = draws.next() * s.row.total();
    double acc = 0.0;
    NodeId next = kNoNode;
    for (std::int32_t k = 0; k < tree.child_count[v] && next == kNoNode; ++k) {
      acc += s.row.at(cs[static_cast<std::size_t>(k)]);
      if (acc >= target) next = tree.first_child[v] + k;
    }
    if (next == kNoNode) return {v, s.row.draw(draws.next(), cs, rest)};
    v = next;
  }
}

Block predraw_lazy_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                               LogitScratch& s) {
  NodeId v = 0;
  for (;;) {
    s.row.compute(logits.row(v), logits.temperature);
    const Token r = s.row.draw(draws.next(), {}, s.row.total());
    const NodeId next = tree.child_with_token(v, r);
    if (next == kNoNode) return {v, r};
    v = next;
  }
}

Block predraw_eager_from_logits(const DraftTree& tree, const LogitRows& logits, DrawCounter& draws,
                                LogitScratch& s, int threads) {
  // R_v for every node, each with its own draw index v, so the threads need no ordering.
  std::vector<Token>& drawn = s.children;
  drawn.assign(static_cast<std::size_t>(tree.size()), kNoToken);
  for_nodes(0, tree.size(), threads, [&](NodeId v) {
    RowExps& row = threads > 1 ? thread_row(tree.vocab) : s.row;
    row.compute(logits.row(v), logits.temperature);
    drawn[static_cast<std::size_t>(v)] =
        row.draw(draws.at(static_cast<std::uint32_t>(v)), {}, row.total());
  });
  NodeId v = 0;
  for (;;) {
    const NodeId next = tree.child_with_token(v, drawn[static_cast<std::size_t>(v)]);
    if (next == kNoNode) return {v, drawn[static_cast<std::size_t>(v)]};
    v = next;
  }
}

Block sequential_residual_from_logits(const DraftTree& tree, const LogitRows& logits,
                                      DrawCounter& draws, LogitScratch& s) {
  NodeId v = 0;
  for (;;) {
    s.row.compute(logits.row(v), logits.temperature);
    const auto cs = child_tokens(tree, v, s.children);
    double remaining = s.row.total();  // mass not yet rejected
    NodeId accepted = kNoNode;
    for (std::int32_t k = 0; k < tree.child_count[v] && accepted == kNoNode; ++k) {
      const double e = s.row.at(cs[static_cast<std::size_t>(k)]);
      // Accept with e / remaining: the renormalized residual's mass on this child.
      if (draws.next() * remaining <= e) {
        accepted = tree.first_child[v] + k;
      } else {
        remaining -= e;
      }
    }
    if (accepted == kNoNode) return {v, s.row.draw(draws.next(), cs, s.row.total_without(cs))};
    v = accepted;
  }
}

}  // namespace tev
