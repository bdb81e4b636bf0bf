#include "models/language_model.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/compensated_sum.hpp"

namespace tev::models {

std::vector<Token> context_with_path(std::span<const Token> context, const DraftTree& tree,
                                     NodeId v) {
  std::vector<Token> out(context.begin(), context.end());
  const std::vector<Token> path = tree.path_tokens(v);
  out.insert(out.end(), path.begin(), path.end());
  return out;
}

std::string render_tokens(const LanguageModel& model, std::span<const Token> tokens) {
  std::string text;
  for (Token t : tokens) {
    if (!text.empty()) text += ' ';
    text += model.token_text(t);
  }
  return text;
}

double normalize_row(std::span<double> row, const LanguageModel& model,
                     std::span<const Token> context, double tolerance) {
  const double total = compensated_total(row);
  const double deviation = std::abs(total - 1.0);
  if (!(deviation <= tolerance)) {
    throw std::runtime_error(model.name() + ": the row after \"" + render_tokens(model, context) +
                             "\" sums to 1 ± " + std::to_string(deviation) +
                             ", beyond the tolerance " + std::to_string(tolerance));
  }
  for (double& p : row) p /= total;
  return deviation;
}

NormalizedModel::NormalizedModel(std::shared_ptr<const LanguageModel> model, double tolerance)
    : model_(std::move(model)), tolerance_(tolerance) {}

std::vector<double> NormalizedModel::next_row(std::span<const Token> context) const {
  std::vector<double> row = model_->next_row(context);
  normalize_row(row, *model_, context, tolerance_);
  return row;
}

std::vector<double> NormalizedModel::tree_rows(std::span<const Token> context,
                                               const DraftTree& tree) const {
  std::vector<double> rows = model_->tree_rows(context, tree);  // (N, V)
  const auto v_size = static_cast<std::size_t>(vocab());
  for (NodeId v = 0; v < tree.size(); ++v) {
    normalize_row(std::span<double>(rows).subspan(static_cast<std::size_t>(v) * v_size, v_size),
                  *model_, context_with_path(context, tree, v), tolerance_);
  }
  return rows;
}

std::vector<double> LanguageModel::tree_rows(std::span<const Token> context,
                                             const DraftTree& tree) const {
  const auto v_size = static_cast<std::size_t>(vocab());
  std::vector<double> rows(static_cast<std::size_t>(tree.size()) * v_size);
  oneapi::tbb::parallel_for(NodeId{0}, tree.size(), [&](NodeId v) {
    const std::vector<double> row = next_row(context_with_path(context, tree, v));
    if (row.size() != v_size) throw std::logic_error(name() + ": row of the wrong length");
    std::copy(row.begin(), row.end(),
              rows.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(v) * v_size));
  });
  return rows;
}

}  // namespace tev::models
