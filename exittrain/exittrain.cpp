#include "exittrain/exittrain.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/goodness_of_fit.hpp"
#include "core/verifier_catalog.hpp"
#include "montecarlo/monte_carlo.hpp"
#include "workloads/trees.hpp"
#include "core/softmax.hpp"

namespace tev::exittrain {

namespace {

std::span<const double> row_of(std::span<const double> matrix, std::int32_t row,
                               std::int32_t vocab) {
  return matrix.subspan(static_cast<std::size_t>(row) * static_cast<std::size_t>(vocab),
                        static_cast<std::size_t>(vocab));
}

// Adam with the usual constants; its state has the parameters' shape.
class Adam {
 public:
  Adam(std::size_t size, double learning_rate)
      : rate_(learning_rate), first_(size, 0.0), second_(size, 0.0) {}
  void step(std::span<double> parameters, std::span<const double> gradient) {
    ++t_;
    const double correction1 = 1.0 - std::pow(kBeta1, t_), correction2 = 1.0 - std::pow(kBeta2, t_);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      first_[i] = kBeta1 * first_[i] + (1.0 - kBeta1) * gradient[i];
      second_[i] = kBeta2 * second_[i] + (1.0 - kBeta2) * gradient[i] * gradient[i];
      parameters[i] -=
          rate_ * (first_[i] / correction1) / (std::sqrt(second_[i] / correction2) + kEpsilon);
    }
  }

 private:
  static constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
  double rate_;
  int t_ = 0;
  std::vector<double> first_;   // (parameters) running mean of the gradient
  std::vector<double> second_;  // (parameters) running mean of its square
};

}  // namespace

double weighted_cross_entropy(std::span<const double> logits, std::int32_t vocab,
                              std::span<const RowTerm> terms, std::span<double> logit_gradient) {
  const auto rows = static_cast<std::int32_t>(logits.size() / static_cast<std::size_t>(vocab));
  std::vector<double> row_weight(static_cast<std::size_t>(rows), 0.0);  // (rows) Ω_m
  double loss = 0.0;
  for (const RowTerm& t : terms) {
    if (t.row < 0 || t.row >= rows || t.token < 0 || t.token >= vocab)
      throw std::out_of_range("weighted_cross_entropy: term outside the logits");
    row_weight[static_cast<std::size_t>(t.row)] += t.weight;
    loss -= t.weight * row_of(logits, t.row, vocab)[static_cast<std::size_t>(t.token)];
  }
  for (std::int32_t m = 0; m < rows; ++m) {
    const double omega = row_weight[static_cast<std::size_t>(m)];
    if (omega == 0.0) continue;
    const auto z = row_of(logits, m, vocab);
    const double normalizer = log_sum_exp(z);
    loss += omega * normalizer;
    if (logit_gradient.empty()) continue;
    for (std::int32_t a = 0; a < vocab; ++a) {
      logit_gradient[static_cast<std::size_t>(m) * static_cast<std::size_t>(vocab) +
                     static_cast<std::size_t>(a)] +=
          omega * std::exp(z[static_cast<std::size_t>(a)] - normalizer);
    }
  }
  if (!logit_gradient.empty()) {
    for (const RowTerm& t : terms) {
      logit_gradient[static_cast<std::size_t>(t.row) * static_cast<std::size_t>(vocab) +
                     static_cast<std::size_t>(t.token)] -= t.weight;
    }
  }
  return loss;
}

std::vector<std::vector<double>> marginal_rows(std::span<const double> logits, std::int32_t rows,
                                               std::int32_t vocab) {
  std::vector<std::vector<double>> out(static_cast<std::size_t>(rows));
  for (std::int32_t m = 0; m < rows; ++m) {
    auto& q = out[static_cast<std::size_t>(m)];
    q.resize(static_cast<std::size_t>(vocab));
    softmax(row_of(logits, m, vocab), q);
  }
  return out;
}

ContextTree build_context_tree(const BlockDrafter& drafter, const models::LanguageModel& target,
                               std::span<const Token> context, std::int32_t budget) {
  const std::int32_t vocab = drafter.vocab(), horizon = drafter.horizon();
  if (target.vocab() != vocab)
    throw std::invalid_argument("drafter and target have different vocabularies");
  std::vector<double> logits(static_cast<std::size_t>(horizon) *
                             static_cast<std::size_t>(vocab));  // (H, V)
  drafter.logits(context, logits);
  DraftTree tree = workloads::ddtree_best_first(marginal_rows(logits, horizon, vocab), budget).tree;
  const std::vector<double> probs = target.tree_rows(context, tree);  // (N, V) p_v
  TargetRows rows = TargetRows::from_probabilities(probs, tree.size(), vocab);
  ExitLaw law = ExitLaw::compute(tree, rows);
  return {std::move(tree), std::move(rows), std::move(law)};
}

std::vector<double> exit_weights(const ExitLaw& law) {
  std::vector<double> weights = law.exit;
  weights[0] = 0.0;
  return weights;
}

std::vector<double> prefix_weights(const ExitLaw& law) {
  std::vector<double> weights(law.prefix.size(), 0.0);
  if (!(law.coverage > 0.0)) return weights;  // no target mass reaches any node: nothing to credit
  const double scale = (1.0 - law.exit[0]) / law.coverage;
  for (std::size_t v = 1; v < weights.size(); ++v) weights[v] = law.prefix[v] * scale;
  return weights;
}

std::string_view objective_name(Objective objective) {
  switch (objective) {
    case Objective::token_only:
      return "token-only";
    case Objective::prefix_weighted:
      return "prefix-weighted";
    case Objective::exit_guided:
      return "exit-guided";
  }
  return "unknown";
}

PreparedBatch prepare_batch(const BlockDrafter& drafter, const models::LanguageModel& target,
                            std::span<const TrainingExample> examples,
                            std::span<const std::size_t> batch, const ObjectiveSpec& spec) {
  const std::int32_t horizon = drafter.horizon();
  PreparedBatch prepared;
  prepared.examples.assign(batch.begin(), batch.end());
  prepared.terms.resize(batch.size());
  const double token_weight = 1.0 / (static_cast<double>(batch.size()) * horizon);
  std::vector<ContextTree> trees;
  std::size_t drafted_nodes = 0;  // Σ_i (|V_i| − 1): eq. 14's denominator
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const TrainingExample& example = examples[batch[i]];
    if (static_cast<std::int32_t>(example.continuation.size()) < horizon)
      throw std::invalid_argument("a continuation is shorter than the drafter's horizon");
    for (std::int32_t h = 0; h < horizon; ++h)
      prepared.terms[i].push_back(
          {h, example.continuation[static_cast<std::size_t>(h)], token_weight});
    if (spec.objective == Objective::token_only && !spec.track_coverage) continue;
    trees.push_back(build_context_tree(drafter, target, example.context, spec.budget));
    drafted_nodes += static_cast<std::size_t>(trees.back().tree.size() - 1);
    prepared.mean_coverage += trees.back().law.coverage / static_cast<double>(batch.size());
  }
  if (spec.objective == Objective::token_only || drafted_nodes == 0) return prepared;
  const double scale = spec.lambda / static_cast<double>(drafted_nodes);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const ContextTree& t = trees[i];
    const auto weights =
        spec.objective == Objective::exit_guided ? exit_weights(t.law) : prefix_weights(t.law);
    for (NodeId v = 1; v < t.tree.size(); ++v) {
      // A node at depth d was scored by the drafter's row of position d (row d − 1).
      prepared.terms[i].push_back(
          {t.tree.depth[v] - 1, t.tree.token[v], scale * weights[static_cast<std::size_t>(v)]});
    }
  }
  return prepared;
}

double batch_loss(const BlockDrafter& drafter, std::span<const TrainingExample> examples,
                  const PreparedBatch& batch, std::span<double> gradient) {
  const std::int32_t vocab = drafter.vocab(), horizon = drafter.horizon();
  std::vector<double> logits(static_cast<std::size_t>(horizon) *
                             static_cast<std::size_t>(vocab));               // (H, V)
  std::vector<double> logit_gradient(gradient.empty() ? 0 : logits.size());  // (H, V)
  double loss = 0.0;
  for (std::size_t i = 0; i < batch.examples.size(); ++i) {
    const auto& context = examples[batch.examples[i]].context;
    drafter.logits(context, logits);
    std::fill(logit_gradient.begin(), logit_gradient.end(), 0.0);
    loss += weighted_cross_entropy(logits, vocab, batch.terms[i], logit_gradient);
    if (!gradient.empty()) drafter.backpropagate(context, logit_gradient, gradient);
  }
  return loss;
}

std::vector<StepRecord> train(BlockDrafter& drafter, const models::LanguageModel& target,
                              std::span<const TrainingExample> examples,
                              const TrainingConfig& config,
                              const std::function<void(std::int32_t step)>& on_step) {
  if (examples.empty()) throw std::invalid_argument("train: no examples");
  if (config.batch < 1 || config.steps < 0)
    throw std::invalid_argument("train: batch must be positive and steps non-negative");
  Adam adam(drafter.parameters().size(), config.learning_rate);
  std::vector<double> gradient(drafter.parameters().size());
  std::vector<std::size_t> batch(static_cast<std::size_t>(config.batch));
  std::vector<StepRecord> curve;
  for (std::int32_t step = 0; step < config.steps; ++step) {
    for (std::size_t i = 0; i < batch.size(); ++i)
      batch[i] = (static_cast<std::size_t>(step) * batch.size() + i) % examples.size();
    const PreparedBatch prepared = prepare_batch(drafter, target, examples, batch, config.spec);
    std::fill(gradient.begin(), gradient.end(), 0.0);
    const double loss = batch_loss(drafter, examples, prepared, gradient);
    adam.step(drafter.parameters(), gradient);
    curve.push_back({loss, prepared.mean_coverage});
    if (on_step) on_step(step);
  }
  return curve;
}

CoverageEvaluation evaluate_coverage(const BlockDrafter& drafter,
                                     const models::LanguageModel& target,
                                     std::span<const std::vector<Token>> contexts,
                                     std::int32_t budget, std::uint64_t samples_per_tree,
                                     std::uint32_t seed, int threads,
                                     const montecarlo::Ranks& ranks) {
  if (contexts.empty()) throw std::invalid_argument("evaluate_coverage: no contexts");
  CoverageEvaluation e;
  e.budget = budget;
  e.contexts = static_cast<std::int32_t>(contexts.size());
  double ceiling_sum = 0.0, variance_sum = 0.0;
  std::uint64_t length_sum = 0;
  std::vector<LengthLaw> length_laws;  // (contexts) each tree's exact law of L
  for (std::size_t i = 0; i < contexts.size(); ++i) {
    const ContextTree t = build_context_tree(drafter, target, contexts[i], budget);
    ceiling_sum += t.law.ceiling();
    variance_sum += t.law.length_variance;
    length_laws.push_back(length_law(t.tree, t.law));
    montecarlo::MonteCarloPlan plan;
    plan.seed = seed;
    plan.tree_id = static_cast<std::uint32_t>(i);
    plan.samples = samples_per_tree;
    plan.threads = threads;
    plan.ranks = ranks;
    const montecarlo::BlockCounts counts =
        montecarlo::run_monte_carlo(VerifierId::tree_exit, t.tree, t.rows, plan);
    length_sum += counts.length_sum;
    e.tev_samples += counts.samples;
  }
  const double n = static_cast<double>(contexts.size());
  e.mean_ceiling = ceiling_sum / n;
  e.tev_mean_length = static_cast<double>(length_sum) / static_cast<double>(e.tev_samples);
  // Equal samples per tree: the pooled mean's null variance is the trees' mean Var L over all samples.
  const double mean_variance = variance_sum / n;
  e.tev_standard_error = std::sqrt(mean_variance / static_cast<double>(e.tev_samples));
  std::vector<stats::DrawnLaw> laws;
  for (const LengthLaw& l : length_laws)
    laws.push_back({l.lengths, l.mass, static_cast<double>(samples_per_tree)});
  e.tev_p_value = stats::sum_two_sided_chernoff_p(static_cast<double>(length_sum), laws);
  return e;
}

const CoverageEvaluation& drafter_evaluation(const ExitTrainSeedRun& run, std::size_t drafter,
                                             std::size_t b) {
  return drafter == 0 ? run.comparison.initial.at(b)
                      : run.comparison.runs.at(drafter - 1).evaluations.at(b);
}

TevAgreement tev_agreement(std::span<const ExitTrainSeedRun> runs, double alpha) {
  TevAgreement out;
  if (runs.empty()) return out;
  const std::size_t drafters = 1 + runs.front().comparison.runs.size(),
                    budgets = runs.front().comparison.initial.size();
  out.alpha = alpha;
  out.tests = runs.size() * drafters * budgets;
  out.per_test_level = alpha / static_cast<double>(out.tests);  // Bonferroni
  for (std::size_t b = 0; b < budgets; ++b) {
    for (std::size_t d = 0; d < drafters; ++d) {
      TevAgreementCell cell{.drafter = d, .budget = b};
      std::vector<double> ceilings, lengths;
      for (const ExitTrainSeedRun& run : runs) {
        const CoverageEvaluation& e = drafter_evaluation(run, d, b);
        ceilings.push_back(e.mean_ceiling);
        lengths.push_back(e.tev_mean_length);
        if (e.tev_standard_error > 0.0)
          cell.max_abs_z = std::max(
              cell.max_abs_z, std::abs(e.tev_mean_length - e.mean_ceiling) / e.tev_standard_error);
        cell.min_p_value = std::min(cell.min_p_value, e.tev_p_value);
      }
      cell.mean_ceiling = stats::mean_sd(ceilings).mean;
      cell.tev_mean_length = stats::mean_sd(lengths).mean;
      cell.agrees = cell.min_p_value > out.per_test_level;
      out.all_agree = out.all_agree && cell.agrees;
      out.cells.push_back(cell);
    }
  }
  return out;
}

std::vector<std::int32_t> evaluation_budgets(std::int32_t budget) {
  return {std::max(1, budget / 2), budget, 2 * budget};
}

Comparison compare_objectives(BlockDrafter& drafter, const models::LanguageModel& target,
                              std::span<const TrainingExample> warmup,
                              std::span<const TrainingExample> examples,
                              std::span<const std::vector<Token>> test_contexts,
                              const ComparisonConfig& config,
                              const std::function<void(std::string_view stage)>& progress) {
  auto say = [&](const std::string& stage) {
    if (progress) progress(stage);
  };
  auto evaluate_all = [&] {
    std::vector<CoverageEvaluation> out;
    for (std::int32_t b : evaluation_budgets(config.training.spec.budget)) {
      out.push_back(evaluate_coverage(drafter, target, test_contexts, b,
                                      config.tev_samples_per_tree, config.seed, config.threads,
                                      config.ranks));
    }
    return out;
  };
  TrainingConfig warm = config.training;
  warm.spec.objective = Objective::token_only;
  warm.spec.track_coverage = false;  // the warm-up's curve is not reported
  warm.steps = config.warmup_steps;
  say("warm-up (token-only, " + std::to_string(warm.steps) + " steps)");
  if (warm.steps > 0) train(drafter, target, warmup, warm);
  const std::vector<double> start(drafter.parameters().begin(), drafter.parameters().end());
  Comparison result;
  result.initial = evaluate_all();
  for (Objective objective : kObjectives) {
    say(std::string(objective_name(objective)) + " (" + std::to_string(config.training.steps) +
        " steps)");
    std::copy(start.begin(), start.end(), drafter.parameters().begin());
    TrainingConfig run = config.training;
    run.spec.objective = objective;
    ObjectiveRun r;
    r.objective = objective;
    r.curve = train(drafter, target, examples, run);
    r.evaluations = evaluate_all();
    result.runs.push_back(std::move(r));
  }
  std::copy(start.begin(), start.end(), drafter.parameters().begin());
  return result;
}

}  // namespace tev::exittrain
