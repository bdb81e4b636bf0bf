#include "live/live.hpp"

#include <nlohmann/json.hpp>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

#include "conformance/case_io.hpp"
#include "core/choosers.hpp"
#include "core/exit_law.hpp"
#include "core/random_streams.hpp"
#include "stats/goodness_of_fit.hpp"
#include "workloads/synthetic.hpp"
#include "workloads/trees.hpp"
#include "core/softmax.hpp"

namespace tev::live {

std::string builder_name(TreeBuilder builder) {
  switch (builder) {
    case TreeBuilder::ddtree:
      return "ddtree";
    case TreeBuilder::dynamic:
      return "dynamic";
  }
  return "unknown";
}

std::vector<double> apply_temperature(std::span<const double> row, double temperature) {
  if (!(temperature > 0.0) || !std::isfinite(temperature))
    throw std::invalid_argument("temperature must be positive and finite");
  std::vector<double> out(row.begin(), row.end());
  if (temperature == 1.0) return out;
  if (!(*std::max_element(out.begin(), out.end()) > 0.0))
    throw std::invalid_argument("a row without positive mass");
  // p^(1/T) normalized is softmax(log p / T), computed in logs so it neither overflows nor underflows wholesale.
  for (double& p : out) p = p > 0.0 ? std::log(p) : -std::numeric_limits<double>::infinity();
  softmax(out, out, temperature);
  return out;
}

namespace {

double log_of(double q) { return q > 0.0 ? std::log(q) : -std::numeric_limits<double>::infinity(); }

}  // namespace

LiveTree build_live_tree(const models::LanguageModel& target, const models::LanguageModel& drafter,
                         std::span<const Token> context, const LiveTreeConfig& config) {
  if (target.vocab() != drafter.vocab())
    throw std::invalid_argument("target and drafter have different vocabularies");
  if (config.budget < 1) throw std::invalid_argument("budget must be at least 1");
  const std::int32_t vocab = target.vocab();
  std::vector<Token> extended;
  auto draft_row = [&](std::span<const Token> path) {
    extended.assign(context.begin(), context.end());
    extended.insert(extended.end(), path.begin(), path.end());
    std::vector<double> q = drafter.next_row(extended);
    models::normalize_row(q, drafter, extended, config.row_tolerance);
    return apply_temperature(q, config.temperature);
  };

  LiveTree live;
  live.context.assign(context.begin(), context.end());
  std::map<std::vector<Token>, std::vector<double>>
      rows_by_path;                            // dynamic builder: draft row of each expanded node
  std::vector<std::vector<double>> marginals;  // ddtree: (H, V) per-depth marginals
  BuiltTree built;
  if (config.builder == TreeBuilder::ddtree) {
    marginals = workloads::chain_marginals(draft_row, config.budget);
    built = workloads::ddtree_best_first(marginals, config.budget);
  } else {
    built = workloads::dynamic_best_first(
        [&](std::span<const Token> path) {
          std::vector<double> q = draft_row(path);
          rows_by_path.emplace(std::vector<Token>(path.begin(), path.end()), q);
          return q;
        },
        config.budget, vocab);
  }
  live.tree = std::move(built.tree);
  live.draft_log_q.assign(static_cast<std::size_t>(live.tree.size()), 0.0);
  for (NodeId v = 1; v < live.tree.size(); ++v) {
    const Token t = live.tree.token[v];
    if (config.builder == TreeBuilder::ddtree) {
      live.draft_log_q[static_cast<std::size_t>(v)] = log_of(
          marginals[static_cast<std::size_t>(live.tree.depth[v] - 1)][static_cast<std::size_t>(t)]);
    } else {
      live.draft_log_q[static_cast<std::size_t>(v)] = log_of(
          rows_by_path.at(live.tree.path_tokens(live.tree.parent[v]))[static_cast<std::size_t>(t)]);
    }
  }

  std::vector<double> rows = target.tree_rows(context, live.tree);
  const auto v_size = static_cast<std::size_t>(vocab);
  for (NodeId v = 0; v < live.tree.size(); ++v) {
    const std::span<double> row(rows.data() + static_cast<std::size_t>(v) * v_size, v_size);
    live.row_deviation = std::max(
        live.row_deviation,
        models::normalize_row(row, target, models::context_with_path(context, live.tree, v),
                              config.row_tolerance));
    const std::vector<double> tempered = apply_temperature(row, config.temperature);
    std::copy(tempered.begin(), tempered.end(), row.begin());
  }
  live.rows = TargetRows::from_probabilities(rows, live.tree.size(), vocab, config.row_tolerance);
  live.root_kl = workloads::kl_divergence(live.rows.row(0), draft_row({}));
  return live;
}

std::vector<std::vector<Token>> sample_contexts(const models::LanguageModel& model,
                                                std::int32_t count, std::int32_t length,
                                                std::uint32_t seed, Token avoid) {
  std::vector<std::vector<Token>> contexts(static_cast<std::size_t>(std::max(count, 0)));
  // Rows can cost milliseconds (the Sphinx model scores every word), so contexts are drawn in
  // parallel; each has its own substream, so the result does not depend on the thread count.
  oneapi::tbb::parallel_for(std::int32_t{0}, count, [&](std::int32_t i) {
    PhiloxChooser chooser(uses::sequences.site(seed, static_cast<std::uint32_t>(i)));
    std::vector<Token> context = {model.begin_token()};
    for (std::int32_t k = 0; k < length; ++k) {
      std::vector<double> row = model.next_row(context);
      if (avoid != kNoToken) row[static_cast<std::size_t>(avoid)] = 0.0;
      row[static_cast<std::size_t>(model.begin_token())] = 0.0;  // a context never restarts mid-way
      context.push_back(static_cast<Token>(chooser.categorical(row)));
    }
    contexts[static_cast<std::size_t>(i)] = std::move(context);
  });
  return contexts;
}

double Generation::length_p() const {
  if (rounds == 0) return 1.0;
  std::vector<stats::DrawnLaw> laws;
  for (const LengthLaw& l : length_laws) laws.push_back({l.lengths, l.mass, 1.0});
  return stats::sum_two_sided_chernoff_p(static_cast<double>(emitted), laws);
}

Generation speculative_generate(const models::LanguageModel& target,
                                const models::LanguageModel& drafter, std::span<const Token> prompt,
                                const LiveTreeConfig& config, VerifierId verifier,
                                std::int32_t rounds, std::uint32_t seed) {
  Generation g;
  g.tokens.assign(prompt.begin(), prompt.end());
  for (std::int32_t r = 0; r < rounds; ++r) {
    if (g.tokens.size() + static_cast<std::size_t>(config.budget) >
        std::min(target.max_length(), drafter.max_length()))
      break;
    const LiveTree live = build_live_tree(target, drafter, g.tokens, config);
    const ExitLaw law = ExitLaw::compute(live.tree, live.rows);
    PhiloxChooser chooser(uses::generation_rounds.site(seed, static_cast<std::uint32_t>(r)));
    const Block block = run_verifier(verifier, live.tree, live.rows, chooser);
    const std::vector<Token> accepted = live.tree.path_tokens(block.exit);
    g.tokens.insert(g.tokens.end(), accepted.begin(), accepted.end());
    g.tokens.push_back(block.bonus);
    ++g.rounds;
    g.emitted += static_cast<std::int64_t>(accepted.size()) + 1;
    g.ceiling_sum += law.ceiling();
    g.length_laws.push_back(length_law(live.tree, law));
    g.row_deviation = std::max(g.row_deviation, live.row_deviation);
  }
  return g;
}

void write_live_dump(const std::filesystem::path& file, const LiveTree& live,
                     const LiveDumpInfo& info, const models::LanguageModel& target,
                     std::uint64_t samples) {
  nlohmann::json j = nlohmann::json::parse(
      conformance::write_case(info.id, info.builder + " tree, " + info.drafter + " drafter",
                              live.tree, live.rows, samples));
  j["kind"] = "tevsuite-live-tree";
  j["model"] = info.model;
  j["drafter"] = info.drafter;
  j["builder"] = info.builder;
  j["temperature"] = info.temperature;
  j["context"] = live.context;
  j["context_text"] = models::render_tokens(target, live.context);
  nlohmann::json text = nlohmann::json::array({nullptr});
  for (NodeId v = 1; v < live.tree.size(); ++v)
    text.push_back(target.token_text(live.tree.token[v]));
  j["token_text"] = text;
  nlohmann::json log_q = nlohmann::json::array({nullptr});
  for (NodeId v = 1; v < live.tree.size(); ++v)
    log_q.push_back(live.draft_log_q[static_cast<std::size_t>(v)]);
  j["draft_log_q"] = log_q;
  j["row_max_deviation"] = live.row_deviation;
  std::ofstream out(file);
  out << j.dump() << '\n';
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

LoadedLiveTree read_live_dump(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw conformance::InputError(file.string() + ": cannot read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  const conformance::Case c = conformance::parse_case(text, file.string());
  LoadedLiveTree loaded;
  loaded.live.tree = c.tree;
  loaded.live.rows = c.rows;
  loaded.live.draft_log_q.assign(static_cast<std::size_t>(c.tree.size()), 0.0);
  loaded.info.id = c.id;
  // The live fields are optional: a plain conformance case is a live tree without a context.
  const nlohmann::json j = nlohmann::json::parse(text);
  auto text_field = [&](const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
  };
  loaded.info.model = text_field("model");
  loaded.info.drafter = text_field("drafter");
  loaded.info.builder = text_field("builder");
  if (j.contains("temperature") && j["temperature"].is_number())
    loaded.info.temperature = j["temperature"].get<double>();
  if (j.contains("context") && j["context"].is_array()) {
    for (const auto& t : j["context"]) {
      if (!t.is_number_integer())
        throw conformance::InputError(file.string() + ": context must list token ids");
      loaded.live.context.push_back(t.get<Token>());
    }
  }
  if (j.contains("draft_log_q") && j["draft_log_q"].is_array() &&
      j["draft_log_q"].size() == c.order.size()) {
    for (NodeId v = 1; v < c.tree.size(); ++v) {
      const auto& q =
          j["draft_log_q"][static_cast<std::size_t>(c.order[static_cast<std::size_t>(v)])];
      if (q.is_number()) loaded.live.draft_log_q[static_cast<std::size_t>(v)] = q.get<double>();
    }
  }
  loaded.live.row_deviation = c.rows.max_deviation();
  return loaded;
}

}  // namespace tev::live
