// jaxcc::io::save and load (io/checkpoint.hpp): a JAXCC_PYTREE struct of
// parameters and an optimizer-like state (nested struct, tuple, vector,
// map, scalar leaves) round trips through .npz and .safetensors under
// flax's '/'-joined keys; a missing, extra, misshapen or mistyped array is
// an error naming the key. The hidden case [.io_roundtrip] writes files for
// tests/io_roundtrip_check.py, which reads them with numpy.
#include "catch.hpp"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <jaxcc/io.hpp>
#include <jaxcc/jaxcc.hpp>
#include <jaxcc/testing/catch.hpp>

#include "io_support.hpp"
#include "support.hpp"

namespace test_io_checkpoint {

using jaxcc::Array;
using jaxcc::Shape;
using jaxcc_test::message_of;
using jaxcc_test::io::golden;
using jaxcc_test::io::lacks;
using jaxcc_test::io::Scratch;
namespace io = jaxcc::io;
namespace jnp = jaxcc::numpy;

namespace model {

struct Layer {
  Array<float> kernel, bias;
};
JAXCC_PYTREE(Layer, kernel, bias);

struct Params {
  Array<float> w1;
  std::vector<Layer> layers;
  Array<jaxcc::bfloat16> scale;
};
JAXCC_PYTREE(Params, w1, layers, scale);

/// What an optimizer keeps: a step count, moments shaped like the params,
/// and a map of named extras.
struct OptState {
  std::tuple<Array<std::int32_t>, Params, Params> adam;
  std::map<std::string, Array<double>> extras;
};
JAXCC_PYTREE(OptState, adam, extras);

struct TrainState {
  Params params;
  OptState opt;
};
JAXCC_PYTREE(TrainState, params, opt);

Params params(float shift) {
  auto ramp = [&](Shape shape) {
    auto const n = shape.numel();
    return Array<float>(jnp::arange<float>(n) * 0.25f + shift).reshape(shape);
  };
  return {ramp({3, 4}), {{ramp({4, 2}), ramp({2})}, {ramp({2, 2}), ramp({2})}},
          jnp::full<jaxcc::bfloat16>({2}, shift)};
}

TrainState state() {
  return {params(1.0f), {{jnp::full<std::int32_t>({}, 7), params(0.5f), params(-2.0f)},
                         {{"lr", jnp::full<double>({}, 0.001)}, {"decay", jnp::full<double>({3}, 0.9)}}}};
}

}  // namespace model

bool same(model::TrainState const& a, model::TrainState const& b) {
  auto la = jaxcc::tree::leaves(a), lb = jaxcc::tree::leaves(b);
  if (la.size() != lb.size()) return false;
  for (std::size_t i = 0; i < la.size(); ++i) {
    bool const equal = la[i].dtype() == lb[i].dtype() && la[i].shape() == lb[i].shape() &&
                       la[i].visit([&](auto const& x) {
                         using T = typename std::remove_cvref_t<decltype(x)>::value_type;
                         return x.to_vector() == lb[i].as<T>().to_vector();
                       });
    if (!equal) return false;
  }
  return true;
}

TEST_CASE("a train state round trips through .npz and .safetensors") {
  Scratch scratch("checkpoint");
  auto const saved = model::state();
  for (std::string name : {"state.npz", "state.safetensors"}) {
    CAPTURE(name);
    io::save(scratch / name, saved);
    auto const restored = io::load(scratch / name, model::state());
    CHECK(same(restored, saved));
    CHECK(!same(model::TrainState{model::params(3.0f), saved.opt}, saved));  // `same` can fail
  }
  // The keys: key paths, simple, joined by '/', as flax's flatten_dict(sep='/').
  auto const arrays = io::load_npz(scratch / "state.npz");
  std::vector<std::string> keys;
  for (auto const& [key, array] : arrays) keys.push_back(key);
  CHECK(keys.size() == 21);  // 6 params, a count, 2 x 6 moments, 2 extras
  for (std::string key : {"params/w1", "params/layers/0/kernel", "params/layers/1/bias", "params/scale",
                          "opt/adam/0", "opt/adam/1/w1", "opt/adam/2/layers/1/kernel", "opt/extras/lr", "opt/extras/decay"})
    CHECK(arrays.contains(key));
  CHECK(io::load_safetensors(scratch / "state.safetensors").size() == 21);
}

TEST_CASE("a tree with scalar leaves and one with a single leaf type round trip") {
  Scratch scratch("checkpoint_scalars");
  std::tuple<int, double, Array<float>> const mixed{3, 0.5, jnp::ones<float>({2})};
  io::save(scratch / "mixed.npz", mixed);
  auto const back = io::load(scratch / "mixed.npz", std::tuple<int, double, Array<float>>{0, 0.0, jnp::zeros<float>({2})});
  CHECK(std::get<0>(back) == 3);
  CHECK(std::get<1>(back) == 0.5);
  CHECK(std::get<2>(back).to_vector() == std::vector<float>{1, 1});
  std::map<std::string, Array<float>> const weights{{"a", jnp::ones<float>({2})}, {"b", jnp::zeros<float>({1, 3})}};
  io::save(scratch / "weights.safetensors", weights);
  auto const loaded = io::load(scratch / "weights.safetensors", weights);
  CHECK(loaded.at("b").shape() == Shape{1, 3});
  CHECK(loaded.at("a").to_vector() == std::vector<float>{1, 1});
}

TEST_CASE("load's errors name the key and what differs") {
  Scratch scratch("checkpoint_errors");
  auto const path = scratch / "state.npz";
  io::save(path, model::state());
  auto like = model::state();
  like.params.layers.push_back(like.params.layers[0]);
  CHECK(lacks(message_of([&] { io::load(path, like); }), "jaxcc::io::load", "state.npz",
              "holds no array 'params/layers/2/kernel' for the tree's leaf .params.layers[2].kernel") == "");
  like = model::state();
  like.params.w1 = jnp::zeros<float>({4, 3});
  CHECK(lacks(message_of([&] { io::load(path, like); }),
              "array 'params/w1' has shape (3, 4), but the tree's leaf .params.w1 has shape (4, 3)") == "");
  like = model::state();
  std::get<0>(like.opt.adam) = jnp::zeros<std::int32_t>({1});
  CHECK(lacks(message_of([&] { io::load(path, like); }), "array 'opt/adam/0' has shape (), but") == "");
  like = model::state();
  like.opt.extras.erase("lr");
  CHECK(lacks(message_of([&] { io::load(path, like); }), "holds arrays the tree has no leaf for: 'opt/extras/lr'") == "");
  auto const other = scratch / "other.npz";
  io::save(other, std::map<std::string, Array<std::int32_t>>{{"w1", jnp::zeros<std::int32_t>({3, 4})}});
  CHECK(lacks(message_of([&] { io::load(other, std::map<std::string, Array<float>>{{"w1", jnp::zeros<float>({3, 4})}}); }),
              "array 'w1' has dtype int32, but the tree's leaf ['w1'] has dtype float32") == "");
  // Two leaves whose keys join to the same text.
  std::map<std::string, std::map<std::string, Array<float>>> const clash{{"a", {{"b/c", jnp::ones<float>({1})}}},
                                                                         {"a/b", {{"c", jnp::ones<float>({1})}}}};
  CHECK(lacks(message_of([&] { io::save(scratch / "clash.npz", clash); }),
              "two of the tree's leaves have the key 'a/b/c'") == "");
}

TEST_CASE("io::save and load: the files io_roundtrip_check.py reads with numpy", "[.io_roundtrip]") {
  char const* dir = std::getenv("JAXCC_IO_ROUNDTRIP_DIR");
  if (!dir) {  // run by a filter that matched it, not by the check script
    SUCCEED("JAXCC_IO_ROUNDTRIP_DIR is not set: nothing to write");
    return;
  }
  std::filesystem::path const out(dir);
  // Every dtype, C and Fortran (a transposed view) orders, 0-d and empty.
  io::ArrayMap arrays{{"bool", jnp::array({true, false, true})},
                      {"int8", jnp::full<std::int8_t>({2, 2}, -5)},
                      {"uint8", jnp::full<std::uint8_t>({3}, 250)},
                      {"int16", jnp::full<std::int16_t>({}, -1234)},
                      {"int32", jnp::arange<std::int32_t>(6).reshape({2, 3})},
                      {"int32_F", jnp::arange<std::int32_t>(6).reshape({2, 3}).T()},
                      {"int64", jnp::full<std::int64_t>({2}, std::int64_t{1} << 40)},
                      {"uint32", jnp::full<std::uint32_t>({2}, 4000000000u)},
                      {"float16", jnp::full<jaxcc::float16>({2}, 1.5)},
                      {"bfloat16", jnp::full<jaxcc::bfloat16>({2}, -2.5)},
                      {"float32", Array<float>(jnp::arange<float>(12).reshape({3, 4}) * 0.5f)},
                      {"float64", jnp::full<double>({0, 3}, 1.0)}};
  for (auto const& [key, array] : arrays) io::save_npy(out / (key + ".npy"), array);
  io::save_npz(out / "arrays.npz", arrays);
  io::save_npz_compressed(out / "arrays_compressed.npz", arrays);
  arrays.erase("int32_F");
  io::save_safetensors(out / "arrays.safetensors", arrays, {{"writer", "jaxcc"}});
  io::save(out / "state.npz", model::state());
  // More than 65535 entries: zip64 end records.
  io::ArrayMap many;
  for (std::int32_t i = 0; i < 65537; ++i) many.emplace("k" + std::to_string(i), jnp::full<std::int32_t>({}, i));
  io::save_npz(out / "many.npz", many);
  CHECK(io::load_npz(out / "many.npz").at("k65536").as<std::int32_t>().item() == 65536);
}

}  // namespace test_io_checkpoint
