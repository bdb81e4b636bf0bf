#include "models/llama2c.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "core/softmax.hpp"

namespace tev::models {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using WeightMap = Eigen::Map<const RowMatrix>;
constexpr float kNormEpsilon = 1e-5f;
constexpr float kRopeBase = 10000.0f;

std::string shape_text(const Llama2Config& c) {
  return "dim " + std::to_string(c.dim) + ", hidden_dim " + std::to_string(c.hidden_dim) +
         ", n_layers " + std::to_string(c.n_layers) + ", n_heads " + std::to_string(c.n_heads) +
         ", n_kv_heads " + std::to_string(c.n_kv_heads) + ", vocab_size " +
         std::to_string(c.vocab_size) + ", seq_len " + std::to_string(c.seq_len);
}

void validate(const Llama2Config& c, const std::string& where) {
  const bool positive = c.dim > 0 && c.hidden_dim > 0 && c.n_layers > 0 && c.n_heads > 0 &&
                        c.n_kv_heads > 0 && c.vocab_size > 0 && c.seq_len > 0;
  if (!positive)
    throw std::runtime_error(where + ": not a llama2.c checkpoint (header " + shape_text(c) + ")");
  if (c.dim % c.n_heads != 0 || c.n_heads % c.n_kv_heads != 0 || c.head_size() % 2 != 0) {
    throw std::runtime_error(
        where + ": inconsistent transformer shape (" + shape_text(c) +
        "): n_heads must divide dim, n_kv_heads must divide n_heads, head size must be even");
  }
  // Guards the size arithmetic below against absurd headers.
  if (c.dim > (1 << 16) || c.hidden_dim > (1 << 18) || c.n_layers > 4096 ||
      c.vocab_size > (1 << 22) || c.seq_len > (1 << 22)) {
    throw std::runtime_error(where + ": header sizes beyond any checkpoint this tool reads (" +
                             shape_text(c) + ")");
  }
}

// The offsets of run.c's weight tensors, in floats from the end of the header.
struct Layout {
  std::size_t embedding, rms_att, wq, wk, wv, wo, rms_ffn, w1, w2, w3, rms_final, classifier, total;
  explicit Layout(const Llama2Config& c) {
    const auto dim = static_cast<std::size_t>(c.dim),
               hidden = static_cast<std::size_t>(c.hidden_dim),
               layers = static_cast<std::size_t>(c.n_layers),
               kv = static_cast<std::size_t>(c.kv_dim()),
               vocab = static_cast<std::size_t>(c.vocab_size),
               head = static_cast<std::size_t>(c.head_size()),
               seq = static_cast<std::size_t>(c.seq_len);
    std::size_t at = 0;
    auto take = [&](std::size_t n) {
      const std::size_t here = at;
      at += n;
      return here;
    };
    embedding = take(vocab * dim);
    rms_att = take(layers * dim);
    wq = take(layers * dim * dim);
    wk = take(layers * kv * dim);
    wv = take(layers * kv * dim);
    wo = take(layers * dim * dim);
    rms_ffn = take(layers * dim);
    w1 = take(layers * hidden * dim);
    w2 = take(layers * dim * hidden);
    w3 = take(layers * hidden * dim);
    rms_final = take(dim);
    take(seq * head);  // freq_cis_real and freq_cis_imag (seq_len × head_size/2 each), unused
    classifier = c.shared_classifier ? embedding : take(vocab * dim);
    total = at;
  }
};

void rms_norm(RowMatrix& x, const float* weight) {
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const float scale =
        1.0f / std::sqrt(x.row(t).squaredNorm() / static_cast<float>(x.cols()) + kNormEpsilon);
    for (Eigen::Index i = 0; i < x.cols(); ++i) x(t, i) = weight[i] * (scale * x(t, i));
  }
}

// RoPE at `position` on one row of queries (dim) and keys (kv_dim), pairs (2i, 2i + 1) within each head.
void rotate(float* q, float* k, std::int32_t position, const Llama2Config& c) {
  for (std::int32_t i = 0; i < c.dim; i += 2) {
    const auto head_dim = static_cast<float>(i % c.head_size());
    const float angle = static_cast<float>(position) /
                        std::pow(kRopeBase, head_dim / static_cast<float>(c.head_size()));
    const float cos_a = std::cos(angle), sin_a = std::sin(angle);
    for (float* v : {q, i < c.kv_dim() ? k : nullptr}) {
      if (v == nullptr) continue;
      const float v0 = v[i], v1 = v[i + 1];
      v[i] = v0 * cos_a - v1 * sin_a;
      v[i + 1] = v0 * sin_a + v1 * cos_a;
    }
  }
}

// Positions 0..n−1, each token seeing itself and every earlier one: a plain left-to-right pass.
struct CausalPass {
  std::vector<std::int32_t> positions;
  std::vector<std::vector<std::int32_t>> sees;
  explicit CausalPass(std::size_t n) : positions(n), sees(n) {
    for (std::size_t t = 0; t < n; ++t) {
      positions[t] = static_cast<std::int32_t>(t);
      for (std::size_t j = 0; j <= t; ++j) sees[t].push_back(static_cast<std::int32_t>(j));
    }
  }
};

// The classifier's float logits as a probability row (core/softmax.hpp, in double).
std::vector<double> probabilities(const Eigen::Ref<const Eigen::RowVectorXf>& logits) {
  std::vector<double> p(static_cast<std::size_t>(logits.size()));
  for (Eigen::Index i = 0; i < logits.size(); ++i)
    p[static_cast<std::size_t>(i)] = static_cast<double>(logits(i));
  softmax(p, p);
  return p;
}

}  // namespace

std::size_t Llama2Config::weight_floats() const { return Layout(*this).total; }

Llama2Checkpoint read_llama2c(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open llama2.c checkpoint " + path);
  std::int32_t header[7];
  if (!in.read(reinterpret_cast<char*>(header), sizeof header))
    throw std::runtime_error(path + ": shorter than a llama2.c header (28 bytes)");
  Llama2Checkpoint cp;
  Llama2Config& c = cp.config;
  c = {header[0], header[1], header[2], header[3], header[4], header[5], header[6], header[5] > 0};
  c.vocab_size = std::abs(c.vocab_size);
  validate(c, path);
  const std::size_t floats = c.weight_floats();
  const auto size = std::filesystem::file_size(path);
  const std::size_t expected = sizeof header + floats * sizeof(float);
  if (size != expected) {
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, but its header (" +
                             shape_text(c) + (c.shared_classifier ? ", shared" : ", unshared") +
                             " classifier) calls for " + std::to_string(expected) +
                             (size < expected ? " (truncated?)" : " (not a llama2.c checkpoint?)"));
  }
  cp.weights.resize(floats);
  if (!in.read(reinterpret_cast<char*>(cp.weights.data()),
               static_cast<std::streamsize>(floats * sizeof(float)))) {
    throw std::runtime_error(path + ": read error");
  }
  for (float w : cp.weights) {
    if (!std::isfinite(w)) throw std::runtime_error(path + ": a weight is NaN or infinite");
  }
  return cp;
}

void write_llama2c(const std::string& path, const Llama2Checkpoint& checkpoint) {
  const Llama2Config& c = checkpoint.config;
  validate(c, path);
  if (checkpoint.weights.size() != c.weight_floats())
    throw std::invalid_argument("checkpoint weights do not match its header");
  const std::int32_t header[7] = {c.dim,        c.hidden_dim,
                                  c.n_layers,   c.n_heads,
                                  c.n_kv_heads, c.shared_classifier ? c.vocab_size : -c.vocab_size,
                                  c.seq_len};
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  out.write(reinterpret_cast<const char*>(checkpoint.weights.data()),
            static_cast<std::streamsize>(checkpoint.weights.size() * sizeof(float)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

Llama2Checkpoint random_llama2c(const Llama2Config& config, std::uint32_t seed) {
  validate(config, "random checkpoint");
  Llama2Checkpoint cp{config, std::vector<float>(config.weight_floats())};
  const Layout at(config);
  std::mt19937 rng(seed);
  auto fill = [&](std::size_t from, std::size_t count, float mean, float sd) {
    std::normal_distribution<float> normal(mean, sd);
    for (std::size_t i = from; i < from + count; ++i) cp.weights[i] = normal(rng);
  };
  const auto dim = static_cast<std::size_t>(config.dim),
             hidden = static_cast<std::size_t>(config.hidden_dim),
             layers = static_cast<std::size_t>(config.n_layers),
             kv = static_cast<std::size_t>(config.kv_dim()),
             vocab = static_cast<std::size_t>(config.vocab_size);
  const float in_dim = 1.0f / std::sqrt(static_cast<float>(dim)),
              in_hidden = 1.0f / std::sqrt(static_cast<float>(hidden));
  fill(at.embedding, vocab * dim, 0.0f, 1.0f);
  fill(at.rms_att, layers * dim, 1.0f, 0.1f);
  fill(at.wq, layers * dim * dim, 0.0f, in_dim);
  fill(at.wk, layers * kv * dim, 0.0f, in_dim);
  fill(at.wv, layers * kv * dim, 0.0f, in_dim);
  fill(at.wo, layers * dim * dim, 0.0f, in_dim);
  fill(at.rms_ffn, layers * dim, 1.0f, 0.1f);
  fill(at.w1, layers * hidden * dim, 0.0f, in_dim);
  fill(at.w2, layers * dim * hidden, 0.0f, in_hidden);
  fill(at.w3, layers * hidden * dim, 0.0f, in_dim);
  fill(at.rms_final, dim, 1.0f, 0.1f);
  if (!config.shared_classifier) fill(at.classifier, vocab * dim, 0.0f, in_dim);
  return cp;
}

std::vector<std::string> read_llama2c_tokenizer(const std::string& path, std::int32_t vocab) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open tokenizer " + path);
  std::int32_t max_length = 0;
  in.read(reinterpret_cast<char*>(&max_length), sizeof max_length);
  std::vector<std::string> texts;
  for (std::int32_t t = 0; t < vocab; ++t) {
    float score = 0.0f;
    std::int32_t length = 0;
    in.read(reinterpret_cast<char*>(&score), sizeof score);
    in.read(reinterpret_cast<char*>(&length), sizeof length);
    if (!in || length < 0 || length > max_length)
      throw std::runtime_error(path + ": not a llama2.c tokenizer for " + std::to_string(vocab) +
                               " tokens");
    std::string text(static_cast<std::size_t>(length), '\0');
    in.read(text.data(), length);
    texts.push_back(std::move(text));
  }
  if (!in) throw std::runtime_error(path + ": truncated tokenizer");
  return texts;
}

struct Llama2Model::Cache {
  std::vector<RowMatrix> keys, values;  // per layer: (positions so far, kv_dim)
  explicit Cache(std::int32_t layers)
      : keys(static_cast<std::size_t>(layers)), values(static_cast<std::size_t>(layers)) {}
};

Llama2Model::Llama2Model(std::shared_ptr<const Llama2Checkpoint> checkpoint, std::int32_t layers,
                         std::string name, std::vector<std::string> token_texts)
    : checkpoint_(std::move(checkpoint)),
      layers_(layers),
      name_(std::move(name)),
      token_texts_(std::move(token_texts)) {
  if (layers_ < 1 || layers_ > checkpoint_->config.n_layers) {
    throw std::invalid_argument("a llama2.c model runs 1 to " +
                                std::to_string(checkpoint_->config.n_layers) + " layers, not " +
                                std::to_string(layers_));
  }
  if (!token_texts_.empty() && static_cast<std::int32_t>(token_texts_.size()) != vocab())
    throw std::invalid_argument("tokenizer size differs from the vocabulary");
}

std::string Llama2Model::token_text(Token t) const {
  if (!token_texts_.empty()) return token_texts_.at(static_cast<std::size_t>(t));
  std::string id = "<";  // built in steps: g++ 12 warns falsely (-Wrestrict) on "<" + std::string
  id += std::to_string(t);
  id += '>';
  return id;
}

void Llama2Model::require_fits(std::span<const Token> tokens, std::size_t length) const {
  if (tokens.empty())
    throw std::invalid_argument(name_ + ": an empty context (start it with BOS = 1)");
  for (Token t : tokens) {
    if (t < 0 || t >= vocab())
      throw std::invalid_argument(name_ + ": token " + std::to_string(t) +
                                  " outside the vocabulary");
  }
  if (length > static_cast<std::size_t>(checkpoint_->config.seq_len)) {
    throw std::invalid_argument(name_ + ": " + std::to_string(length) +
                                " positions exceed seq_len " +
                                std::to_string(checkpoint_->config.seq_len));
  }
}

Eigen::MatrixXf Llama2Model::forward(Cache& cache, std::span<const Token> tokens,
                                     std::span<const std::int32_t> positions,
                                     const std::vector<std::vector<std::int32_t>>& sees) const {
  const Llama2Config& c = checkpoint_->config;
  const Layout at(c);
  const float* w = checkpoint_->weights.data();
  const auto n = static_cast<Eigen::Index>(tokens.size());
  const std::int32_t head = c.head_size(), kv_dim = c.kv_dim(), group = c.n_heads / c.n_kv_heads;
  const std::size_t dim = static_cast<std::size_t>(c.dim),
                    hidden = static_cast<std::size_t>(c.hidden_dim);
  const float scale = 1.0f / std::sqrt(static_cast<float>(head));

  RowMatrix x(n, c.dim);  // (T, dim) residual stream
  for (Eigen::Index t = 0; t < n; ++t)
    x.row(t) =
        WeightMap(w + at.embedding, c.vocab_size, c.dim).row(tokens[static_cast<std::size_t>(t)]);
  for (std::int32_t l = 0; l < layers_; ++l) {
    const auto layer = static_cast<std::size_t>(l);
    RowMatrix xb = x;
    rms_norm(xb, w + at.rms_att + layer * dim);
    RowMatrix q =
        xb * WeightMap(w + at.wq + layer * dim * dim, c.dim, c.dim).transpose();  // (T, dim)
    RowMatrix k =
        xb * WeightMap(w + at.wk + layer * static_cast<std::size_t>(kv_dim) * dim, kv_dim, c.dim)
                 .transpose();  // (T, kv_dim)
    RowMatrix v =
        xb * WeightMap(w + at.wv + layer * static_cast<std::size_t>(kv_dim) * dim, kv_dim, c.dim)
                 .transpose();  // (T, kv_dim)
    for (Eigen::Index t = 0; t < n; ++t)
      rotate(q.row(t).data(), k.row(t).data(), positions[static_cast<std::size_t>(t)], c);
    RowMatrix& keys = cache.keys[layer];
    RowMatrix& values = cache.values[layer];
    const Eigen::Index cached = keys.rows();
    keys.conservativeResize(cached + n, kv_dim);
    values.conservativeResize(cached + n, kv_dim);
    keys.bottomRows(n) = k;
    values.bottomRows(n) = v;

    RowMatrix attended = RowMatrix::Zero(n, c.dim);  // (T, dim) heads side by side
    for (Eigen::Index t = 0; t < n; ++t) {
      // Key rows token t sees: the whole cache before this call, then the new tokens it may see.
      std::vector<Eigen::Index> visible(static_cast<std::size_t>(cached));
      for (Eigen::Index r = 0; r < cached; ++r) visible[static_cast<std::size_t>(r)] = r;
      for (std::int32_t j : sees[static_cast<std::size_t>(t)]) visible.push_back(cached + j);
      for (std::int32_t h = 0; h < c.n_heads; ++h) {
        const auto query = q.row(t).segment(h * head, head);
        const std::int32_t kv_offset = (h / group) * head;
        Eigen::VectorXf score(static_cast<Eigen::Index>(visible.size()));
        for (std::size_t i = 0; i < visible.size(); ++i)
          score(static_cast<Eigen::Index>(i)) =
              query.dot(keys.row(visible[i]).segment(kv_offset, head)) * scale;
        score = (score.array() - score.maxCoeff()).exp();
        score /= score.sum();
        for (std::size_t i = 0; i < visible.size(); ++i) {
          attended.row(t).segment(h * head, head) +=
              score(static_cast<Eigen::Index>(i)) * values.row(visible[i]).segment(kv_offset, head);
        }
      }
    }
    x += attended * WeightMap(w + at.wo + layer * dim * dim, c.dim, c.dim).transpose();

    xb = x;
    rms_norm(xb, w + at.rms_ffn + layer * dim);
    RowMatrix gate = xb * WeightMap(w + at.w1 + layer * hidden * dim, c.hidden_dim, c.dim)
                              .transpose();  // (T, hidden)
    const RowMatrix up =
        xb * WeightMap(w + at.w3 + layer * hidden * dim, c.hidden_dim, c.dim).transpose();
    gate =
        (gate.array() / (1.0f + (-gate.array()).exp())) * up.array();  // SwiGLU: silu(w1 x) ⊙ w3 x
    x += gate * WeightMap(w + at.w2 + layer * dim * hidden, c.dim, c.hidden_dim).transpose();
  }
  rms_norm(x, w + at.rms_final);
  return x * WeightMap(w + at.classifier, c.vocab_size, c.dim).transpose();
}

Eigen::MatrixXf Llama2Model::sequential_logits(std::span<const Token> tokens) const {
  require_fits(tokens, tokens.size());
  Cache cache(layers_);
  Eigen::MatrixXf logits(static_cast<Eigen::Index>(tokens.size()), vocab());
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::int32_t position = static_cast<std::int32_t>(t);
    logits.row(static_cast<Eigen::Index>(t)) =
        forward(cache, tokens.subspan(t, 1), std::span(&position, 1), {{0}});
  }
  return logits;
}

Eigen::MatrixXf Llama2Model::tree_logits(std::span<const Token> context,
                                         const DraftTree& tree) const {
  require_fits(context, context.size() + static_cast<std::size_t>(tree.max_depth()));
  Cache cache(layers_);
  const std::size_t committed =
      context.size() - 1;  // the root's own token goes through with the tree
  if (committed > 0) {
    const CausalPass pass(committed);
    forward(cache, context.first(committed), pass.positions, pass.sees);
  }
  std::vector<Token> tokens(static_cast<std::size_t>(tree.size()));
  std::vector<std::int32_t> positions(tokens.size());
  std::vector<std::vector<std::int32_t>> ancestors(
      tokens.size());  // v sees its ancestors and itself
  for (NodeId v = 0; v < tree.size(); ++v) {
    tokens[static_cast<std::size_t>(v)] = v == 0 ? context.back() : tree.token[v];
    positions[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(committed) + tree.depth[v];
    for (NodeId u = v; u != kNoNode; u = tree.parent[u])
      ancestors[static_cast<std::size_t>(v)].push_back(u);
  }
  return forward(cache, tokens, positions, ancestors);
}

std::vector<double> Llama2Model::next_row(std::span<const Token> context) const {
  require_fits(context, context.size());
  Cache cache(layers_);
  const CausalPass pass(context.size());
  const Eigen::MatrixXf logits = forward(cache, context, pass.positions, pass.sees);
  return probabilities(logits.row(logits.rows() - 1));
}

std::vector<double> Llama2Model::tree_rows(std::span<const Token> context,
                                           const DraftTree& tree) const {
  const Eigen::MatrixXf logits = tree_logits(context, tree);
  std::vector<double> rows;
  rows.reserve(static_cast<std::size_t>(logits.size()));
  for (Eigen::Index v = 0; v < logits.rows(); ++v) {
    const std::vector<double> row = probabilities(logits.row(v));
    rows.insert(rows.end(), row.begin(), row.end());
  }
  return rows;
}

}  // namespace tev::models
