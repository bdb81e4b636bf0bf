#include "workloads/suite.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace tev::workloads {

namespace {
struct Recipe {
  TreeShape shape;
  RowFamilySpec family;
  std::int32_t arity = 2;  // full k-ary only
};
const std::array kRecipes = {
    Recipe{TreeShape::random_recursive, {RowFamily::dirichlet, 0.3, 1.0}},
    Recipe{TreeShape::ddtree, {RowFamily::gaussian_logits, 3.0, 1.0}},
    Recipe{TreeShape::chain, {RowFamily::zipf, 1.2, 1.0}},
    Recipe{TreeShape::star, {RowFamily::dirichlet, 1.0, 1.0}},
    Recipe{TreeShape::full_kary, {RowFamily::gaussian_logits, 2.0, 0.6}, 3},
    Recipe{TreeShape::ddtree, {RowFamily::dirichlet, 0.05, 1.0}},  // near-deterministic rows
    Recipe{TreeShape::random_recursive, {RowFamily::zipf, 0.8, 1.0}},
    Recipe{TreeShape::ddtree, {RowFamily::gaussian_logits, 4.0, 0.5}},
};
}  // namespace

SyntheticSuite make_suite(const SuiteConfig& config) {
  if (config.trees < 1) throw std::invalid_argument("the suite needs at least one tree");
  if (config.vocab < 2) throw std::invalid_argument("the vocabulary needs at least 2 tokens");
  if (config.budget < 1) throw std::invalid_argument("the budget must be at least 1 node");
  SyntheticSuite suite;
  for (std::int32_t i = 0; i < config.trees; ++i) {
    const Recipe& recipe = kRecipes[static_cast<std::size_t>(i) % kRecipes.size()];
    // A vocabulary smaller than the recipe's arity narrows the k-ary tree rather than failing.
    const std::int32_t arity = std::min(recipe.arity, config.vocab);
    suite.push_back(
        make_case(recipe.shape, recipe.family, arity, config, static_cast<std::uint32_t>(i)));
  }
  return suite;
}

SyntheticCase make_case(TreeShape shape, const RowFamilySpec& family, std::int32_t arity,
                        const SuiteConfig& config, std::uint32_t id) {
  const SyntheticLanguage language(family, config.vocab, config.draft_noise,
                                   config.seed + 7919u * id);
  PhiloxEngine engine(config.seed, uses::suite_trees, id);
  const std::int32_t budget =
      shape == TreeShape::star ? std::min(config.budget, config.vocab) : config.budget;
  DraftTree tree = build_tree(shape, budget, language, engine, arity).tree;
  TargetRows rows = language.target_rows_for(tree);
  const double kl = language.mean_draft_kl(tree);
  const std::string name = shape == TreeShape::full_kary ? std::to_string(arity) + "-ary"
                                                         : std::string(shape_name(shape));
  return {{name + " B=" + std::to_string(budget) + " / " + family.label(), std::move(tree),
           std::move(rows)},
          {shape, family, kl}};
}

SyntheticSuite make_sweep(const SweepConfig& config) {
  SyntheticSuite cases;
  for (std::int32_t budget : config.budgets) {
    for (TreeShape shape : config.shapes) {
      for (const RowFamilySpec& family : config.families) {
        const SuiteConfig one{.trees = 1,
                              .vocab = config.vocab,
                              .budget = budget,
                              .seed = config.seed,
                              .draft_noise = config.draft_noise};
        cases.push_back(
            make_case(shape, family, 2, one, static_cast<std::uint32_t>(cases.cases.size())));
      }
    }
  }
  return cases;
}

}  // namespace tev::workloads
