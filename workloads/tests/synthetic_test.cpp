#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/compensated_sum.hpp"
#include "workloads/synthetic.hpp"

namespace tev::workloads {
namespace {

TEST(Synthetic, RowsAreDistributionsAndDeterministic) {
  for (const RowFamilySpec spec :
       {RowFamilySpec{RowFamily::dirichlet, 0.05, 1.0}, RowFamilySpec{RowFamily::zipf, 1.1, 1.0},
        RowFamilySpec{RowFamily::gaussian_logits, 3.0, 0.6}}) {
    PhiloxEngine a(DrawSite{4, Stream::generation, 5, 6}), b(DrawSite{4, Stream::generation, 5, 6});
    const auto row = sample_row(spec, 32, a);
    EXPECT_EQ(row, sample_row(spec, 32, b)) << spec.label();
    EXPECT_NEAR(compensated_total(row), 1.0, 1e-15) << spec.label();
    for (double x : row) EXPECT_GE(x, 0.0);
  }
}

TEST(Synthetic, ZipfRanksFollowThePowerLaw) {
  PhiloxEngine engine(DrawSite{1, Stream::generation, 1, 1});
  auto row = sample_row({RowFamily::zipf, 1.0, 1.0}, 4, engine);
  std::sort(row.begin(), row.end(), std::greater<>());
  // Weights 1, 1/2, 1/3, 1/4 over their total 25/12.
  EXPECT_NEAR(row[0], 12.0 / 25.0, 1e-15);
  EXPECT_NEAR(row[3], 3.0 / 25.0, 1e-15);
}

TEST(Synthetic, PerturbationControlsTheKL) {
  const DrawSite same{1, Stream::generation, 1, 1};
  PhiloxEngine e0(same), e1(same), e2(same), base(DrawSite{2, Stream::generation, 2, 2});
  const auto p = sample_row({RowFamily::dirichlet, 1.0, 1.0}, 64, base);
  EXPECT_NEAR(kl_divergence(p, perturb_row(p, 0.0, e0)), 0.0, 1e-14);
  const double small = kl_divergence(p, perturb_row(p, 0.2, e1));
  const double large = kl_divergence(p, perturb_row(p, 1.0, e2));
  EXPECT_GT(small, 0.0);
  EXPECT_GT(large, small);
  // KL(p ‖ q) with q missing p's mass is infinite.
  EXPECT_TRUE(
      std::isinf(kl_divergence(std::vector<double>{.5, .5}, std::vector<double>{1.0, 0.0})));
}

TEST(Synthetic, LanguageRowsDependOnlyOnThePrefix) {
  const SyntheticLanguage language({RowFamily::gaussian_logits, 2.0, 1.0}, 8, 0.5, 3);
  const std::vector<Token> a = {1, 2}, b = {2, 1};
  EXPECT_EQ(language.target_row(a), language.target_row(a));
  EXPECT_NE(language.target_row(a), language.target_row(b));
  EXPECT_NE(language.target_row(a), language.draft_row(a));
}

}  // namespace
}  // namespace tev::workloads
