// Learning-rate schedules (optax.schedules): each maps an int32 step count
// (an optim::Count, traced under jit) to a float32 scalar, with optax's
// arithmetic and dtypes, so a schedule inside a jitted step matches optax's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "jaxcc/core/error.hpp"
#include "jaxcc/numpy/creation.hpp"
#include "jaxcc/numpy/elementwise.hpp"
#include "jaxcc/optim/base.hpp"

namespace jaxcc::optim {

/// A schedule of any kind, type-erased (what join_schedules takes).
using ScheduleFn = std::function<Array<float>(Count const&)>;

/// The same value at every step (optax.constant_schedule).
inline auto constant_schedule(double value) {
  return [value](Count const&) { return numpy::array<float>(static_cast<float>(value)); };
}

/// (init - end) * (1 - t / transition_steps)**power + end, with t the count
/// past transition_begin clipped to [0, transition_steps]; init_value
/// throughout when transition_steps <= 0 (optax.polynomial_schedule).
inline ScheduleFn polynomial_schedule(double init_value, double end_value, double power, std::int32_t transition_steps,
                                      std::int32_t transition_begin = 0) {
  if (transition_steps <= 0) return constant_schedule(init_value);
  if (transition_begin < 0) transition_begin = 0;
  return [=](Count const& count) {
    Count const t = numpy::clip(count - transition_begin, std::int32_t(0), transition_steps);
    Array<float> const frac = 1.0 - t.astype<float>() / static_cast<float>(transition_steps);
    Array<float> const shaped = power == 1.0 ? frac : Array<float>(numpy::power(frac, static_cast<float>(power)));
    return Array<float>((init_value - end_value) * shaped + end_value);
  };
}

/// From init_value to end_value linearly over transition_steps, starting at
/// transition_begin (optax.linear_schedule).
inline ScheduleFn linear_schedule(double init_value, double end_value, std::int32_t transition_steps,
                                  std::int32_t transition_begin = 0) {
  return polynomial_schedule(init_value, end_value, 1.0, transition_steps, transition_begin);
}

/// init_value * ((1 - alpha) * (0.5 * (1 + cos(pi * min(t, decay_steps) / decay_steps)))**exponent + alpha)
/// (optax.cosine_decay_schedule).
inline ScheduleFn cosine_decay_schedule(double init_value, std::int32_t decay_steps, double alpha = 0.0,
                                        double exponent = 1.0) {
  if (!(decay_steps > 0))
    throw Error("cosine_decay_schedule requires positive decay_steps, got decay_steps=" + std::to_string(decay_steps) +
                ".");
  return [=](Count const& count) {
    Array<float> const t = numpy::minimum(count.astype<float>(), static_cast<float>(decay_steps));
    Array<float> const cosine = 0.5 * (1.0 + numpy::cos(std::numbers::pi * t / static_cast<double>(decay_steps)));
    Array<float> const shaped = numpy::power(cosine, static_cast<float>(exponent));
    return Array<float>(init_value * ((1.0 - alpha) * shaped + alpha));
  };
}

/// init_value * decay_rate**((t - transition_begin) / transition_steps),
/// floored with staircase, init_value before transition_begin, bounded by
/// end_value (optax.exponential_decay).
inline ScheduleFn exponential_decay(double init_value, std::int32_t transition_steps, double decay_rate,
                                   std::int32_t transition_begin = 0, bool staircase = false,
                                   std::optional<double> end_value = std::nullopt) {
  if (transition_steps <= 0 || decay_rate == 0) return constant_schedule(init_value);
  if (transition_begin < 0) transition_begin = 0;
  return [=](Count const& count) {
    Count const decreased = count - transition_begin;
    Array<float> p = decreased.astype<float>() / static_cast<float>(transition_steps);
    if (staircase) p = numpy::floor(p);
    auto const decayed_rate = numpy::power(numpy::array<float>(static_cast<float>(decay_rate)), p);
    Array<float> value = numpy::where(decreased <= 0, static_cast<float>(init_value), init_value * decayed_rate);
    if (end_value) {
      auto const end = static_cast<float>(*end_value);
      value = decay_rate < 1.0 ? Array<float>(numpy::maximum(value, end)) : Array<float>(numpy::minimum(value, end));
    }
    return value;
  };
}

/// init_value, scaled by scale at each boundary the count has reached
/// (optax.piecewise_constant_schedule).
inline ScheduleFn piecewise_constant_schedule(double init_value,
                                              std::map<std::int32_t, double> const& boundaries_and_scales = {}) {
  for (auto const& [boundary, scale] : boundaries_and_scales)
    if (scale < 0.0) throw Error("piecewise_constant_schedule expects non-negative scale factors");
  return [=](Count const& count) {
    Array<float> v = numpy::array<float>(static_cast<float>(init_value));
    for (auto const& [threshold, scale] : boundaries_and_scales) {
      Array<float> const indicator = numpy::maximum(0.0f, Count(numpy::sign(threshold - count)).astype<float>());
      v = v * indicator + ((1.0f - indicator) * scale) * v;
    }
    return v;
  };
}

/// schedules[0] before boundaries[0], then schedules[1] counted from
/// boundaries[0], and so on (optax.join_schedules).
inline ScheduleFn join_schedules(std::vector<ScheduleFn> schedules, std::vector<std::int32_t> boundaries) {
  if (schedules.size() != boundaries.size() + 1) {
    std::ostringstream message;
    message << "join_schedules: " << schedules.size() << " schedules need " << schedules.size() - 1
            << " boundaries, got " << boundaries.size();
    throw Error(message.str());
  }
  return [schedules = std::move(schedules), boundaries = std::move(boundaries)](Count const& step) {
    Array<float> output = schedules[0](step);
    for (std::size_t i = 0; i < boundaries.size(); ++i)
      output = numpy::where(step < boundaries[i], output, schedules[i + 1](Count(step - boundaries[i])));
    return output;
  };
}

/// A linear warmup from init_value to peak_value over warmup_steps, then a
/// cosine decay to end_value at decay_steps (optax.warmup_cosine_decay_schedule).
inline ScheduleFn warmup_cosine_decay_schedule(double init_value, double peak_value, std::int32_t warmup_steps,
                                               std::int32_t decay_steps, double end_value = 0.0,
                                               double exponent = 1.0) {
  double const alpha = peak_value == 0.0 ? 0.0 : end_value / peak_value;
  return join_schedules({linear_schedule(init_value, peak_value, warmup_steps),
                         cosine_decay_schedule(peak_value, decay_steps - warmup_steps, alpha, exponent)},
                        {warmup_steps});
}

}  // namespace jaxcc::optim
