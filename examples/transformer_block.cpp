// A pre-norm transformer encoder block, ported function by function from a
// JAX file (examples/transformer_block.py, beside this one): token
// embedding, layer norm, causal multi-head attention through
// jaxcc::nn::dot_product_attention, a GELU MLP, a tied output embedding,
// a cross-entropy loss over a batch by vmap, and a jitted SGD step on a
// struct of parameters. The same keys give the same initial parameters as
// jax.random, so the losses and the final parameter norms match what the
// JAX file prints (examples/transformer_block.expected): run with that
// file's path as the argument, it checks them to 1e-4 and exits 1 on a
// difference.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <jaxcc/jaxcc.hpp>
#include <jaxcc/random.hpp>

#include "expected_figures.hpp"

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
using jaxcc::Array;

constexpr std::int64_t vocab = 16, d_model = 32, heads = 4, d_ff = 64, seq = 8, batch = 4;

struct LayerNorm {
  Array<float> scale, bias;
};
JAXCC_PYTREE(LayerNorm, scale, bias)

struct Params {
  Array<float> embed;
  LayerNorm ln1;
  Array<float> wqkv, wo;
  LayerNorm ln2;
  Array<float> w1, b1, w2, b2;
};
JAXCC_PYTREE(Params, embed, ln1, wqkv, wo, ln2, w1, b1, w2, b2)

Params init_params(jr::KeyArray const& key) {
  auto const k = jr::split(key, 7);
  float const scale = 1.0f / std::sqrt(float(d_model));
  return Params{jr::normal(k[0], {vocab, d_model}) * 0.02f,
                {jnp::ones<float>({d_model}), jnp::zeros<float>({d_model})},
                jr::normal(k[1], {d_model, 3 * d_model}) * scale,
                jr::normal(k[2], {d_model, d_model}) * scale,
                {jnp::ones<float>({d_model}), jnp::zeros<float>({d_model})},
                jr::normal(k[3], {d_model, d_ff}) * scale,
                jnp::zeros<float>({d_ff}),
                jr::normal(k[4], {d_ff, d_model}) / std::sqrt(float(d_ff)),
                jnp::zeros<float>({d_model})};
}

Array<float> layer_norm(Array<float> const& x, LayerNorm const& p, float eps = 1e-5f) {
  auto const mean = jnp::mean(x, -1, true);
  auto const var = jnp::var(x, -1, 0, true);
  return (x - mean) * jaxcc::lax::rsqrt(var + eps) * p.scale + p.bias;
}

Array<float> attention(Array<float> const& x, Array<float> const& wqkv, Array<float> const& wo) {
  auto const qkv = jnp::matmul(x, wqkv);  // [T, 3D]
  auto const parts = jnp::split(qkv, 3, -1);  // 3 x [T, D]
  auto const heads_of = [](Array<float> const& t) { return jnp::reshape(t, {1, seq, heads, d_model / heads}); };
  auto const out = jaxcc::nn::dot_product_attention(heads_of(parts[0]), heads_of(parts[1]), heads_of(parts[2]),
                                                    jaxcc::none, jaxcc::none, std::nullopt, true);
  return jnp::matmul(jnp::reshape(out, {seq, d_model}), wo);
}

Array<float> mlp(Array<float> const& x, Params const& p) {
  return jnp::matmul(jaxcc::nn::gelu(jnp::matmul(x, p.w1) + p.b1), p.w2) + p.b2;
}

Array<float> block(Params const& params, Array<std::int32_t> const& tokens) {
  Array<float> x = jnp::take(params.embed, tokens, 0);  // [T, D]
  x = x + attention(layer_norm(x, params.ln1), params.wqkv, params.wo);
  x = x + mlp(layer_norm(x, params.ln2), params);
  return jnp::matmul(x, params.embed.T());  // tied output embedding: [T, VOCAB]
}

Array<float> loss(Params const& params, Array<std::int32_t> const& tokens, Array<std::int32_t> const& targets) {
  auto const logits = jaxcc::vmap(block, jaxcc::in_axes(jaxcc::none, 0))(params, tokens);
  auto const logp = jaxcc::nn::log_softmax(logits, -1);
  return -jnp::mean(jnp::take_along_axis(logp, jnp::expand_dims(targets, -1), -1));
}

int main(int argc, char** argv) {
  Params params = init_params(jr::key(0));
  // Toy task: each sequence counts up from a random start; predict the next token.
  auto const starts = jr::randint(jr::key(1), {batch, 1}, 0, vocab);
  Array<std::int32_t> const tokens = jnp::remainder(starts + jnp::arange<std::int32_t>(seq), vocab);
  Array<std::int32_t> const targets = jnp::remainder(tokens + 1, vocab);

  float const lr = 0.5f;
  auto const sgd_step = jaxcc::jit([lr](Params const& p, Array<std::int32_t> const& x, Array<std::int32_t> const& y) {
    auto [value, grads] = jaxcc::value_and_grad(loss)(p, x, y);
    Params next = jaxcc::tree::map([&](Array<float> const& w, Array<float> const& g) { return Array<float>(w - lr * g); },
                                   p, grads);
    return std::pair{next, value};
  });

  std::map<std::string, double> figures;  // what the JAX file prints, by name
  for (int step = 0; step < 5; ++step) {
    auto [next, value] = sgd_step(params, tokens, targets);
    params = next;
    figures["step " + std::to_string(step) + " loss"] = value.item();
  }
  auto const norm = [](Array<float> const& p) { return double(Array<float>(jnp::sqrt(jnp::sum(p * p))).item()); };
  std::map<std::string, Array<float>> const named{
      {"b1", params.b1},         {"b2", params.b2},         {"embed", params.embed},       {"ln1/bias", params.ln1.bias},
      {"ln1/scale", params.ln1.scale}, {"ln2/bias", params.ln2.bias}, {"ln2/scale", params.ln2.scale},
      {"w1", params.w1},         {"w2", params.w2},         {"wo", params.wo},             {"wqkv", params.wqkv}};
  for (auto const& [name, p] : named) figures["norm " + name] = norm(p);
  for (auto const& [name, value] : figures) std::printf("%s: %.6f\n", name.c_str(), value);

  if (argc < 2) return 0;
  return examples::compare_with_expected(figures, argv[1]);
}
