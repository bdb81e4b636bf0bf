#include "conformance/emit.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "conformance/batch_case.hpp"
#include "conformance/case_io.hpp"
#include "conformance/model_case.hpp"
#include "core/compensated_sum.hpp"
#include "core/random_streams.hpp"
#include "workloads/suite.hpp"

namespace tev::conformance {

namespace {

// Where the generators put their cases: the lines `emit` writes, or the typed cases those lines
// read back as (make_case and the like), built without the JSON.
struct Lines {
  std::vector<std::string> out;
  template <class... Args>
  void tree(Args&&... args) {
    out.push_back(write_case(args...));
  }
  template <class... Args>
  void engine(Args&&... args) {
    out.push_back(write_engine_case(args...));
  }
  template <class... Args>
  void model(Args&&... args) {
    out.push_back(write_model_case(args...));
  }
  template <class... Args>
  void engine_model(Args&&... args) {
    out.push_back(write_engine_model_case(args...));
  }
};

struct TreeValues {
  std::vector<Case> out;
  template <class... Args>
  void tree(Args&&... args) {
    out.push_back(make_case(args...));
  }
  // Every unlisted logit of a sparse row is the one its line writes as "fill": the rows are whole.
  void engine(const std::string& id, const std::string& label, const DraftTree& tree,
              std::span<const double> logits, const SamplingParams& sampling, std::uint64_t samples,
              const std::vector<std::vector<Token>>*) {
    out.push_back(make_engine_case(id, label, tree, logits, sampling, samples));
  }
};

struct ModelValues {
  std::vector<ModelCase> out;
  template <class... Args>
  void model(Args&&... args) {
    out.push_back(make_model_case(args...));
  }
  template <class... Args>
  void engine_model(Args&&... args) {
    out.push_back(make_engine_model_case(args...));
  }
};

// What generate(config, out) puts in an Out.
template <class Out, class Config>
auto collected(void (*generate)(const Config&, Out&), const Config& config) {
  Out out;
  generate(config, out);
  return std::move(out.out);
}

constexpr double kNearDeterministicGap = 1e-10;  // mass left outside the drafted children
constexpr double kSparseRemainder = 0.05;        // mass spread uniformly over unlisted tokens
constexpr double kModelDraftNoise =
    1.0;  // log-space sd of q's perturbation in model cases (one far drafter: 1.5)

// Children of each internal node keep all but kNearDeterministicGap of its row.
TargetRows near_deterministic(const DraftTree& tree, const TargetRows& rows) {
  std::vector<double> probs(rows.data().begin(), rows.data().end());
  for (NodeId v = 0; v < tree.size(); ++v) {
    if (tree.is_leaf(v)) continue;
    std::span<double> row(
        probs.data() + static_cast<std::size_t>(v) * static_cast<std::size_t>(tree.vocab),
        static_cast<std::size_t>(tree.vocab));
    std::vector<bool> child(row.size(), false);
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c)
      child[static_cast<std::size_t>(tree.token[c])] = true;
    CompensatedSum in, out;
    for (std::size_t a = 0; a < row.size(); ++a) (child[a] ? in : out).add(row[a]);
    if (!(in.value() > 0.0) || !(out.value() > 0.0)) continue;
    for (std::size_t a = 0; a < row.size(); ++a) {
      row[a] = child[a] ? row[a] / in.value() * (1.0 - kNearDeterministicGap)
                        : row[a] / out.value() * kNearDeterministicGap;
    }
  }
  return TargetRows::from_probabilities(probs, rows.rows(), rows.vocab(), kRowTolerance);
}

struct SparseCase {
  DraftTree tree;
  TargetRows rows;
  std::vector<std::vector<Token>> listed;  // (N) tokens each row lists
};

// The small case's tree and rows embedded in a large vocabulary: token t becomes t·stride + 7;
// each row keeps (1 − remainder) of its mass on the embedded tokens, listed, and spreads the
// remainder uniformly over every other token.
SparseCase embed_in_large_vocab(const workloads::CheckCase& small, std::int32_t large_vocab) {
  const std::int32_t v_small = small.tree.vocab;
  const std::int32_t stride = large_vocab / v_small;
  if (stride < 2)
    throw std::invalid_argument("the large vocabulary must be at least twice the small one");
  auto map = [&](Token t) { return static_cast<Token>(t * stride + (7 % stride)); };
  SparseCase out;
  out.tree = small.tree;
  out.tree.vocab = large_vocab;
  for (NodeId v = 1; v < out.tree.size(); ++v) out.tree.token[v] = map(small.tree.token[v]);
  const auto unlisted = static_cast<double>(large_vocab - v_small);
  std::vector<double> probs(
      static_cast<std::size_t>(small.tree.size()) * static_cast<std::size_t>(large_vocab),
      kSparseRemainder / unlisted);
  out.listed.resize(static_cast<std::size_t>(small.tree.size()));
  for (NodeId v = 0; v < small.tree.size(); ++v) {
    const auto row = small.rows.row(v);
    for (Token t = 0; t < v_small; ++t) {
      probs[static_cast<std::size_t>(v) * static_cast<std::size_t>(large_vocab) +
            static_cast<std::size_t>(map(t))] =
          (1.0 - kSparseRemainder) * row[static_cast<std::size_t>(t)];
      out.listed[static_cast<std::size_t>(v)].push_back(map(t));
    }
  }
  out.rows = TargetRows::from_probabilities(probs, small.tree.size(), large_vocab, kRowTolerance);
  return out;
}

template <class Out>
void generate_cases(const EmitConfig& config, Out& out) {
  if (config.cases < 1) throw std::invalid_argument("at least one case");
  if (config.vocab < 4)
    throw std::invalid_argument("vocab must be at least 4 (the star case has 4 or more children)");
  if (config.budget < 4) throw std::invalid_argument("budget must be at least 4 draft nodes");
  if (config.samples < 1) throw std::invalid_argument("samples must be at least 1");
  enum class Rows { as_drawn, near_deterministic, sparse_large_vocab };
  struct Recipe {
    workloads::TreeShape shape;
    workloads::RowFamilySpec family;
    std::int32_t arity;   // full k-ary only
    std::int32_t budget;  // 0: the configured budget
    Rows rows;
    const char* label;
  };
  const std::int32_t deep = std::max(config.budget, 6);
  const Recipe recipes[] = {
      {workloads::TreeShape::random_recursive,
       {workloads::RowFamily::dirichlet, 0.3, 1.0},
       2,
       0,
       Rows::as_drawn,
       "random tree"},
      {workloads::TreeShape::ddtree,
       {workloads::RowFamily::gaussian_logits, 3.0, 1.0},
       2,
       0,
       Rows::as_drawn,
       "DDTree-built"},
      {workloads::TreeShape::chain,
       {workloads::RowFamily::zipf, 1.1, 1.0},
       2,
       deep,
       Rows::as_drawn,
       "deep chain"},
      {workloads::TreeShape::star,
       {workloads::RowFamily::dirichlet, 1.0, 1.0},
       2,
       0,
       Rows::as_drawn,
       "star (>= 4 children)"},
      // 4 + 16 nodes: the complete 4-ary tree of depth 2, every leaf at the maximum depth.
      {workloads::TreeShape::full_kary,
       {workloads::RowFamily::gaussian_logits, 2.0, 0.6},
       4,
       20,
       Rows::as_drawn,
       "complete 4-ary tree, leaves at maximum depth"},
      {workloads::TreeShape::ddtree,
       {workloads::RowFamily::dirichlet, 0.3, 1.0},
       2,
       0,
       Rows::near_deterministic,
       "near-deterministic rows (child mass 1 - 1e-10)"},
      {workloads::TreeShape::random_recursive,
       {workloads::RowFamily::dirichlet, 0.3, 1.0},
       2,
       0,
       Rows::sparse_large_vocab,
       "large vocabulary, sparse rows"},
      {workloads::TreeShape::ddtree,
       {workloads::RowFamily::dirichlet, 0.05, 1.0},
       2,
       0,
       Rows::as_drawn,
       "DDTree, near one-hot rows"},
  };
  for (std::int32_t i = 0; i < config.cases; ++i) {
    const Recipe& r = recipes[static_cast<std::size_t>(i) % std::size(recipes)];
    const workloads::SuiteConfig base{.trees = 1,
                                      .vocab = config.vocab,
                                      .budget = r.budget ? r.budget : config.budget,
                                      .seed = config.seed};
    const workloads::CheckCase c =
        workloads::make_case(r.shape, r.family, r.arity, base, static_cast<std::uint32_t>(i)).check;
    std::string id = "c";
    id += std::to_string(i);
    const std::string label = std::string(r.label) + " / " + c.label;
    switch (r.rows) {
      case Rows::as_drawn:
        out.tree(id, label, c.tree, c.rows, config.samples, nullptr);
        break;
      case Rows::near_deterministic:
        out.tree(id, label, c.tree, near_deterministic(c.tree, c.rows), config.samples, nullptr);
        break;
      case Rows::sparse_large_vocab: {
        const SparseCase large = embed_in_large_vocab(c, config.large_vocab);
        out.tree(id, label + ", V = " + std::to_string(config.large_vocab), large.tree, large.rows,
                 config.samples * config.large_vocab_sample_factor, &large.listed);
        break;
      }
    }
  }
}

template <class Out>
void generate_model_cases(const ModelEmitConfig& config, Out& out) {
  if (config.cases < 1) throw std::invalid_argument("at least one case");
  if (config.samples < 1) throw std::invalid_argument("samples must be at least 1");
  constexpr std::int32_t kVocab = 4, kDepth = 2;
  struct Recipe {
    drafts::LanguagePairSpec pair;
    drafts::Drafting drafting;
    const char* label;
  };
  const workloads::RowFamilySpec logits{workloads::RowFamily::gaussian_logits, 2.0, 0.7},
      dirichlet{workloads::RowFamily::dirichlet, 1.0, 1.0};
  const auto pair = [&](const workloads::RowFamilySpec& family, drafts::DrafterKind drafter,
                        std::uint32_t seed, double noise = kModelDraftNoise) {
    return drafts::LanguagePairSpec{family, kVocab, noise, drafter, seed, kDepth + 1};
  };
  const Recipe recipes[] = {
      {pair(logits, drafts::DrafterKind::perturbed, 7),
       {drafts::DraftPolicy::chain, 1, kDepth},
       "speculative sampling's chain"},
      {pair(dirichlet, drafts::DrafterKind::drafts_forbidden_tokens, 7),
       {drafts::DraftPolicy::chain, 1, kDepth},
       "chain, drafter drafts tokens p forbids"},
      {pair(logits, drafts::DrafterKind::perturbed, 8),
       {drafts::DraftPolicy::independent_chains, 2, kDepth},
       "SpecInfer: 2 independent chains merged"},
      {pair(dirichlet, drafts::DrafterKind::misses_target_tokens, 7),
       {drafts::DraftPolicy::iid_children, 2, kDepth},
       "2 i.i.d. children, drafter misses target mass"},
      // A far drafter: later siblings are often tested with min(1, p~/q) < 1, where one uniform shared by siblings shows.
      {pair(dirichlet, drafts::DrafterKind::perturbed, 9, 1.5),
       {drafts::DraftPolicy::iid_children, 3, kDepth},
       "3 i.i.d. children per node, a far drafter"},
      {pair(logits, drafts::DrafterKind::perturbed, 7),
       {drafts::DraftPolicy::without_replacement, 2, kDepth},
       "2 children without replacement"},
      {pair(dirichlet, drafts::DrafterKind::drafts_forbidden_tokens, 8),
       {drafts::DraftPolicy::without_replacement, 2, kDepth},
       "without replacement, drafter drafts tokens p forbids"},
      {pair(dirichlet, drafts::DrafterKind::misses_target_tokens, 8),
       {drafts::DraftPolicy::top_k, 2, kDepth},
       "deterministic top-2, drafter misses target mass"},
  };
  for (std::int32_t i = 0; i < config.cases; ++i) {
    const Recipe& r = recipes[static_cast<std::size_t>(i) % std::size(recipes)];
    const drafts::LanguagePair language(r.pair);
    out.model("m" + std::to_string(i), std::string(r.label) + " / " + r.pair.label(), language,
              std::optional<drafts::Drafting>(r.drafting), config.samples);
  }
}

double smallest_margin(std::span<const double> logits, std::size_t vocab,
                       const SamplingParams& params) {
  double margin = INFINITY;
  for (std::size_t at = 0; at < logits.size(); at += vocab)
    margin = std::min(margin, filter_margin(logits.subspan(at, vocab), params));
  return margin;
}

// True when some internal node has a drafted child that `params` keeps and one it removes.
bool cuts_between_children(const DraftTree& tree, std::span<const double> logits,
                           const SamplingParams& params) {
  const auto vocab = static_cast<std::size_t>(tree.vocab);
  std::vector<double> row(vocab);
  for (NodeId v = 0; v < tree.size(); ++v) {
    if (tree.child_count[v] < 2) continue;
    process_logits(logits.subspan(static_cast<std::size_t>(v) * vocab, vocab), params, row);
    bool kept = false, removed = false;
    for (NodeId c = tree.first_child[v]; c < tree.first_child[v] + tree.child_count[v]; ++c)
      (row[static_cast<std::size_t>(tree.token[c])] > 0.0 ? kept : removed) = true;
    if (kept && removed) return true;
  }
  return false;
}

constexpr int kEngineCaseTries =
    256;  // trees drawn per recipe until its filters are well separated and bind

// Raw logits as an engine's model outputs them, from rows of probabilities (rows, V): the log of
// each times `scale`, each row shifted so that its largest logit is ±[10, 30) (draws 1 + 2r and
// 2 + 2r at `site` for row r: size and sign), rounded to float32. The scale is draw 0 at a site,
// in [1, 2); a temperature multiplied by it leaves the processed rows as they were.
constexpr double kMinScale = 1.0, kMaxScale = 2.0, kMinOffset = 10.0, kMaxOffset = 30.0;

double logit_scale(const DrawSite& site) {
  return kMinScale + (kMaxScale - kMinScale) * uniform(site, 0);
}

std::vector<double> raw_logits(std::span<const double> probs, std::size_t vocab, double scale,
                               const DrawSite& site) {
  std::vector<double> out(probs.size());
  for (std::size_t row = 0; row * vocab < probs.size(); ++row) {
    const std::span<const double> in = probs.subspan(row * vocab, vocab);
    const double top = std::log(*std::max_element(in.begin(), in.end()));
    const auto draw = static_cast<std::uint32_t>(1 + 2 * row);
    const double size = kMinOffset + (kMaxOffset - kMinOffset) * uniform(site, draw);
    const double offset = uniform(site, draw + 1) < 0.5 ? -size : size;
    for (std::size_t a = 0; a < vocab; ++a)
      out[row * vocab + a] = static_cast<float>(scale * (std::log(in[a]) - top) + offset);
  }
  return out;
}

// The parameters of a case whose logits are scaled by `scale`: the temperature scaled with them (a
// greedy one kept).
SamplingParams scaled(SamplingParams params, double scale) {
  if (!params.greedy()) params.temperature *= scale;
  return params;
}

// The engine_logit_offsets ids of a model case's p and q rows: 2^31 + 2·seed (+ 1 for q), seed the
// pair's; a fixed-tree case's is the id of the tree drawn, below 2^31.
constexpr std::uint32_t kModelCaseLogits = 0x80000000u;

template <class Out>
void generate_engine_cases(const EmitConfig& config, Out& out) {
  if (config.cases < 1) throw std::invalid_argument("at least one case");
  if (config.vocab < 4)
    throw std::invalid_argument("vocab must be at least 4 (the star case has 4 or more children)");
  if (config.budget < 4) throw std::invalid_argument("budget must be at least 4 draft nodes");
  if (config.samples < 1) throw std::invalid_argument("samples must be at least 1");
  using P = Parameter;
  struct Recipe {
    workloads::TreeShape shape;
    std::int32_t arity;
    std::int32_t budget;  // 0: the configured budget
    SamplingParams sampling;
    std::vector<Parameter> must_bind;  // draw trees until each binds (or the most do)
    bool cut_between_children;  // retry until the filters separate some node's drafted children
    bool large_vocab;
    const char* label;
  };
  constexpr auto sglang = FilterOrder::top_p_full_and_top_k;
  const std::int32_t deep = std::max(config.budget, 6);
  const Recipe recipes[] = {
      {workloads::TreeShape::random_recursive,
       2,
       0,
       {.temperature = 1.5, .top_k = 3, .top_p = 0.7, .order = sglang},
       {P::temperature, P::top_k, P::top_p, P::order},
       false,
       false,
       "temperature 1.5, top-k 3, top-p 0.7 on the full row (top_p_full_and_top_k)"},
      {workloads::TreeShape::star,
       2,
       0,
       {.temperature = 1e-6, .top_k = 2},
       {P::greedy},
       true,
       false,
       "greedy at temperature 1e-6 (below 1e-5) on a star"},
      {workloads::TreeShape::ddtree,
       2,
       0,
       {.top_k = 2, .top_p = 0.7, .order = sglang},
       {P::top_k, P::top_p, P::order},
       true,
       false,
       "top-p 0.7 cutting between drafted children, top-k 2 (top_p_full_and_top_k)"},
      {workloads::TreeShape::ddtree,
       2,
       0,
       {.temperature = 0.0, .top_k = 3, .top_p = 0.5, .min_p = 0.1},
       {P::greedy},
       false,
       false,
       "greedy (temperature 0) whatever the filters"},
      // 4 + 16 nodes: the complete 4-ary tree of depth 2.
      {workloads::TreeShape::full_kary,
       4,
       20,
       {.top_p = 0.9, .min_p = 0.05, .order = FilterOrder::min_p_last},
       {P::top_p, P::min_p, P::order},
       false,
       false,
       "min-p after top-p (min_p_last)"},
      {workloads::TreeShape::chain,
       2,
       deep,
       {.temperature = 0.0},
       {P::greedy},
       false,
       false,
       "greedy (temperature 0), deep chain"},
      {workloads::TreeShape::ddtree,
       2,
       0,
       {.temperature = 1.3, .top_k = 5, .top_p = 0.95, .min_p = 0.02, .order = sglang},
       {P::temperature, P::top_k, P::min_p, P::order},
       false,
       false,
       "temperature, top-k, top-p and min-p at once (top_p_full_and_top_k)"},
      {workloads::TreeShape::random_recursive,
       2,
       0,
       {.temperature = 1.2, .min_p = 0.01},
       {P::min_p},
       false,
       true,
       "large vocabulary, sparse logits, min-p drops the tail"},
  };
  // The tree an engine case keeps, with its logit rows (N, V) and parameters.
  struct Kept {
    std::string label;
    DraftTree tree;
    std::vector<double> logits;
    SamplingParams sampling;
    std::optional<std::vector<std::vector<Token>>> listed;  // sparse rows' listed tokens
  };
  for (std::int32_t i = 0; i < config.cases; ++i) {
    const Recipe& r = recipes[static_cast<std::size_t>(i) % std::size(recipes)];
    const workloads::SuiteConfig base{.trees = 1,
                                      .vocab = config.vocab,
                                      .budget = r.budget ? r.budget : config.budget,
                                      .seed = config.seed};
    const std::string id = "e" + std::to_string(i);
    // The first tree on which every parameter the recipe names binds or, failing that within
    // kEngineCaseTries trees (other seeds and case counts draw other trees), the first on which the
    // most do.
    std::optional<Kept> best;
    std::ptrdiff_t best_bound = -1;
    for (int attempt = 0; attempt < kEngineCaseTries && best_bound < std::ssize(r.must_bind);
         ++attempt) {
      const auto tree_id = static_cast<std::uint32_t>(i + attempt * config.cases);
      const workloads::CheckCase c =
          workloads::make_case(r.shape, {workloads::RowFamily::gaussian_logits, 3.0, 1.0}, r.arity,
                               base, tree_id)
              .check;
      std::optional<SparseCase> large;
      if (r.large_vocab) large = embed_in_large_vocab(c, config.large_vocab);
      const DraftTree& tree = large ? large->tree : c.tree;
      const auto vocab = static_cast<std::size_t>(tree.vocab);
      const DrawSite site = uses::engine_logit_offsets.site(config.seed, tree_id);
      const double scale = logit_scale(site);
      const std::vector<double> logits =
          raw_logits((large ? large->rows : c.rows).data(), vocab, scale, site);
      const SamplingParams sampling = scaled(r.sampling, scale);
      if (smallest_margin(logits, vocab, sampling) < kMinFilterMargin) continue;
      if (r.cut_between_children && !cuts_between_children(tree, logits, sampling)) continue;
      const std::ptrdiff_t bound = std::ranges::count_if(
          r.must_bind, [&](Parameter p) { return binds(tree, logits, sampling, p); });
      if (bound <= best_bound) continue;
      best_bound = bound;
      std::string label = std::string(r.label) + " / " + c.label + ", logit scale " +
                          std::to_string(scale).substr(0, 4);
      if (large) label += ", V = " + std::to_string(config.large_vocab);
      best =
          Kept{label, tree, logits, sampling, large ? std::optional(large->listed) : std::nullopt};
    }
    if (!best)
      throw std::runtime_error("emit: no tree for \"" + std::string(r.label) +
                               "\" kept its filters well separated");
    out.engine(id, best->label, best->tree, best->logits, best->sampling, config.samples,
               best->listed ? &*best->listed : nullptr);
  }
}

// The request cases of config's batches: one kind in 8 has the large vocabulary, so 8 cases for
// every 7 requests, and one cycle to spare.
EmitConfig batch_requests(const EmitConfig& config) {
  if (config.cases < 1) throw std::invalid_argument("at least one batch");
  if (config.batch < 1 || config.batch > kMaxBatchRequests)
    throw std::invalid_argument("a batch holds 1 to " + std::to_string(kMaxBatchRequests) +
                                " requests");
  EmitConfig requests = config;
  requests.batch = 0;
  requests.cases = (config.cases * config.batch + 6) / 7 * 8 + 8;
  return requests;
}

// config.cases batches of config.batch requests of V = config.vocab, in order:
// make(id, label, members) makes batch `id` of the requests at indices `members`.
template <class Make>
auto grouped(const EmitConfig& config, const std::vector<Case>& requests, Make&& make) {
  std::vector<decltype(make(std::string(), std::string(), std::vector<std::size_t>()))> batches;
  std::vector<std::size_t> members;
  std::string kinds;
  for (std::size_t k = 0; k < requests.size(); ++k) {
    if (requests[k].tree.vocab != config.vocab) continue;
    members.push_back(k);
    kinds += (kinds.empty() ? "" : "; ") + requests[k].label;
    if (static_cast<std::int32_t>(members.size()) < config.batch) continue;
    batches.push_back(make("k" + std::to_string(batches.size()),
                           std::to_string(config.batch) + " requests: " + kinds, members));
    members.clear();
    kinds.clear();
    if (static_cast<std::int32_t>(batches.size()) == config.cases) break;
  }
  return batches;
}

template <class Out>
void generate_engine_model_cases(const ModelEmitConfig& config, Out& out) {
  if (config.cases < 1) throw std::invalid_argument("at least one case");
  if (config.samples < 1) throw std::invalid_argument("samples must be at least 1");
  constexpr std::int32_t kVocab = 4, kDepth = 2;
  struct Recipe {
    drafts::Drafting drafting;
    SamplingParams target;
    SamplingParams drafter;
    const char* label;
  };
  const Recipe recipes[] = {
      {{drafts::DraftPolicy::chain, 1, kDepth},
       {.temperature = 0.7},
       {},
       "target at temperature 0.7, drafter at 1"},
      {{drafts::DraftPolicy::iid_children, 2, kDepth},
       {.top_k = 2},
       {.temperature = 1.2},
       "target top-k 2, drafter at temperature 1.2"},
      {{drafts::DraftPolicy::without_replacement, 2, kDepth},
       {.top_p = 0.8},
       {.top_p = 0.9},
       "target top-p 0.8, drafter top-p 0.9"},
      {{drafts::DraftPolicy::independent_chains, 2, kDepth},
       {.min_p = 0.2},
       {.min_p = 0.2},
       "min-p 0.2 for both"},
      {{drafts::DraftPolicy::chain, 1, kDepth},
       {.temperature = 0.0},
       {},
       "greedy target, sampled drafter"},
      {{drafts::DraftPolicy::iid_children, 3, kDepth},
       {.temperature = 1.3, .top_k = 3},
       {.top_k = 2},
       "drafter top-k 2 the target does not share"},
      {{drafts::DraftPolicy::without_replacement, 2, kDepth},
       {.top_p = 0.9, .min_p = 0.1, .order = FilterOrder::min_p_last},
       {.temperature = 0.8},
       "target min-p after top-p, drafter at temperature 0.8"},
      {{drafts::DraftPolicy::chain, 1, kDepth},
       {.temperature = 1.5, .min_p = 0.05},
       {.temperature = 0.5},
       "hot target, cold drafter"},
  };
  for (std::int32_t i = 0; i < config.cases; ++i) {
    const Recipe& r = recipes[static_cast<std::size_t>(i) % std::size(recipes)];
    for (std::uint32_t seed = 7;; ++seed) {
      if (seed == 7 + kEngineCaseTries)
        throw std::runtime_error("emit: no language pair for \"" + std::string(r.label) +
                                 "\" kept its filters well separated");
      const drafts::LanguagePairSpec spec{{workloads::RowFamily::gaussian_logits, 2.0, 1.0},
                                          kVocab,
                                          kModelDraftNoise,
                                          drafts::DrafterKind::perturbed,
                                          seed + static_cast<std::uint32_t>(i) * 100,
                                          kDepth + 1};
      const drafts::LanguagePair pair(spec);
      std::vector<double> p, q;  // (prefixes, V) in the pair's prefix order
      for (std::size_t k = 0; k < pair.prefixes(); ++k) {
        const std::vector<Token> prefix = pair.prefix(k);
        p.insert(p.end(), pair.p(prefix).begin(), pair.p(prefix).end());
        q.insert(q.end(), pair.q(prefix).begin(), pair.q(prefix).end());
      }
      // One scale for both models, so that parameters the recipe shares stay shared.
      const DrawSite p_site = uses::engine_logit_offsets.site(spec.seed,
                                                              kModelCaseLogits + 2 * spec.seed),
                     q_site = uses::engine_logit_offsets.site(spec.seed,
                                                              kModelCaseLogits + 2 * spec.seed + 1);
      const double scale = logit_scale(p_site);
      const std::vector<double> p_logits = raw_logits(p, kVocab, scale, p_site),
                                q_logits = raw_logits(q, kVocab, scale, q_site);
      const SamplingParams target = scaled(r.target, scale), drafter = scaled(r.drafter, scale);
      if (std::min(smallest_margin(p_logits, kVocab, target),
                   smallest_margin(q_logits, kVocab, drafter)) < kMinFilterMargin)
        continue;
      out.engine_model("n" + std::to_string(i),
                       std::string(r.label) + " / " + spec.label() + ", logit scale " +
                           std::to_string(scale).substr(0, 4),
                       pair, std::optional<drafts::Drafting>(r.drafting),
                       std::span<const double>(p_logits), std::span<const double>(q_logits), target,
                       drafter, config.samples);
      break;
    }
  }
}

}  // namespace

std::vector<std::string> emit_cases(const EmitConfig& config) {
  return collected(generate_cases<Lines>, config);
}

std::vector<std::string> emit_model_cases(const ModelEmitConfig& config) {
  return collected(generate_model_cases<Lines>, config);
}

std::vector<std::string> emit_engine_cases(const EmitConfig& config) {
  return collected(generate_engine_cases<Lines>, config);
}

std::vector<std::string> emit_engine_model_cases(const ModelEmitConfig& config) {
  return collected(generate_engine_model_cases<Lines>, config);
}

std::vector<std::string> emit_batch_cases(const EmitConfig& config) {
  const EmitConfig requests = batch_requests(config);
  const std::vector<std::string> lines = emit_configured(requests);
  return grouped(config, tree_case_values(requests),
                 [&](const std::string& id, const std::string& label,
                     const std::vector<std::size_t>& members) {
                   std::vector<std::string> batch;
                   for (const std::size_t k : members) batch.push_back(lines[k]);
                   return write_batch_case(id, label, batch, config.samples);
                 });
}

std::vector<Case> tree_case_values(const EmitConfig& config) {
  return config.engine_inputs ? collected(generate_engine_cases<TreeValues>, config)
                              : collected(generate_cases<TreeValues>, config);
}

std::vector<ModelCase> model_case_values(const ModelEmitConfig& config) {
  return config.engine_inputs ? collected(generate_engine_model_cases<ModelValues>, config)
                              : collected(generate_model_cases<ModelValues>, config);
}

std::vector<BatchCase> batch_case_values(const EmitConfig& config) {
  const std::vector<Case> requests = tree_case_values(batch_requests(config));
  return grouped(config, requests,
                 [&](const std::string& id, const std::string& label,
                     const std::vector<std::size_t>& members) {
                   BatchCase b{id, label, config.samples, {}};
                   for (const std::size_t k : members) {
                     b.requests.push_back(requests[k]);
                     b.requests.back().samples = config.samples;
                   }
                   return b;
                 });
}

}  // namespace tev::conformance
