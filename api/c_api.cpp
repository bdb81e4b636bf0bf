// The C API (<tevsuite/check.h>) over the C++ one (<tevsuite/check.hpp>): the callbacks wrapped as verifiers, the
// reports held behind an opaque handle. No exception crosses into C: an error becomes TEV_ERROR
// with its message as the description.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <tevsuite/check.h>
#include <tevsuite/check.hpp>

struct tev_randomness {
  tevsuite::Randomness* randomness;
};

// The draws of one enumerated (or sampled) run of a drawing verifier. What a draw throws (the
// enumeration stopping a run to take it again another way) cannot cross the C verifier's frames:
// it is kept here, the draws answer -1 from then on, and it is rethrown once the verifier returns.
struct tev_draws {
  tevsuite::Draws* draws;
  std::exception_ptr stopped;

  template <class Draw>
  auto draw(Draw&& d) -> decltype(d(*draws)) {
    if (stopped) return -1;
    try {
      return d(*draws);
    } catch (...) {
      stopped = std::current_exception();
      return -1;
    }
  }
};

struct tev_check_result {
  tev_verdict verdict = TEV_ERROR;
  std::string description;
  struct Case {
    std::string id;
    tev_verdict verdict;
    double p_value, p_holm, detectable_tv;
  };
  std::vector<Case> cases;
};

namespace {

using namespace tevsuite;

tev_verdict c_verdict(Verdict v) { return static_cast<tev_verdict>(v); }

// A callback's block: its return code checked, its length within the room it was given. `source`
// is the callback's randomness (tev_randomness) or draws (tev_draws).
template <class Callback, class CaseT, class Source>
Block call(Callback callback, void* user, const CaseT& c, Source* source, std::int32_t capacity) {
  Block block;
  block.accepted.resize(static_cast<std::size_t>(capacity));
  std::int32_t length = 0;
  if (const int code =
          callback(user, &c, source, block.accepted.data(), capacity, &length, &block.bonus);
      code != 0) {
    throw std::runtime_error("the verifier returned " + std::to_string(code) + " on case " +
                             std::string(c.id));
  }
  if (length < 0 || length > capacity) {
    throw std::runtime_error("the verifier accepted " + std::to_string(length) +
                             " tokens on case " + std::string(c.id) + ", outside [0, " +
                             std::to_string(capacity) + "]");
  }
  block.accepted.resize(static_cast<std::size_t>(length));
  return block;
}

void add_cases(tev_check_result& out, const Report& report) {
  out.verdict = c_verdict(report.verdict);
  out.description = report.description;
  for (const CaseResult& r : report.cases)
    out.cases.push_back(
        {r.id, c_verdict(r.verdict), r.p_value, r.p_holm, r.detectable_tv.value_or(NAN)});
}

// Runs `check` into a new result, turning any exception into TEV_ERROR.
template <class Check>
tev_check_result* run_check(bool has_verifier, Check&& check) {
  auto* out = new (std::nothrow) tev_check_result;
  if (out == nullptr) return nullptr;
  try {
    if (!has_verifier) throw std::invalid_argument("no verifier function");
    check(*out);
  } catch (const std::exception& e) {
    out->verdict = TEV_ERROR;
    out->description = std::string("error: ") + e.what();
    out->cases.clear();
  } catch (...) {
    out->verdict = TEV_ERROR;
    out->description = "error: the verifier threw something that is not a std::exception";
    out->cases.clear();
  }
  return out;
}

// The C options of a C++ options struct (TreeCheckOptions or ModelCheckOptions), and back.
template <class Options>
tev_check_options c_options(const Options& o) {
  return {o.cases, o.samples, o.seed, o.alpha, o.threads, o.engine_inputs ? 1 : 0};
}
template <class Options>
Options cpp_options(const tev_check_options* given) {
  Options o;
  const tev_check_options c = given ? *given : c_options(o);
  o.cases = c.cases;
  o.samples = c.samples;
  o.seed = c.seed;
  o.alpha = c.alpha;
  o.threads = c.threads;
  o.engine_inputs = c.engine_inputs != 0;
  return o;
}

// Case k of a result, or null outside [0, cases) (the accessors answer NULL, TEV_ERROR or NAN).
const tev_check_result::Case* case_at(const tev_check_result* r, int32_t k) {
  return k >= 0 && static_cast<std::size_t>(k) < r->cases.size()
             ? &r->cases[static_cast<std::size_t>(k)]
             : nullptr;
}

template <class T>
T field(const tev_check_result* r, int32_t k, T tev_check_result::Case::*member,
        std::type_identity_t<T> absent) {
  const auto* c = case_at(r, k);
  return c ? c->*member : absent;
}

// The C view of a case's parameters, kept in `storage`; null when the case has none.
const tev_sampling* c_sampling(const std::optional<SamplingParams>& s, tev_sampling& storage) {
  if (!s) return nullptr;
  storage = {s->temperature, s->top_k, s->top_p, s->min_p, static_cast<int32_t>(s->order)};
  return &storage;
}

// The C pointer of a row block: NULL when the case does not have it.
const double* data_or_null(std::span<const double> rows) {
  return rows.empty() ? nullptr : rows.data();
}

// The C view of a fixed-tree case, its parameters kept in `storage`. The views' strings are the
// cases' own std::strings: null-terminated.
tev_tree_case c_tree_case(const TreeCase& view, tev_sampling& storage) {
  return {view.id.data(),
          view.label.data(),
          view.vocab,
          view.nodes(),
          view.parents.data(),
          view.tokens.data(),
          data_or_null(view.probs),
          data_or_null(view.logits),
          c_sampling(view.sampling, storage)};
}

// Rows of a batch's blocks as the C verifier wrote them (accepted_lengths[k] tokens in row k),
// padded with -1 after each row's last accepted token as a BlockBatch is.
BlockBatch padded_batch(BlockBatch batch, const std::vector<std::int32_t>& lengths,
                        const std::string& round) {
  const auto width = static_cast<std::size_t>(batch.width);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    if (lengths[k] < 0 || lengths[k] > batch.width) {
      throw std::runtime_error("the verifier accepted " + std::to_string(lengths[k]) +
                               " tokens on " + round + ", request " + std::to_string(k) +
                               ", outside [0, " + std::to_string(batch.width) + "]");
    }
    std::fill(batch.accepted.begin() +
                  static_cast<std::ptrdiff_t>(k * width + static_cast<std::size_t>(lengths[k])),
              batch.accepted.begin() + static_cast<std::ptrdiff_t>((k + 1) * width), -1);
  }
  return batch;
}

void copy_message(const char* message, char* error, std::size_t error_size) {
  if (error != nullptr && error_size > 0) std::snprintf(error, error_size, "%s", message);
}

const ModelCase& model_of(const tev_model_case* c) {
  return *static_cast<const ModelCase*>(c->rows);
}

// A prefix the case has rows for: 0 to D tokens, each in [0, V).
bool valid_prefix(const tev_model_case* c, const int32_t* prefix, int32_t length) {
  if (c == nullptr || length < 0 || length > c->depth || (length > 0 && prefix == nullptr))
    return false;
  for (int32_t k = 0; k < length; ++k) {
    if (prefix[k] < 0 || prefix[k] >= c->vocab) return false;
  }
  return true;
}

bool engine_shaped(const tev_model_case* c) {
  return c != nullptr && model_of(c).target_sampling.has_value();
}

}  // namespace

extern "C" {

const char* tev_version(void) { return TEVSUITE_VERSION_STRING; }

double tev_uniform(tev_randomness* r) { return r->randomness->uniform(); }
uint64_t tev_random_bits(tev_randomness* r) { return r->randomness->bits(); }

int tev_process_logits(const double* logits, int32_t vocab, const tev_sampling* params,
                       double* out) {
  if (logits == nullptr || params == nullptr || out == nullptr || vocab < 1) return -1;
  try {
    const std::size_t v = static_cast<std::size_t>(vocab);
    if (params->order < TEV_ORDER_MIN_P_FIRST || params->order > TEV_ORDER_TOP_P_FULL_AND_TOP_K)
      return -1;
    process_logits({logits, v},
                   {params->temperature, params->top_k, params->top_p, params->min_p,
                    static_cast<FilterOrder>(params->order)},
                   {out, v});
    return 0;
  } catch (const std::exception&) {
    return -1;
  }
}

const double* tev_model_p(const tev_model_case* c, const int32_t* prefix, int32_t length) {
  return valid_prefix(c, prefix, length) && !engine_shaped(c)
             ? model_of(c).p({prefix, static_cast<std::size_t>(length)}).data()
             : nullptr;
}
const double* tev_model_q(const tev_model_case* c, const int32_t* prefix, int32_t length) {
  return valid_prefix(c, prefix, length) && !engine_shaped(c)
             ? model_of(c).q({prefix, static_cast<std::size_t>(length)}).data()
             : nullptr;
}
const double* tev_model_p_logits(const tev_model_case* c, const int32_t* prefix, int32_t length) {
  return valid_prefix(c, prefix, length) && engine_shaped(c)
             ? model_of(c).p_logits({prefix, static_cast<std::size_t>(length)}).data()
             : nullptr;
}
const double* tev_model_q_logits(const tev_model_case* c, const int32_t* prefix, int32_t length) {
  return valid_prefix(c, prefix, length) && engine_shaped(c)
             ? model_of(c).q_logits({prefix, static_cast<std::size_t>(length)}).data()
             : nullptr;
}

tev_check_options tev_tree_check_defaults(void) { return c_options(TreeCheckOptions{}); }
tev_check_options tev_model_check_defaults(void) { return c_options(ModelCheckOptions{}); }

tev_check_result* tev_check_tree_verifier(tev_tree_verifier verifier, void* user,
                                          const tev_check_options* options) {
  return run_check(verifier != nullptr, [&](tev_check_result& out) {
    add_cases(out, check_tree_verifier(
                       [&](const TreeCase& view, Randomness& randomness) {
                         tev_sampling sampling;
                         tev_randomness r{&randomness};
                         return call(verifier, user, c_tree_case(view, sampling), &r,
                                     view.nodes() - 1);
                       },
                       cpp_options<TreeCheckOptions>(options)));
  });
}

tev_check_result* tev_check_model_verifier(tev_model_verifier verifier, void* user,
                                           const tev_check_options* options) {
  return run_check(verifier != nullptr, [&](tev_check_result& out) {
    add_cases(out, check_model_verifier(
                       [&](const ModelCase& view, Randomness& randomness) {
                         tev_sampling target, drafter;
                         const tev_model_case c{view.id.data(),
                                                view.label.data(),
                                                view.vocab,
                                                view.depth,
                                                &view,
                                                c_sampling(view.target_sampling, target),
                                                c_sampling(view.drafter_sampling, drafter)};
                         tev_randomness r{&randomness};
                         return call(verifier, user, c, &r, view.depth);
                       },
                       cpp_options<ModelCheckOptions>(options)));
  });
}

tev_batch_options tev_batch_check_defaults(void) {
  const BatchCheckOptions o;
  return {o.batches, o.requests, o.rounds, o.seed, o.alpha, o.engine_inputs ? 1 : 0};
}

tev_check_result* tev_check_batch_verifier(tev_batch_verifier verifier, void* user,
                                           const tev_batch_options* options) {
  return run_check(verifier != nullptr, [&](tev_check_result& out) {
    const tev_batch_options c = options ? *options : tev_batch_check_defaults();
    const BatchCheckOptions o{c.batches, c.requests, c.rounds,
                              c.alpha,   c.seed,     c.engine_inputs != 0};
    add_cases(out, check_batch_verifier(
                       [&](std::span<const TreeCase> requests, Randomness& round) {
                         const auto count = requests.size();
                         std::vector<tev_sampling> sampling(count);
                         std::vector<tev_tree_case> cases;
                         std::int32_t width = 0;
                         for (std::size_t k = 0; k < count; ++k) {
                           cases.push_back(c_tree_case(requests[k], sampling[k]));
                           width = std::max(width, requests[k].nodes() - 1);
                         }
                         BlockBatch batch{
                             width,
                             std::vector<std::int32_t>(count * static_cast<std::size_t>(width), -1),
                             std::vector<std::int32_t>(count, -1)};
                         std::vector<std::int32_t> lengths(count, 0);
                         tev_randomness r{&round};
                         const std::string where = "round " + std::to_string(round.sample()) +
                                                   " of the batch of " +
                                                   std::string(requests.front().id);
                         if (const int code = verifier(
                                 user, cases.data(), static_cast<std::int32_t>(count), &r,
                                 batch.accepted.data(), width, lengths.data(), batch.bonus.data());
                             code != 0) {
                           throw std::runtime_error("the verifier returned " +
                                                    std::to_string(code) + " on " + where);
                         }
                         return padded_batch(std::move(batch), lengths, where);
                       },
                       o));
  });
}

int64_t tev_draw_categorical(tev_draws* d, const double* weights, size_t count) {
  return d->draw([&](Draws& draws) {
    return static_cast<int64_t>(draws.categorical({weights, count}));
  });
}
int32_t tev_draw_next_token(tev_draws* d, int32_t node, const double* weights, int32_t vocab) {
  return d->draw([&](Draws& draws) {
    return draws.next_token(node, {weights, static_cast<std::size_t>(std::max(vocab, 0))});
  });
}

int tev_exact_law(tev_drawing_verifier verifier, void* user, const tev_tree_case* c,
                  tev_exact_law_result* out, char* error, size_t error_size) {
  try {
    if (verifier == nullptr || c == nullptr || out == nullptr)
      throw std::invalid_argument("a NULL verifier, case or result");
    if (c->nodes < 1 || c->vocab < 1 || c->parents == nullptr || c->tokens == nullptr ||
        c->probs == nullptr) {
      throw std::invalid_argument(
          "the case needs nodes >= 1, vocab >= 1, parents, tokens and probs");
    }
    const auto nodes = static_cast<std::size_t>(c->nodes);
    const OwnedTreeCase owned{c->id ? c->id : "",
                              c->label ? c->label : "",
                              c->vocab,
                              {c->parents, c->parents + nodes},
                              {c->tokens, c->tokens + nodes},
                              {c->probs, c->probs + nodes * static_cast<std::size_t>(c->vocab)}};
    const ExactLaw law = exact_law(drawing([&](const TreeCase& view, Draws& draws) {
                                     tev_sampling sampling;
                                     tev_draws d{&draws, {}};
                                     Block block;
                                     try {
                                       block = call(verifier, user, c_tree_case(view, sampling), &d,
                                                    view.nodes() - 1);
                                     } catch (const std::exception&) {
                                       if (!d.stopped) throw;
                                     }
                                     if (d.stopped) std::rethrow_exception(d.stopped);
                                     return block;
                                   }),
                                   owned);
    *out = {law.tv, law.mean_length, law.ceiling, law.completion_probability};
    return 0;
  } catch (const std::exception& e) {
    copy_message(e.what(), error, error_size);
  } catch (...) {
    copy_message("the verifier threw something that is not a std::exception", error, error_size);
  }
  return -1;
}

tev_verdict tev_result_verdict(const tev_check_result* r) { return r->verdict; }
const char* tev_result_description(const tev_check_result* r) { return r->description.c_str(); }
int32_t tev_result_cases(const tev_check_result* r) {
  return static_cast<int32_t>(r->cases.size());
}
const char* tev_result_case_id(const tev_check_result* r, int32_t k) {
  const auto* c = case_at(r, k);
  return c ? c->id.c_str() : nullptr;
}
tev_verdict tev_result_case_verdict(const tev_check_result* r, int32_t k) {
  return field(r, k, &tev_check_result::Case::verdict, TEV_ERROR);
}
double tev_result_case_p_value(const tev_check_result* r, int32_t k) {
  return field(r, k, &tev_check_result::Case::p_value, NAN);
}
double tev_result_case_p_holm(const tev_check_result* r, int32_t k) {
  return field(r, k, &tev_check_result::Case::p_holm, NAN);
}
double tev_result_case_detectable_tv(const tev_check_result* r, int32_t k) {
  return field(r, k, &tev_check_result::Case::detectable_tv, NAN);
}
void tev_result_free(tev_check_result* r) { delete r; }

}  // extern "C"
