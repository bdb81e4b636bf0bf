// The Python module tevsuite._tevsuite over the public C++ library (<tevsuite/check.hpp> and
// <tevsuite/generation.hpp>): cases as numpy arrays, Python verifiers (per sample or batched) and
// generation loops called back with the GIL held, and the GIL released while tevsuite samples its
// completions and judges. The Python layer (tevsuite/__init__.py) validates the callables'
// answers and names the case and sample (the request and generation).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tevsuite/check.h>
#include <tevsuite/check.hpp>
#include <tevsuite/generation.hpp>

#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace py = pybind11;
using namespace tevsuite;

namespace {

// A fixed-tree case as Python sees it: its arrays copied once per case (not per sample), so a
// verifier may keep them.
// Sampling parameters as Python sees them: a dict of temperature, top_k, top_p, min_p and order
// ("min_p_first", "min_p_last" or "top_p_full_and_top_k"), every key present; None where a case has none.
py::object sampling_dict(const std::optional<SamplingParams>& p) {
  if (!p) return py::none();
  return py::dict(py::arg("temperature") = p->temperature, py::arg("top_k") = p->top_k,
                  py::arg("top_p") = p->top_p, py::arg("min_p") = p->min_p,
                  py::arg("order") = std::string(order_name(p->order)));
}

struct PyTreeCase {
  std::string id, label;
  std::int32_t vocab = 0;
  py::array_t<std::int32_t> parents, tokens;  // (N)
  py::object probs;                           // (N, V) float64; None on an engine-shaped case
  py::object logits;    // (N, V) float64 on an engine-shaped case; None otherwise
  py::object sampling;  // sampling_dict
};

// An (rows, columns) copy of `values` that Python cannot write to.
template <class T>
py::array_t<T> read_only_table(std::span<const T> values, std::int32_t rows, std::int32_t columns) {
  py::array_t<T> a({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns)},
                   values.data());
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

PyTreeCase make_tree_case(const TreeCase& c) {
  PyTreeCase out{std::string(c.id), std::string(c.label),     c.vocab, {}, {}, py::none(),
                 py::none(),        sampling_dict(c.sampling)};
  out.parents = py::array_t<std::int32_t>(c.parents.size(), c.parents.data());
  out.tokens = py::array_t<std::int32_t>(c.tokens.size(), c.tokens.data());
  for (auto* a : {&out.parents, &out.tokens}) a->attr("setflags")(py::arg("write") = false);
  if (c.sampling) {
    out.logits = read_only_table(c.logits, c.nodes(), c.vocab);
  } else {
    out.probs = read_only_table(c.probs, c.nodes(), c.vocab);
  }
  return out;
}

// A model case as Python sees it during one call: p and q by prefix, copied on each read (V
// entries). Reading it after the call has returned raises.
struct PyModelCase {
  std::string id, label;
  std::int32_t vocab = 0, depth = 0;
  std::optional<DraftingHint> drafting;
  const ModelCase* live = nullptr;
  py::object target_sampling, drafter_sampling;  // sampling_dict

  py::array_t<double> row(std::span<const double> (ModelCase::*which)(std::span<const std::int32_t>)
                              const,
                          const std::vector<std::int32_t>& prefix) const {
    if (live == nullptr)
      throw std::runtime_error("model case " + id + " read after the verifier call returned");
    if (static_cast<std::int32_t>(prefix.size()) > depth)
      throw std::invalid_argument("model case " + id + ": a prefix longer than its depth");
    for (const std::int32_t t : prefix) {
      if (t < 0 || t >= vocab)
        throw std::invalid_argument("model case " + id + ": prefix token " + std::to_string(t) +
                                    " outside [0, V)");
    }
    const std::span<const double> r = (live->*which)(prefix);
    return py::array_t<double>(r.size(), r.data());
  }
};

// A case of the caller's own (exact_law's): arrays copied and checked for shape; the library checks
// the tree.
PyTreeCase own_tree_case(
    const py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>& parents,
    const py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>& tokens,
    const py::array_t<double, py::array::c_style | py::array::forcecast>& probs,
    const std::string& id, const std::string& label) {
  if (parents.ndim() != 1 || tokens.ndim() != 1 || parents.size() != tokens.size() ||
      parents.size() < 1) {
    throw std::invalid_argument("parents and tokens: expected two (N) integer arrays, N >= 1");
  }
  if (probs.ndim() != 2 || probs.shape(0) != parents.size() || probs.shape(1) < 1)
    throw std::invalid_argument("probs: expected an (N, V) array");
  const OwnedTreeCase owned{id,
                            label,
                            static_cast<std::int32_t>(probs.shape(1)),
                            {parents.data(), parents.data() + parents.size()},
                            {tokens.data(), tokens.data() + tokens.size()},
                            {probs.data(), probs.data() + probs.size()}};
  return make_tree_case(owned.view());
}

OwnedTreeCase owned_tree_case(const PyTreeCase& c) {
  if (c.probs.is_none())
    throw std::invalid_argument("case " + c.id +
                                ": exact_law needs probs (an engine-shaped case has logits)");
  const auto probs = c.probs.cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
  return {c.id,
          c.label,
          c.vocab,
          {c.parents.data(), c.parents.data() + c.parents.size()},
          {c.tokens.data(), c.tokens.data() + c.tokens.size()},
          {probs.data(), probs.data() + probs.size()}};
}

// One enumerated run's draws during one call (categorical, next_token); invalid after it. What a
// draw throws (the enumeration stopping a run to take it again another way) must reach the
// enumeration as itself, not as a Python exception the verifier might catch: it is kept, the draw
// raises, and the call's wrapper rethrows it once the verifier has returned or raised.
struct PyDraws {
  Draws* live = nullptr;
  std::exception_ptr stopped;

  template <class Draw>
  auto draw(Draw&& d) {
    if (live == nullptr) throw std::runtime_error("draws used after their verifier call returned");
    if (stopped) throw std::runtime_error("the enumeration stopped this run of the verifier");
    try {
      return d(*live);
    } catch (...) {
      stopped = std::current_exception();
      throw std::runtime_error("the enumeration stopped this run of the verifier");
    }
  }
};

std::vector<double> weight_vector(
    const py::array_t<double, py::array::c_style | py::array::forcecast>& w) {
  if (w.ndim() != 1) throw std::invalid_argument("weights: expected a 1-dimensional array");
  return {w.data(), w.data() + w.size()};
}

// One sample's randomness during one call (uniform, bits, sample); invalid after it.
struct PyRandomness {
  Randomness* live = nullptr;
  std::uint64_t sample = 0;
  Randomness& get() const {
    if (live == nullptr)
      throw std::runtime_error("the randomness of sample " + std::to_string(sample) +
                               " used after its verifier call returned");
    return *live;
  }
};

// Python's answers, already validated and made int32 by the Python layer: an (N) or (n, D) array.
py::array_t<std::int32_t, py::array::c_style> int_array(const py::handle& h) {
  auto a = py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>::ensure(h);
  if (!a) throw std::invalid_argument("expected an integer array");
  return a;
}

std::vector<std::int32_t> int_vector(const py::handle& h) {
  const auto a = int_array(h);
  return {a.data(), a.data() + a.size()};
}

// Python exceptions raised in a callback cross tevsuite's threads as C++ exceptions that carry
// the Python error; pybind11 restores it when the check returns to Python.
template <class Check>
Report run_released(Check&& check) {
  // Ctrl-C: the check polls on this thread between small pieces of its work, judging included;
  // a pending signal raises its exception (KeyboardInterrupt) there and ends the check.
  const InterruptPoll poll([] {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  });
  py::gil_scoped_release release;
  return check();
}

// engine_order(request, batch) -> an order's name or None, called with sampling_dict's dicts;
// None: every case as it states itself. The callable is held by reference: it outlives the check.
EngineOrder engine_order_of(const py::object& engine_order) {
  if (engine_order.is_none()) return {};
  return [&engine_order](const SamplingParams& request,
                         std::span<const SamplingParams> batch) -> std::optional<FilterOrder> {
    py::gil_scoped_acquire gil;
    py::list others;
    for (const SamplingParams& p : batch) others.append(sampling_dict(p));
    const py::object order = engine_order(sampling_dict(request), others);
    if (order.is_none()) return std::nullopt;
    return parse_order(order.cast<std::string>());
  };
}

TreeCheckOptions tree_options(std::int32_t cases, std::uint64_t samples, std::int32_t large_vocab,
                              std::uint64_t large_vocab_factor, double alpha, std::uint32_t seed,
                              int threads, bool engine_inputs, const EngineOrder& engine_order) {
  return {cases,
          samples,
          large_vocab,
          large_vocab_factor,
          alpha,
          seed,
          threads,
          engine_inputs,
          engine_order ? &engine_order : nullptr};
}

// Per-case Python objects, made once per case on first use (GIL held), so that a callable sees
// the same object for every call on a case.
class CaseCache {
 public:
  template <class Make>
  py::object get(const std::string& id, Make&& make) {
    auto it = cases_.find(id);
    if (it == cases_.end()) it = cases_.emplace(id, make()).first;
    return it->second;
  }
  py::object get(const TreeCase& c) {
    return get(std::string(c.id), [&] { return py::cast(make_tree_case(c)); });
  }
  ~CaseCache() {
    py::gil_scoped_acquire gil;
    cases_.clear();
  }

 private:
  std::map<std::string, py::object> cases_;
};

py::object model_case_object(const ModelCase& c, PyModelCase*& raw) {
  auto owned = std::make_unique<PyModelCase>(
      PyModelCase{std::string(c.id), std::string(c.label), c.vocab, c.depth, c.drafting, &c,
                  sampling_dict(c.target_sampling), sampling_dict(c.drafter_sampling)});
  raw = owned.get();
  return py::cast(std::move(owned));
}

py::object randomness_object(Randomness& r, PyRandomness*& raw) {
  auto owned = std::make_unique<PyRandomness>(PyRandomness{&r, r.sample()});
  raw = owned.get();
  return py::cast(std::move(owned));
}

Block block_of(const py::object& answer) {
  const py::tuple t = answer.cast<py::tuple>();
  return {int_vector(t[0]), t[1].cast<std::int32_t>()};
}

// A generation request as Python sees it: the library's request, its grammar's tables made into
// read-only numpy arrays once per case.
struct PyGenerationGrammar {
  std::int32_t states = 0, start = 0;
  py::array_t<std::uint8_t> allowed;  // (states, V)
  py::array_t<std::int32_t> next;     // (states, V)
};

struct PyGenerationRequest {
  GenerationRequest request;
  py::object grammar;  // PyGenerationGrammar, or None
};

struct PyGenerationCase {
  GenerationCase c;
  py::object request;  // PyGenerationRequest

  // (count, V) float64: the raw logits after each sequence (prompt ‖ generated ‖ drafted).
  py::array_t<double> rows(bool target,
                           const std::vector<std::vector<std::int32_t>>& sequences) const {
    const std::vector<double> r = target ? c.target_logits(sequences) : c.draft_logits(sequences);
    return py::array_t<double>(
        {static_cast<py::ssize_t>(sequences.size()), static_cast<py::ssize_t>(c.request().vocab)},
        r.data());
  }
};

py::object generation_case_object(const GenerationCase& c) {
  const GenerationRequest& r = c.request();
  py::object grammar = py::none();
  if (r.grammar) {
    const GenerationGrammar& g = *r.grammar;
    grammar = py::cast(PyGenerationGrammar{
        g.states, g.start,
        read_only_table(std::span<const std::uint8_t>(g.allowed), g.states, r.vocab),
        read_only_table(std::span<const std::int32_t>(g.next), g.states, r.vocab)});
  }
  return py::cast(PyGenerationCase{c, py::cast(PyGenerationRequest{r, grammar})});
}

// A loop's answer for `count` generations, validated by the Python layer: (tokens, lengths), every
// generation's tokens one after the other in an int32 array and each one's length.
std::vector<std::vector<std::int32_t>> sequences_of(const py::object& answer) {
  const py::tuple t = answer.cast<py::tuple>();
  const auto tokens = int_array(t[0]);
  std::vector<std::vector<std::int32_t>> out;
  std::size_t at = 0;
  for (const std::int32_t length : int_vector(t[1])) {
    if (length < 0 ||
        static_cast<std::size_t>(length) > static_cast<std::size_t>(tokens.size()) - at)
      throw std::invalid_argument("the sequences' lengths do not add up to their tokens");
    out.emplace_back(tokens.data() + at, tokens.data() + at + length);
    at += static_cast<std::size_t>(length);
  }
  return out;
}

BlockBatch batch_of(const py::object& answer) {
  const py::tuple t = answer.cast<py::tuple>();
  const auto accepted = int_array(t[0]);
  if (accepted.ndim() != 2)
    throw std::invalid_argument("accepted: expected an (n, D) integer array");
  return {static_cast<std::int32_t>(accepted.shape(1)),
          {accepted.data(), accepted.data() + accepted.size()},
          int_vector(t[1])};
}

}  // namespace

PYBIND11_MODULE(_tevsuite, m) {
  m.doc() = "tevsuite's in-process conformance check (the C++ library behind the tevsuite package)";
  // The library's version (tevsuite::version()); the C API's and the headers' beside it, for the
  // test that they agree.
  m.attr("__version__") = std::string(version());
  m.attr("_c_version") = std::string(tev_version());
  m.attr("_header_version") = TEVSUITE_VERSION_STRING;
  m.attr("_header_version_parts") =
      py::make_tuple(TEVSUITE_VERSION_MAJOR, TEVSUITE_VERSION_MINOR, TEVSUITE_VERSION_PATCH);
  m.attr("kDefaultSeed") = kDefaultSeed;
  m.attr("kDefaultAlpha") = TEV_DEFAULT_ALPHA;
  m.attr("kGreedyTemperature") = kGreedyTemperature;
  // The options' ranges, which the Python layer checks before it converts anything.
  m.attr("kMaxCases") = kMaxCases;
  m.attr("kMaxSamples") = kMaxSamples;
  m.attr("kMinAlpha") = kMinAlpha;
  m.attr("kMaxAlpha") = kMaxAlpha;
  m.attr("kMaxRequests") = kMaxRequests;

  py::enum_<Verdict>(m, "Verdict", "The verdicts, numbered as tevsuite's exit codes.")
      .value("EXACT_SATURATED", Verdict::exact_saturated)
      .value("NOT_EXACT", Verdict::not_exact)
      .value("ERROR", Verdict::error)
      .value("EXACT_NOT_SATURATED", Verdict::exact_not_saturated)
      .value("INCONCLUSIVE", Verdict::inconclusive)
      .value("EXACT_SATURATION_INCONCLUSIVE", Verdict::exact_saturation_inconclusive)
      .def_property_readonly("text", [](Verdict v) { return verdict_text(v); });

  py::class_<CaseResult>(m, "CaseResult", "One case's result; p-values valid at every level.")
      .def_readonly("id", &CaseResult::id)
      .def_readonly("label", &CaseResult::label)
      .def_readonly("verdict", &CaseResult::verdict)
      .def_readonly("samples", &CaseResult::samples)
      .def_readonly("impossible", &CaseResult::impossible)
      .def_readonly("p_value", &CaseResult::p_value)
      .def_readonly("p_holm", &CaseResult::p_holm)
      .def_readonly("saturation_p_holm", &CaseResult::saturation_p_holm)
      .def_readonly("detectable_tv", &CaseResult::detectable_tv)
      .def_readonly("exact_tv", &CaseResult::exact_tv)
      .def_readonly("mean_length", &CaseResult::mean_length)
      .def_readonly("ceiling", &CaseResult::ceiling)
      .def("__repr__", [](const CaseResult& c) {
        return "<CaseResult " + c.id + ": " + verdict_text(c.verdict) + ">";
      });

  py::class_<Report>(m, "Report", "The check's verdict, per-case results and description.")
      .def_readonly("verdict", &Report::verdict)
      .def_readonly("verdict_text", &Report::verdict_text)
      .def_readonly("alpha", &Report::alpha)
      .def_readonly("cases", &Report::cases)
      .def(
          "describe", [](const Report& r) { return r.description; },
          "the verdict in a few lines, the first failing case spelled out")
      .def("first_failing",
           [](const Report& r) {
             return r.first_failing() ? std::optional<CaseResult>(*r.first_failing())
                                      : std::nullopt;
           })
      .def("__str__", [](const Report& r) { return r.description; })
      .def("__repr__", [](const Report& r) {
        return "<Report: " + r.verdict_text + ", " + std::to_string(r.cases.size()) + " cases>";
      });

  py::class_<PyTreeCase>(m, "TreeCase",
                         "A fixed-tree case: level order, node 0 the root, arrays read-only.")
      .def(py::init(&own_tree_case), py::arg("parents"), py::arg("tokens"), py::arg("probs"),
           py::kw_only(), py::arg("id") = "case", py::arg("label") = "",
           "a case of one's own (for exact_law): parents and tokens (N), -1 at the root; probs (N, "
           "V)")
      .def_readonly("id", &PyTreeCase::id)
      .def_readonly("label", &PyTreeCase::label)
      .def_readonly("vocab", &PyTreeCase::vocab)
      .def_readonly("parents", &PyTreeCase::parents, "(N) int32: parent of node i, -1 for the root")
      .def_readonly("tokens", &PyTreeCase::tokens, "(N) int32: token of node i, -1 for the root")
      .def_readonly("probs", &PyTreeCase::probs,
                    "(N, V) float64: target p(. | path to node i); None on an engine-shaped case")
      .def_readonly("logits", &PyTreeCase::logits,
                    "(N, V) float64: the target's logits on an engine-shaped case; None otherwise")
      .def_readonly("sampling", &PyTreeCase::sampling,
                    "engine-shaped cases: {temperature, top_k, top_p, min_p, order} to apply to "
                    "logits; None otherwise")
      .def_property_readonly("nodes", [](const PyTreeCase& c) { return c.parents.size(); });

  py::class_<PyModelCase>(m, "ModelCase",
                          "A model case: draft from q, at most depth deep, verify with p.")
      .def_readonly("id", &PyModelCase::id)
      .def_readonly("label", &PyModelCase::label)
      .def_readonly("vocab", &PyModelCase::vocab)
      .def_readonly("depth", &PyModelCase::depth)
      .def_property_readonly(
          "drafting",
          [](const PyModelCase& c) -> py::object {
            if (!c.drafting) return py::none();
            static const char* names[] = {"chain", "independent_chains", "iid_children",
                                          "without_replacement", "top_k"};
            return py::dict(py::arg("policy") = names[static_cast<int>(c.drafting->policy)],
                            py::arg("width") = c.drafting->width,
                            py::arg("depth") = c.drafting->depth);
          })
      // Prefixes (and Draws.next_token's node) without conversion: pybind11 would truncate a
      // float that is not a Python float (np.float32, a float tensor) to a token.
      .def(
          "p",
          [](const PyModelCase& c, const std::vector<std::int32_t>& prefix) {
            return c.row(&ModelCase::p, prefix);
          },
          py::arg("prefix").noconvert() = std::vector<std::int32_t>{},
          "(V) float64: the target's next-token row after the prefix")
      .def(
          "q",
          [](const PyModelCase& c, const std::vector<std::int32_t>& prefix) {
            return c.row(&ModelCase::q, prefix);
          },
          py::arg("prefix").noconvert() = std::vector<std::int32_t>{},
          "(V) float64: the drafter's next-token row after the prefix")
      .def(
          "p_logits",
          [](const PyModelCase& c, const std::vector<std::int32_t>& prefix) {
            return c.row(&ModelCase::p_logits, prefix);
          },
          py::arg("prefix").noconvert() = std::vector<std::int32_t>{},
          "(V) float64: an engine-shaped case's target logits after the prefix")
      .def(
          "q_logits",
          [](const PyModelCase& c, const std::vector<std::int32_t>& prefix) {
            return c.row(&ModelCase::q_logits, prefix);
          },
          py::arg("prefix").noconvert() = std::vector<std::int32_t>{},
          "(V) float64: an engine-shaped case's drafter logits after the prefix")
      .def_readonly("target_sampling", &PyModelCase::target_sampling,
                    "engine-shaped cases: what to apply to p_logits; None otherwise")
      .def_readonly("drafter_sampling", &PyModelCase::drafter_sampling,
                    "engine-shaped cases: what to apply to q_logits (the drafter drafts from it)");

  py::class_<ExactLaw>(m, "ExactLaw", "A drawing verifier's exact law on one case (exact_law).")
      .def_readonly("tv", &ExactLaw::tv, "TV from the canonical law")
      .def_readonly("mean_length", &ExactLaw::mean_length, "E[L]")
      .def_readonly("ceiling", &ExactLaw::ceiling, "1 + C_p: E[L] of a saturated verifier")
      .def_readonly("completion_probability", &ExactLaw::completion_probability,
                    "P(the bonus is a drafted child's token); 0 when saturated")
      .def("__repr__", [](const ExactLaw& l) {
        return "<ExactLaw tv=" + std::to_string(l.tv) +
               " mean_length=" + std::to_string(l.mean_length) +
               " ceiling=" + std::to_string(l.ceiling) + ">";
      });

  py::class_<PyDraws>(m, "Draws",
                      "A drawing verifier's draws: the only randomness exact_law lets it use.")
      .def(
          "categorical",
          [](PyDraws& d,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& weights) {
            const std::vector<double> w = weight_vector(weights);
            return d.draw([&](Draws& draws) { return draws.categorical(w); });
          },
          py::arg("weights"), "i with probability weights[i] / sum(weights)")
      .def(
          "next_token",
          [](PyDraws& d, std::int32_t node,
             const py::array_t<double, py::array::c_style | py::array::forcecast>& weights) {
            const std::vector<double> w = weight_vector(weights);
            return d.draw([&](Draws& draws) { return draws.next_token(node, w); });
          },
          py::arg("node").noconvert(), py::arg("weights"),
          "the token after `node` drawn from weights (V); one that is not a drafted child of node "
          "is the bonus: return at once");

  py::class_<PyRandomness>(m, "Randomness",
                           "One sample's randomness (Philox on tevsuite's verifier stream).")
      .def(
          "uniform", [](const PyRandomness& r) { return r.get().uniform(); }, "a float in [0, 1)")
      .def(
          "bits", [](const PyRandomness& r) { return r.get().bits(); }, "64 random bits")
      .def_readonly("sample", &PyRandomness::sample);

  m.def(
      "_check_tree",
      [](const py::function& verify, std::int32_t cases, std::uint64_t samples,
         std::int32_t large_vocab, std::uint64_t large_vocab_factor, double alpha,
         std::uint32_t seed, int threads, bool engine_inputs, const py::object& engine_order) {
        CaseCache cache;
        const EngineOrder order = engine_order_of(engine_order);
        const TreeVerifier verifier = [&](const TreeCase& c, Randomness& r) {
          py::gil_scoped_acquire gil;
          PyRandomness* raw = nullptr;
          const py::object randomness = randomness_object(r, raw);
          const Block b = block_of(verify(cache.get(c), randomness));
          raw->live = nullptr;
          return b;
        };
        return run_released([&] {
          return check_tree_verifier(
              verifier, tree_options(cases, samples, large_vocab, large_vocab_factor, alpha, seed,
                                     threads, engine_inputs, order));
        });
      },
      py::arg("verify"), py::kw_only(), py::arg("cases"), py::arg("samples"),
      py::arg("large_vocab"), py::arg("large_vocab_factor"), py::arg("alpha"), py::arg("seed"),
      py::arg("threads"), py::arg("engine_inputs"), py::arg("engine_order"));

  m.def(
      "_check_tree_batched",
      [](const py::function& verify, std::int32_t cases, std::uint64_t samples,
         std::int32_t large_vocab, std::uint64_t large_vocab_factor, double alpha,
         std::uint32_t seed, int threads, bool engine_inputs, const py::object& engine_order,
         std::uint64_t batch) {
        CaseCache cache;
        const EngineOrder order = engine_order_of(engine_order);
        const TreeBatchVerifier verifier = [&](const TreeCase& c, std::uint64_t first,
                                               std::uint64_t count, std::uint64_t batch_seed) {
          py::gil_scoped_acquire gil;
          return batch_of(verify(cache.get(c), first, count, batch_seed));
        };
        return run_released([&] {
          return check_tree_verifier_batched(
              verifier,
              tree_options(cases, samples, large_vocab, large_vocab_factor, alpha, seed, threads,
                           engine_inputs, order),
              batch);
        });
      },
      py::arg("verify"), py::kw_only(), py::arg("cases"), py::arg("samples"),
      py::arg("large_vocab"), py::arg("large_vocab_factor"), py::arg("alpha"), py::arg("seed"),
      py::arg("threads"), py::arg("engine_inputs"), py::arg("engine_order"), py::arg("batch"));

  m.def(
      "_check_model",
      [](const py::function& verify, std::int32_t cases, std::uint64_t samples, double alpha,
         std::uint32_t seed, int threads, bool engine_inputs) {
        const ModelVerifier verifier = [&](const ModelCase& c, Randomness& r) {
          py::gil_scoped_acquire gil;
          PyModelCase* model = nullptr;
          PyRandomness* randomness = nullptr;
          const py::object case_object = model_case_object(c, model);
          const py::object randomness_obj = randomness_object(r, randomness);
          const Block b = block_of(verify(case_object, randomness_obj));
          model->live = nullptr;
          randomness->live = nullptr;
          return b;
        };
        return run_released([&] {
          return check_model_verifier(
              verifier, ModelCheckOptions{cases, samples, alpha, seed, threads, engine_inputs});
        });
      },
      py::arg("verify"), py::kw_only(), py::arg("cases"), py::arg("samples"), py::arg("alpha"),
      py::arg("seed"), py::arg("threads"), py::arg("engine_inputs"));

  m.def(
      "_check_model_batched",
      [](const py::function& verify, std::int32_t cases, std::uint64_t samples, double alpha,
         std::uint32_t seed, int threads, bool engine_inputs, std::uint64_t batch) {
        const ModelBatchVerifier verifier = [&](const ModelCase& c, std::uint64_t first,
                                                std::uint64_t count, std::uint64_t batch_seed) {
          py::gil_scoped_acquire gil;
          PyModelCase* model = nullptr;
          const py::object case_object = model_case_object(c, model);
          const BlockBatch b = batch_of(verify(case_object, first, count, batch_seed));
          model->live = nullptr;
          return b;
        };
        return run_released([&] {
          return check_model_verifier_batched(
              verifier, ModelCheckOptions{cases, samples, alpha, seed, threads, engine_inputs},
              batch);
        });
      },
      py::arg("verify"), py::kw_only(), py::arg("cases"), py::arg("samples"), py::arg("alpha"),
      py::arg("seed"), py::arg("threads"), py::arg("engine_inputs"), py::arg("batch"));

  m.def(
      "_exact_law",
      [](const py::function& verify, const PyTreeCase& c) {
        const py::object case_object = py::cast(c);
        const DrawingVerifier verifier = drawing([&](const TreeCase&, Draws& draws) {
          auto owned = std::make_unique<PyDraws>();
          owned->live = &draws;
          PyDraws* raw = owned.get();
          const py::object draws_object = py::cast(std::move(owned));
          std::optional<Block> block;
          try {
            block = block_of(verify(case_object, draws_object));
          } catch (...) {
            raw->live = nullptr;
            if (raw->stopped) std::rethrow_exception(raw->stopped);
            throw;
          }
          raw->live = nullptr;
          if (raw->stopped) std::rethrow_exception(raw->stopped);
          return *block;
        });
        return exact_law(verifier, owned_tree_case(c));
      },
      py::arg("verify"), py::arg("case"));

  m.def(
      "_check_batch",
      [](const py::function& verify, std::int32_t batches, std::int32_t requests,
         std::uint64_t rounds, double alpha, std::uint32_t seed, bool engine_inputs,
         const py::object& engine_order) {
        CaseCache cache;
        const EngineOrder order = engine_order_of(engine_order);
        const RequestBatchVerifier verifier = [&](std::span<const TreeCase> batch, Randomness& r) {
          py::gil_scoped_acquire gil;
          py::list cases;
          for (const TreeCase& c : batch) cases.append(cache.get(c));
          PyRandomness* raw = nullptr;
          const py::object randomness = randomness_object(r, raw);
          const BlockBatch b = batch_of(verify(cases, randomness));
          raw->live = nullptr;
          return b;
        };
        return run_released([&] {
          return check_batch_verifier(
              verifier, BatchCheckOptions{batches, requests, rounds, alpha, seed, engine_inputs,
                                          order ? &order : nullptr});
        });
      },
      py::arg("verify"), py::kw_only(), py::arg("batches"), py::arg("requests"), py::arg("rounds"),
      py::arg("alpha"), py::arg("seed"), py::arg("engine_inputs"), py::arg("engine_order"));

  py::class_<PyGenerationGrammar>(m, "GenerationGrammar",
                                  "A request's allowed-token automaton: token t is allowed in "
                                  "state s where allowed[s, t] is 1, and leads to next[s, t].")
      .def_readonly("states", &PyGenerationGrammar::states)
      .def_readonly("start", &PyGenerationGrammar::start)
      .def_readonly("allowed", &PyGenerationGrammar::allowed, "(states, V) uint8, read-only")
      .def_readonly("next", &PyGenerationGrammar::next, "(states, V) int32, read-only");

  py::class_<PyGenerationRequest> request(
      m, "GenerationRequest",
      "A generation request as the engine receives it (read-only); its parameters mean what they "
      "mean in the engine `semantics` names.");
  const auto field = [&request](const char* name, auto member, const char* doc) {
    request.def_property_readonly(
        name, [member](const PyGenerationRequest& r) { return r.request.*member; }, doc);
  };
  const auto sampling_field = [&request](const char* name, auto member) {
    request.def_property_readonly(
        name, [member](const PyGenerationRequest& r) { return r.request.sampling.*member; });
  };
  field("id", &GenerationRequest::id, "the request's name");
  field("semantics", &GenerationRequest::semantics,
        "whose sampler the parameters follow: \"vllm\", \"hf\" or \"llama_cpp\"");
  field("vocab", &GenerationRequest::vocab, "V");
  field("prompt", &GenerationRequest::prompt, "the prompt's tokens (a list)");
  sampling_field("temperature", &SamplingParams::temperature);
  sampling_field("top_k", &SamplingParams::top_k);
  sampling_field("top_p", &SamplingParams::top_p);
  sampling_field("min_p", &SamplingParams::min_p);
  request.def_property_readonly("order", [](const PyGenerationRequest& r) {
    return std::string(order_name(r.request.sampling.order));
  });
  field("repetition_penalty", &GenerationRequest::repetition_penalty, "1: off");
  field("frequency_penalty", &GenerationRequest::frequency_penalty, "0: off");
  field("presence_penalty", &GenerationRequest::presence_penalty, "0: off");
  field("penalty_last_n", &GenerationRequest::penalty_last_n,
        "llama_cpp: the window of prompt ‖ output the penalties count (-1: all)");
  request.def_property_readonly(
      "logit_bias",
      [](const PyGenerationRequest& r) {
        py::dict out;
        for (const auto& [token, bias] : r.request.logit_bias) out[py::int_(token)] = bias;
        return out;
      },
      "{token: bias} added to the raw logits");
  field("min_tokens", &GenerationRequest::min_tokens,
        "EOS (and in vllm stop) ids are forbidden before this many tokens are generated");
  field("eos", &GenerationRequest::eos, "end-of-sequence ids (a list)");
  field("stop", &GenerationRequest::stop, "stop token ids (a list), emitted and ending generation");
  field("max_new_tokens", &GenerationRequest::max_new_tokens, "the most tokens a generation emits");
  request.def_readonly("grammar", &PyGenerationRequest::grammar, "a GenerationGrammar, or None");
  request.def("__repr__", [](const PyGenerationRequest& r) {
    return "<GenerationRequest " + r.request.id + " (" + r.request.semantics + ")>";
  });

  py::class_<PyGenerationCase>(
      m, "GenerationCase",
      "One request of check_generation with the target and drafter its generations run on.")
      .def_property_readonly("id", [](const PyGenerationCase& c) { return c.c.request().id; })
      .def_property_readonly("vocab", [](const PyGenerationCase& c) { return c.c.request().vocab; })
      .def_readonly("request", &PyGenerationCase::request)
      // Sequences without conversion, as ModelCase's prefixes: a float token raises TypeError.
      .def(
          "target",
          [](const PyGenerationCase& c, const std::vector<std::vector<std::int32_t>>& sequences) {
            return c.rows(true, sequences);
          },
          py::arg("sequences").noconvert(),
          "(len(sequences), V) float64: the target's raw logits of the next token after each "
          "sequence (prompt ‖ generated ‖ drafted tokens, a list or integer array)")
      .def(
          "drafter",
          [](const PyGenerationCase& c, const std::vector<std::vector<std::int32_t>>& sequences) {
            return c.rows(false, sequences);
          },
          py::arg("sequences").noconvert(), "(len(sequences), V) float64: the drafter's raw logits")
      .def("__repr__",
           [](const PyGenerationCase& c) { return "<GenerationCase " + c.c.request().id + ">"; });

  m.def(
      "generation_cases",
      [](const std::optional<std::string>& semantics) {
        py::list out;
        for (const GenerationCase& c : generation_cases(semantics.value_or("")))
          out.append(generation_case_object(c));
        return out;
      },
      py::kw_only(), py::arg("semantics") = py::none(),
      "the requests check_generation runs, as its loop sees them; with semantics (\"vllm\", "
      "\"hf\" or \"llama_cpp\"), only those in it");

  m.def(
      "_check_generation",
      [](const py::function& loop, std::uint64_t samples, std::uint64_t batch, double alpha,
         std::uint32_t seed, const std::optional<std::string>& semantics) {
        CaseCache cache;
        const GenerationLoop generation_loop = [&](const GenerationCase& c, std::uint64_t first,
                                                   std::uint64_t count, std::uint64_t batch_seed) {
          py::gil_scoped_acquire gil;
          const py::object case_object =
              cache.get(c.request().id, [&] { return generation_case_object(c); });
          return sequences_of(loop(case_object, first, count, batch_seed));
        };
        return run_released([&] {
          return check_generation(
              generation_loop,
              GenerationCheckOptions{samples, batch, alpha, seed, semantics.value_or("")});
        });
      },
      py::arg("loop"), py::kw_only(), py::arg("samples"), py::arg("batch"), py::arg("alpha"),
      py::arg("seed"), py::arg("semantics"));

  m.def(
      "process_logits",
      [](const py::array_t<double, py::array::c_style | py::array::forcecast>& logits,
         double temperature, std::int64_t top_k, double top_p, double min_p,
         const std::string& order) {
        if (logits.ndim() != 1) throw std::invalid_argument("logits: expected a (V) array");
        const FilterOrder filter_order = parse_order(order);
        py::array_t<double> out(logits.size());
        process_logits({logits.data(), static_cast<std::size_t>(logits.size())},
                       {temperature, top_k, top_p, min_p, filter_order},
                       {out.mutable_data(), static_cast<std::size_t>(out.size())});
        return out;
      },
      py::arg("logits"), py::kw_only(), py::arg("temperature") = 1.0, py::arg("top_k") = 0,
      py::arg("top_p") = 1.0, py::arg("min_p") = 0.0, py::arg("order") = "min_p_first",
      "tevsuite's reference: the distribution an engine samples from after the sampling parameters "
      "(docs/protocol.md)");
}
