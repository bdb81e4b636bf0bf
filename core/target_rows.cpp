#include "core/target_rows.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/compensated_sum.hpp"
#include "core/softmax.hpp"

namespace tev {

namespace {
void require_shape(std::size_t size, std::int32_t rows, std::int32_t vocab) {
  if (rows <= 0 || vocab <= 0) throw std::invalid_argument("rows and vocabulary must be positive");
  if (size != static_cast<std::size_t>(rows) * static_cast<std::size_t>(vocab)) {
    throw std::invalid_argument("expected " + std::to_string(rows) + " x " + std::to_string(vocab) +
                                " values, got " + std::to_string(size));
  }
}
}  // namespace

TargetRows TargetRows::from_probabilities(std::span<const double> probs, std::int32_t rows,
                                          std::int32_t vocab, double tolerance) {
  require_shape(probs.size(), rows, vocab);
  TargetRows out;
  out.rows_ = rows;
  out.vocab_ = vocab;
  out.prob_.assign(probs.begin(), probs.end());
  for (std::int32_t r = 0; r < rows; ++r) {
    std::span<double> row(
        out.prob_.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(vocab),
        static_cast<std::size_t>(vocab));
    for (std::int32_t a = 0; a < vocab; ++a) {
      if (!std::isfinite(row[a]) || row[a] < 0.0) {
        throw std::invalid_argument("row " + std::to_string(r) + " token " + std::to_string(a) +
                                    ": probability " + std::to_string(row[a]) +
                                    " is negative or not finite");
      }
    }
    const double total = compensated_total(row);
    const double deviation = std::abs(total - 1.0);
    if (!(deviation <= tolerance)) {
      throw std::invalid_argument("row " + std::to_string(r) + " sums to " + std::to_string(total) +
                                  ", more than " + std::to_string(tolerance) + " from 1");
    }
    if (deviation > out.max_deviation_) {
      out.max_deviation_ = deviation;
      out.worst_row_ = r;
    }
    for (double& x : row) x /= total;
  }
  return out;
}

TargetRows TargetRows::from_logits(std::span<const double> logits, std::int32_t rows,
                                   std::int32_t vocab, double temperature) {
  require_shape(logits.size(), rows, vocab);
  if (!(temperature > 0.0) || !std::isfinite(temperature)) {
    throw std::invalid_argument(
        "temperature must be positive and finite (greedy decoding is not sampling)");
  }
  std::vector<double> probs(logits.size());
  const auto width = static_cast<std::size_t>(vocab);
  for (std::int32_t r = 0; r < rows; ++r) {
    const std::span<const double> in = logits.subspan(static_cast<std::size_t>(r) * width, width);
    if (!std::all_of(in.begin(), in.end(), [](double z) { return std::isfinite(z); })) {
      throw std::invalid_argument("row " + std::to_string(r) + " has a non-finite logit");
    }
    softmax(in, std::span<double>(probs).subspan(static_cast<std::size_t>(r) * width, width),
            temperature);
  }
  return from_probabilities(probs, rows, vocab);
}

void require_rows_match(const DraftTree& tree, const TargetRows& rows) {
  if (rows.rows() != tree.size() || rows.vocab() != tree.vocab) {
    throw std::invalid_argument("target rows are " + std::to_string(rows.rows()) + " x " +
                                std::to_string(rows.vocab()) + " but the tree has " +
                                std::to_string(tree.size()) + " nodes over a vocabulary of " +
                                std::to_string(tree.vocab));
  }
}

}  // namespace tev
