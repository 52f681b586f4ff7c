// Training a small convolutional network on scikit-learn's 8x8 handwritten
// digits with jaxcc::optim, then checking the trained params from a
// checkpoint in a fresh process.
//
// The data (examples/data/digits.npz, made by examples/data/make_digits.py;
// its license in examples/data/README.md): 1,438 images to train on and 359
// held out. The network: two 3x3 convolutions (16 and 32 channels) with
// ReLU and 2x2 max pooling, then a dense layer to ten classes. The
// optimizer: optim::adamw with a warmup-cosine learning-rate schedule, on
// shuffled mini-batches of 128, the whole step (loss, gradient, update)
// jitted. After training, io::save writes the params to a checkpoint and
// the program runs itself again with --evaluate: that process builds
// params of the same shapes, restores them with io::load and prints the
// held-out accuracy.
//
//     digits [--steps N] [--data digits.npz]        train (330 steps), save, evaluate in a new process
//     digits --evaluate CHECKPOINT [--data ...]     the held-out accuracy of a checkpoint
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <string>
#include <utility>

#include <unistd.h>  // getpid

#include <jaxcc/io.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/optim.hpp>
#include <jaxcc/random.hpp>

namespace jnp = jaxcc::numpy;
namespace jr = jaxcc::random;
namespace lax = jaxcc::lax;
namespace optim = jaxcc::optim;
using jaxcc::Array;

#ifndef JAXCC_DIGITS_NPZ
#define JAXCC_DIGITS_NPZ "examples/data/digits.npz"
#endif

constexpr std::int64_t classes = 10, batch = 128;

struct Params {
  Array<float> conv1, bias1, conv2, bias2, dense, bias3;
};
JAXCC_PYTREE(Params, conv1, bias1, conv2, bias2, dense, bias3)

/// He-style initial weights (normal of scale sqrt(2 / fan_in)), zero biases.
Params init(jr::Key auto const& key) {
  auto const keys = jr::split(key, 3);
  auto const he = [](auto const& k, jaxcc::Shape const& shape, float fan_in) {
    return Array<float>(jr::normal(k, shape) * std::sqrt(2.0f / fan_in));
  };
  return {he(keys[0], {16, 1, 3, 3}, 9.0f),    jnp::zeros<float>({16}), he(keys[1], {32, 16, 3, 3}, 144.0f),
          jnp::zeros<float>({32}),             he(keys[2], {128, classes}, 128.0f), jnp::zeros<float>({classes})};
}

/// Logits of a batch of images (N, 1, 8, 8): (N, 10).
Array<float> logits(Params const& p, Array<float> const& images) {
  auto const layer = [](Array<float> const& x, Array<float> const& w, Array<float> const& b) {
    Array<float> const y = jaxcc::nn::relu(lax::conv(x, w, {1, 1}, "SAME") + jnp::reshape(b, {1, -1, 1, 1}));
    return lax::reduce_window(y, -std::numeric_limits<float>::infinity(), lax::max, {1, 1, 2, 2}, {1, 1, 2, 2}, "VALID");
  };
  auto const h = layer(layer(images, p.conv1, p.bias1), p.conv2, p.bias2);  // (N, 32, 2, 2)
  return jnp::matmul(jnp::reshape(h, {h.shape()[0], -1}), p.dense) + p.bias3;
}

Array<float> loss(Params const& p, Array<float> const& images, Array<std::int32_t> const& labels) {
  return -jnp::mean(jnp::sum(jaxcc::nn::log_softmax(logits(p, images)) * jaxcc::nn::one_hot(labels, classes), -1));
}

/// Images as floats in [0, 1] (the pixels count 0 .. 16), and labels.
std::pair<Array<float>, Array<std::int32_t>> split(std::string const& data, std::string const& part) {
  auto const arrays = jaxcc::io::load_npz(data);
  Array<float> const x = arrays.at("x_" + part).as<std::uint8_t>().astype<float>() / 16.0f;
  return {x, arrays.at("y_" + part).as<std::int32_t>()};
}

/// The --evaluate process: params restored from the checkpoint.
int evaluate(std::string const& checkpoint, std::string const& data) {
  Params const like = init(jr::key(1));  // only the structure, shapes and dtypes count
  Params const params = jaxcc::io::load(checkpoint, like);
  auto const [x, y] = split(data, "test");
  auto const predicted = jnp::argmax(logits(params, x), -1);
  float const accuracy = jnp::mean(Array<bool>(predicted == y).astype<float>()).item();
  std::cout << "restored in a new process: held-out accuracy " << std::fixed << std::setprecision(3) << accuracy
            << " (" << y.size() << " images)\n";
  return 0;
}

int train(int steps, std::string const& self, std::string const& data) {
  auto const [x, y] = split(data, "train");
  std::int64_t const n = y.size(), batches = n / batch;
  auto const schedule = optim::warmup_cosine_decay_schedule(0.0, 1e-2, steps / 10, steps, 1e-4);
  auto const opt = optim::adamw(schedule, 0.9, 0.999, 1e-8, 0.0, 1e-4);
  Params params = init(jr::key(0));
  auto state = opt.init(params);
  using State = decltype(state);
  auto step = jaxcc::jit([&opt](Params const& p, State const& s, Array<float> const& xb, Array<std::int32_t> const& yb) {
    auto [value, g] = jaxcc::value_and_grad(loss)(p, xb, yb);
    auto [updates, next] = opt.update(g, s, p);
    return std::tuple{optim::apply_updates(p, updates), next, value};
  });
  auto key = jr::key(42);
  Array<std::int32_t> order;
  std::cout << std::fixed << std::setprecision(4);
  for (int i = 0; i < steps; ++i) {
    if (i % batches == 0) {  // a new epoch: a new shuffle
      auto const keys = jr::split(key, 2);
      key = keys[0];
      order = jr::permutation(keys[1], n);
    }
    auto const rows = order(jaxcc::slice((i % batches) * batch, (i % batches + 1) * batch));
    Array<float> value;
    std::tie(params, state, value) = step(params, state, jnp::take(x, rows, 0), jnp::take(y, rows, 0));
    if (i % 50 == 0 || i == steps - 1) std::cout << "step " << std::setw(3) << i << "  loss " << value.item() << '\n';
  }
  auto const checkpoint = std::filesystem::temp_directory_path() / ("jaxcc_digits_" + std::to_string(::getpid()) + ".npz");
  jaxcc::io::save(checkpoint, params);
  std::cout << "saved the params to a checkpoint; evaluating it in a new process" << std::endl;
  std::string const command = "\"" + self + "\" --evaluate \"" + checkpoint.string() + "\" --data \"" + data + "\"";
  int const status = std::system(command.c_str());
  std::filesystem::remove(checkpoint);
  return status == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  int steps = 330;
  std::string data = JAXCC_DIGITS_NPZ, checkpoint;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string const flag = argv[i];
    if (flag == "--steps") steps = std::atoi(argv[i + 1]);
    else if (flag == "--data") data = argv[i + 1];
    else if (flag == "--evaluate") checkpoint = argv[i + 1];
    else {
      std::cerr << "usage: digits [--steps N] [--data digits.npz] | digits --evaluate CHECKPOINT [--data digits.npz]\n";
      return 2;
    }
  }
  return checkpoint.empty() ? train(steps, argv[0], data) : evaluate(checkpoint, data);
}
