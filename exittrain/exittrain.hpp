#pragma once
// ExitTrain (paper, section 5 and appendix C): train a block drafter so that the DDTree it builds
// covers more target mass. Generic over a frozen target (a LanguageModel whose rows are exact laws:
// wrap a real model's rows in NormalizedModel) and a trainable
// drafter ("H marginal logit rows for a context"); exittrain/exittrain_models.hpp gives synthetic ones.
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/draft_tree.hpp"
#include "core/exit_law.hpp"
#include "core/target_rows.hpp"
#include "models/language_model.hpp"
#include "montecarlo/ranks.hpp"

namespace tev::exittrain {

// A DFlash-style block drafter: from a context alone, one logit row per future position 1..H
// (position-wise marginals, not conditioned on the tree path). Parameters live in one flat vector.
class BlockDrafter {
 public:
  virtual ~BlockDrafter() = default;
  virtual std::int32_t vocab() const = 0;
  virtual std::int32_t horizon() const = 0;  // H
  // out (H, vocab) row-major: logit rows of positions 1..H after the context.
  virtual void logits(std::span<const Token> context, std::span<double> out) const = 0;
  // gradient (parameter count) += (∂ logits / ∂ θ)ᵀ · logit_gradient, logit_gradient (H, vocab).
  virtual void backpropagate(std::span<const Token> context, std::span<const double> logit_gradient,
                             std::span<double> gradient) const = 0;
  virtual std::span<double> parameters() = 0;
  virtual std::span<const double> parameters() const = 0;
};

// One drafter row's cross-entropy term: weight · (−log softmax(z_row)[token]).
struct RowTerm {
  std::int32_t row;
  Token token;
  double weight;
};

// Σ_m Ω_m logsumexp(z_m) − Σ_terms ω z_{row, token} with Ω_m the total weight on row m: one
// log-normalizer per distinct row (appendix C.2). logits (rows, vocab); when logit_gradient
// (rows, vocab) is non-empty, the loss's gradient is added to it.
double weighted_cross_entropy(std::span<const double> logits, std::int32_t vocab,
                              std::span<const RowTerm> terms, std::span<double> logit_gradient);

// The drafter's logit rows as probability rows (softmax per row), for the tree builder.
std::vector<std::vector<double>> marginal_rows(std::span<const double> logits, std::int32_t rows,
                                               std::int32_t vocab);

// The tree the drafter builds for a context with DDTree's best-first builder at `budget`, the
// frozen target's row at every node under its real tree-parent context (context ‖ π(v)), and the
// canonical exit law of that tree. Everything here is detached from the drafter's parameters.
struct ContextTree {
  DraftTree tree;
  TargetRows rows;
  ExitLaw law;
};
ContextTree build_context_tree(const BlockDrafter& drafter, const models::LanguageModel& target,
                               std::span<const Token> context, std::int32_t budget);

// Detached per-node weights of the tree terms, (N) with the root's weight 0 (it has no incoming
// draft token). Exit: ω(v) = w(v), hard-horizon leaves included (eq. 14). Prefix: ω(v) =
// P(v)·(1 − w(r)) / C_p, reachability rescaled so both sum to 1 − w(r) (section 6.2's control).
std::vector<double> exit_weights(const ExitLaw& law);
std::vector<double> prefix_weights(const ExitLaw& law);

enum class Objective { token_only, prefix_weighted, exit_guided };
inline constexpr Objective kObjectives[] = {Objective::token_only, Objective::prefix_weighted,
                                            Objective::exit_guided};
std::string_view objective_name(Objective objective);

// A training context and the target's own continuation after it (the dense token loss's labels).
struct TrainingExample {
  std::vector<Token> context;
  std::vector<Token> continuation;  // (H) tokens drawn from the target after the context
};

struct ObjectiveSpec {
  Objective objective = Objective::exit_guided;
  std::int32_t budget = 32;  // tree budget B (non-root nodes) of the builder
  double lambda = 1.0;       // weight of the tree term: L = L_tok + λ L_tree
  // Whether token-only steps still build trees to record the mean C_p (their training curve); a
  // warm-up whose curve nobody reads skips them, which matters when target rows are costly.
  bool track_coverage = true;
};

// The loss terms of a minibatch with the trees and weights frozen, so that the loss is a plain
// function of the drafter's parameters until the next prepare_batch.
struct PreparedBatch {
  std::vector<std::size_t> examples;        // (batch) indices into the example set
  std::vector<std::vector<RowTerm>> terms;  // (batch) each example's weighted row terms
  double mean_coverage =
      0.0;  // mean C_p of the batch's trees at the spec's budget (0 when not tracked)
};

// L_tok = (1 / (n H)) Σ_i Σ_h −log q_h(Z_ih | c_i) over the target continuations, plus for the
// tree objectives λ Σ_i Σ_{v ≠ r} ω_i(v) (−log q_depth(v)(x_v | c_i)) / Σ_i (|V_i| − 1) (eq. 14).
PreparedBatch prepare_batch(const BlockDrafter& drafter, const models::LanguageModel& target,
                            std::span<const TrainingExample> examples,
                            std::span<const std::size_t> batch, const ObjectiveSpec& spec);

// The prepared batch's loss at the drafter's current parameters; when gradient (parameter count)
// is non-empty, the gradient is added to it.
double batch_loss(const BlockDrafter& drafter, std::span<const TrainingExample> examples,
                  const PreparedBatch& batch, std::span<double> gradient);

struct TrainingConfig {
  ObjectiveSpec spec;
  std::int32_t steps = 300;
  std::int32_t batch = 16;
  double learning_rate = 0.02;  // Adam
};

struct StepRecord {
  double loss = 0.0;
  double mean_coverage =
      0.0;  // mean C_p of the step's (on-policy) training trees, before the update
};

// Adam on the prepared-batch loss; step s takes examples [s·batch, (s + 1)·batch) modulo their
// count, so objectives trained from the same examples see the same data in the same order.
std::vector<StepRecord> train(BlockDrafter& drafter, const models::LanguageModel& target,
                              std::span<const TrainingExample> examples,
                              const TrainingConfig& config,
                              const std::function<void(std::int32_t step)>& on_step = {});

struct CoverageEvaluation {
  std::int32_t budget = 0;
  std::int32_t contexts = 0;
  double mean_ceiling = 0.0;      // mean over contexts of 1 + C_p(T), exact
  std::uint64_t tev_samples = 0;  // TEV rounds in all (samples_per_tree per context)
  double tev_mean_length = 0.0;   // mean L of those rounds
  double tev_standard_error =
      0.0;  // of tev_mean_length under the exact law: √(mean Var L / samples)
  double tev_p_value =
      1.0;  // two-sided Chernoff bound of TEV's Σ L against its trees' exact length laws
};

// Builds the drafter's tree for every held-out context at `budget`, averages the exact 1 + C_p,
// and runs TEV `samples_per_tree` times on each tree (seed; tree id = context index).
CoverageEvaluation evaluate_coverage(const BlockDrafter& drafter,
                                     const models::LanguageModel& target,
                                     std::span<const std::vector<Token>> contexts,
                                     std::int32_t budget, std::uint64_t samples_per_tree,
                                     std::uint32_t seed, int threads,
                                     const montecarlo::Ranks& ranks = {});

// The ExitTrain comparison: from one warm-started drafter, the three objectives with the same
// examples, steps, learning rate and λ; each evaluated on the held-out contexts at B/2, B and 2B.
struct ComparisonConfig {
  TrainingConfig training;  // spec.objective is set per run; spec.budget is the training budget B
  std::int32_t warmup_steps = 100;  // token-only steps before the split: the shared initialization
  std::uint64_t tev_samples_per_tree = 1000;
  std::uint32_t seed = 1;  // TEV's sampling seed
  int threads = 1;
  montecarlo::Ranks ranks{};  // the processes TEV's samples are split over
};

struct ObjectiveRun {
  Objective objective = Objective::token_only;
  std::vector<StepRecord> curve;                // (steps)
  std::vector<CoverageEvaluation> evaluations;  // budgets B/2, B, 2B
};

struct Comparison {
  std::vector<CoverageEvaluation> initial;  // the warm-started drafter, budgets B/2, B, 2B
  std::vector<ObjectiveRun> runs;           // one per objective, in kObjectives order
};

struct ExitTrainSeedRun {
  std::uint32_t seed = 0;
  Comparison comparison;
};

// TEV's mean L against the exact 1 + C_p for every drafter (the warm start, then each objective),
// budget and seed: TEV must realize the ceiling of the trees the drafters build. Bonferroni over
// all of them at family level alpha; a cell agrees when its smallest p-value over the seeds is
// above the per-test level.
struct TevAgreementCell {
  std::size_t drafter = 0;       // 0: the warm start; 1 + i: kObjectives[i]
  std::size_t budget = 0;        // index into evaluation_budgets(B)
  double mean_ceiling = 0.0;     // mean over seeds
  double tev_mean_length = 0.0;  // mean over seeds
  double max_abs_z = 0.0;    // largest |mean L - 1 - C_p| / standard error over seeds (descriptive)
  double min_p_value = 1.0;  // smallest over seeds
  bool agrees = true;
};

struct TevAgreement {
  double alpha = 0.0;
  std::size_t tests = 0;  // seeds × drafters × budgets
  double per_test_level = 0.0;
  bool all_agree = true;
  std::vector<TevAgreementCell> cells;  // (budgets × drafters), budget-major
};

// The evaluation of `drafter` (as in TevAgreementCell) at budget index b.
const CoverageEvaluation& drafter_evaluation(const ExitTrainSeedRun& run, std::size_t drafter,
                                             std::size_t b);

TevAgreement tev_agreement(std::span<const ExitTrainSeedRun> runs, double alpha);

// The budgets every drafter is evaluated at: B/2, B, 2B.
std::vector<std::int32_t> evaluation_budgets(std::int32_t budget);

// warmup: examples of the token-only warm-up; examples: those of the compared runs. The drafter
// ends at the warm-started parameters.
Comparison compare_objectives(BlockDrafter& drafter, const models::LanguageModel& target,
                              std::span<const TrainingExample> warmup,
                              std::span<const TrainingExample> examples,
                              std::span<const std::vector<Token>> test_contexts,
                              const ComparisonConfig& config,
                              const std::function<void(std::string_view stage)>& progress = {});

}  // namespace tev::exittrain
