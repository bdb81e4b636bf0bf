#include "conformance/json_input.hpp"

#include <cmath>
#include <limits>
#include <set>

#include "conformance/case_io.hpp"
#include "core/compensated_sum.hpp"

namespace tev::conformance {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  throw InputError(where + ": " + problem);
}

const json& field(const json& j, const char* name, const std::string& where) {
  const auto it = j.find(name);
  if (it == j.end()) fail(where, std::string("missing field \"") + name + "\"");
  return *it;
}

std::int64_t integer(const json& j, std::int64_t lo, std::int64_t hi, const std::string& where,
                     const std::string& what) {
  if (!j.is_number_integer()) fail(where, what + " must be an integer, got " + j.dump());
  const bool above = j.is_number_unsigned()
                         ? j.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                         : j.get<std::int64_t>() > hi;
  if (above || j.get<std::int64_t>() < lo)
    fail(where, what + " is " + j.dump() + ", outside [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  return j.get<std::int64_t>();
}

json parse_bounded(std::string_view line, std::int64_t max_values, const std::string& where) {
  std::int64_t values = 0;
  const json::parser_callback_t count = [&](int, json::parse_event_t event, json&) {
    if (event == json::parse_event_t::value && ++values > max_values) {
      fail(where,
           "more than " + std::to_string(max_values) +
               " JSON values, more than a case within the cell limit needs (kMaxJsonValues = " +
               std::to_string(kMaxJsonValues) + " for kMaxCells = " + std::to_string(kMaxCells) +
               ")");
    }
    return true;
  };
  try {
    return json::parse(line, count);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    fail(where, std::string("not valid JSON (") + e.what() + ")");
  }
}

double probability(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number()) fail(where, what + " must be a number, got " + j.dump());
  const double p = j.get<double>();
  if (!std::isfinite(p) || p < 0.0)
    fail(where, what + " is " + j.dump() + ": probabilities must be finite and non-negative");
  return p;
}

void read_row(const json& row, std::int64_t vocab, const std::vector<Token>& required,
              std::span<double> out, const std::string& where) {
  if (row.is_array()) {
    if (static_cast<std::int64_t>(row.size()) != vocab) {
      fail(where, "dense row has " + std::to_string(row.size()) + " entries, vocab is " +
                      std::to_string(vocab));
    }
    for (std::size_t a = 0; a < row.size(); ++a)
      out[a] = probability(row[a], where, "entry " + std::to_string(a));
    const double total = compensated_total(out);
    if (std::abs(total - 1.0) > kRowTolerance)
      fail(where,
           "row sums to " + json(total).dump() + ", not 1 within " + json(kRowTolerance).dump());
    return;
  }
  if (!row.is_object())
    fail(where, "a row must be an array of " + std::to_string(vocab) +
                    " probabilities or a sparse {\"tokens\", \"probs\"} object");
  const json& tokens = field(row, "tokens", where);
  const json& probs = field(row, "probs", where);
  if (!tokens.is_array() || !probs.is_array() || tokens.size() != probs.size()) {
    fail(where, "sparse row needs \"tokens\" and \"probs\" arrays of equal length");
  }
  std::set<Token> listed;
  CompensatedSum listed_mass;
  std::fill(out.begin(), out.end(), 0.0);
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::int64_t t =
        integer(tokens[k], 0, vocab - 1, where, "sparse token " + std::to_string(k));
    if (!listed.insert(static_cast<Token>(t)).second)
      fail(where, "sparse row lists token " + std::to_string(t) + " twice");
    out[static_cast<std::size_t>(t)] =
        probability(probs[k], where, "sparse prob " + std::to_string(k));
    listed_mass.add(out[static_cast<std::size_t>(t)]);
  }
  for (Token c : required) {
    if (!listed.count(c)) fail(where, "sparse row does not list child token " + std::to_string(c));
  }
  const double rest = 1.0 - listed_mass.value();
  if (rest < -kRowTolerance)
    fail(where, "sparse row lists mass " + json(listed_mass.value()).dump() + " > 1");
  const auto unlisted = vocab - static_cast<std::int64_t>(listed.size());
  if (unlisted == 0) {
    if (std::abs(rest) > kRowTolerance)
      fail(where, "sparse row lists every token but sums to " + json(listed_mass.value()).dump());
    return;
  }
  fill_unlisted(out, listed, listed_mass.value());
}

namespace {

double logit(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number()) fail(where, what + " must be a number, got " + j.dump());
  const double z = j.get<double>();
  if (!std::isfinite(z)) fail(where, what + " is " + j.dump() + ": logits must be finite");
  return z;
}

// A finite number in [lo, hi], either end excluded when open.
double number_in(const json& j, double lo, double hi, bool lo_open, bool hi_open,
                 const std::string& where, const std::string& what, const std::string& rule) {
  if (!j.is_number()) fail(where, what + " must be a number, got " + j.dump());
  const double x = j.get<double>();
  if (!std::isfinite(x) || x > hi || x < lo || (lo_open && x == lo) || (hi_open && x == hi))
    fail(where, what + " is " + j.dump() + ": " + rule);
  return x;
}

}  // namespace

void read_logit_row(const json& row, std::int64_t vocab, std::span<double> out,
                    const std::string& where) {
  if (row.is_array()) {
    if (static_cast<std::int64_t>(row.size()) != vocab) {
      fail(where, "dense logit row has " + std::to_string(row.size()) + " entries, vocab is " +
                      std::to_string(vocab));
    }
    for (std::size_t a = 0; a < row.size(); ++a)
      out[a] = logit(row[a], where, "logit " + std::to_string(a));
    return;
  }
  if (!row.is_object())
    fail(where, "a logit row must be an array of " + std::to_string(vocab) +
                    " logits or a sparse {\"tokens\", \"logits\", \"fill\"} object");
  const json& tokens = field(row, "tokens", where);
  const json& logits = field(row, "logits", where);
  if (!tokens.is_array() || !logits.is_array() || tokens.size() != logits.size()) {
    fail(where, "sparse logit row needs \"tokens\" and \"logits\" arrays of equal length");
  }
  const bool all_listed = static_cast<std::int64_t>(tokens.size()) == vocab;
  const double fill =
      all_listed && !row.contains("fill") ? 0.0 : logit(field(row, "fill", where), where, "fill");
  std::fill(out.begin(), out.end(), fill);
  std::set<Token> listed;
  for (std::size_t k = 0; k < tokens.size(); ++k) {
    const std::int64_t t =
        integer(tokens[k], 0, vocab - 1, where, "sparse token " + std::to_string(k));
    if (!listed.insert(static_cast<Token>(t)).second)
      fail(where, "sparse logit row lists token " + std::to_string(t) + " twice");
    out[static_cast<std::size_t>(t)] = logit(logits[k], where, "sparse logit " + std::to_string(k));
  }
}

SamplingParams read_sampling(const json& j, const std::string& where) {
  if (!j.is_object())
    fail(
        where,
        "sampling must be an object {\"temperature\", \"top_k\", \"top_p\", \"min_p\", \"order\"}");
  SamplingParams params;
  for (const auto& [name, value] : j.items()) {
    if (name == "temperature") {
      params.temperature =
          number_in(value, 0.0, std::numeric_limits<double>::max(), false, false, where,
                    "temperature", "must be finite and at least 0 (below 1e-5: greedy)");
    } else if (name == "top_k") {
      params.top_k = integer(value, 0, kMaxVocab, where, "top_k");
    } else if (name == "top_p") {
      params.top_p =
          number_in(value, 0.0, 1.0, true, false, where, "top_p", "must lie in (0, 1] (1: off)");
    } else if (name == "min_p") {
      params.min_p =
          number_in(value, 0.0, 1.0, false, true, where, "min_p", "must lie in [0, 1) (0: off)");
    } else if (name == "order") {
      if (!value.is_string())
        fail(where,
             "order must be \"min_p_first\", \"min_p_last\" or \"top_p_full_and_top_k\", got " +
                 value.dump());
      try {
        params.order = parse_order(value.get<std::string>());
      } catch (const std::invalid_argument& e) {
        fail(where, e.what());
      }
    } else {
      fail(where, "unknown sampling parameter \"" + name +
                      "\" (known: temperature, top_k, top_p, min_p, order)");
    }
  }
  return params;
}

BuiltTree read_tree(const json& parents_j, const json& tokens_j, std::int64_t vocab,
                    const std::string& at) {
  const auto n = static_cast<std::int64_t>(parents_j.size());
  std::vector<NodeId> parents(static_cast<std::size_t>(n));
  std::vector<Token> tokens(static_cast<std::size_t>(n), kNoToken);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::string node = "node " + std::to_string(i);
    parents[static_cast<std::size_t>(i)] = static_cast<NodeId>(
        integer(parents_j[static_cast<std::size_t>(i)], -1, n - 1, at, node + " parent"));
    if (i == 0) {
      if (!tokens_j[0].is_null()) fail(at, "tokens[0] (the root) must be null");
      continue;
    }
    tokens[static_cast<std::size_t>(i)] = static_cast<Token>(
        integer(tokens_j[static_cast<std::size_t>(i)], 0, vocab - 1, at, node + " token"));
  }
  try {
    return tree_from_parents(parents, tokens, static_cast<std::int32_t>(vocab));
  } catch (const std::invalid_argument& e) {
    fail(at, e.what());
  }
}

json parse_sample_line(std::string_view line, const std::string& where) {
  try {
    return json::parse(line);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
    throw InputError(where + ": not valid JSON (" + e.what() + ")");
  }
}

std::int64_t token_field(const json& j, const std::string& where, const std::string& what) {
  if (!j.is_number_integer())
    throw InputError(where + ": " + what + " must be an integer token, got " + j.dump());
  return j.get<std::int64_t>();
}

std::int64_t format_version(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "a case must be a JSON object");
  return any_integer(field(j, "format_version", where), where, "format_version");
}

std::string read_header(const json& j, const std::string& where, std::string& id,
                        std::string& label, std::uint64_t& samples) {
  const json& id_j = field(j, "case_id", where);
  if (!id_j.is_string() || id_j.get<std::string>().empty())
    fail(where, "case_id must be a non-empty string");
  id = id_j.get<std::string>();
  const std::string at = where + " (case " + id + ")";
  if (j.contains("label") && j["label"].is_string()) label = j["label"].get<std::string>();
  samples =
      static_cast<std::uint64_t>(integer(field(j, "samples", at), 1, kMaxSamples, at, "samples"));
  return at;
}

}  // namespace tev::conformance
