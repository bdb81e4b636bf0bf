#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/target_rows.hpp"

namespace tev {
namespace {

TEST(TargetRows, NormalizesAndReportsLargestDeviation) {
  // Row 0 sums to 1.001, row 1 to 0.9995: the worst is row 0, off by 1e-3.
  const std::vector<double> probs = {0.5, 0.501, 0.2, 0.7995};
  const TargetRows rows = TargetRows::from_probabilities(probs, 2, 2);
  EXPECT_NEAR(rows.max_deviation(), 1e-3, 1e-15);
  EXPECT_EQ(rows.worst_row(), 0);
  EXPECT_DOUBLE_EQ(rows.row(0)[0], 0.5 / 1.001);
  EXPECT_DOUBLE_EQ(rows.row(1)[1], 0.7995 / 0.9995);
}

TEST(TargetRows, RejectsBadRows) {
  EXPECT_THROW(TargetRows::from_probabilities(std::vector<double>{0.5, 0.6}, 1, 2, 1e-3),
               std::invalid_argument);
  EXPECT_THROW(TargetRows::from_probabilities(std::vector<double>{1.5, -0.5}, 1, 2),
               std::invalid_argument);
  EXPECT_THROW(TargetRows::from_probabilities(std::vector<double>{std::nan(""), 1.0}, 1, 2),
               std::invalid_argument);
  EXPECT_THROW(TargetRows::from_probabilities(std::vector<double>{1.0}, 1, 2),
               std::invalid_argument);  // wrong size
  EXPECT_THROW(TargetRows::from_logits(std::vector<double>{0.0, 1.0}, 1, 2, 0.0),
               std::invalid_argument);
  EXPECT_THROW(TargetRows::from_logits(
                   std::vector<double>{0.0, std::numeric_limits<double>::infinity()}, 1, 2, 1.0),
               std::invalid_argument);
}

TEST(TargetRows, LogitsWithTemperature) {
  // softmax([0, ln 3] / 0.5) = softmax([0, ln 9]) = [0.1, 0.9].
  const TargetRows rows =
      TargetRows::from_logits(std::vector<double>{0.0, std::log(3.0)}, 1, 2, 0.5);
  EXPECT_NEAR(rows.row(0)[0], 0.1, 1e-15);
  EXPECT_NEAR(rows.row(0)[1], 0.9, 1e-15);
  // Huge logits stay finite thanks to the max shift.
  const TargetRows big = TargetRows::from_logits(std::vector<double>{1000.0, 1000.0}, 1, 2, 1.0);
  EXPECT_DOUBLE_EQ(big.row(0)[0], 0.5);
}

}  // namespace
}  // namespace tev
