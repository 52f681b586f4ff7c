#!/usr/bin/env python3
"""Golden values for tests/test_optim_*.cpp, made by optax itself.

Each optimizer case runs 20 steps on params {'b': (4,), 'w': (3, 4)} with the
gradient g = 2 * h * (p - target) + 0.1 * (t % 3 - 1) * pattern (h, target and
pattern fixed arrays, t the step), and records the final params, the number
of leaves of the final state and its first leaf (the count, where there is
one). Each schedule case records its value at counts 0 .. 24. Every case is
named by its Python spelling; the tests hold the same spelling beside the
C++ form. Everything runs op by op (eagerly): jitted, XLA rewrites a
division by a constant as a multiplication by its reciprocal, which moves
results by an ulp (polynomial_schedule(1.0, 0.0, 2, 10) at its end gives
2.2e-16 jitted, 0 eagerly).

Needs JAX and optax (not needed by the tests):
    /work/venv/bin/python tests/golden/optim_cases.py
It rewrites tests/golden/optim_cases.inc beside this script.
"""

import os

import jax
import jax.numpy as jnp
import numpy as np
import optax

assert not jax.config.jax_enable_x64

STEPS = 20
PARAMS = {"b": jnp.array([0.5, -0.25, 1.0, 0.0], jnp.float32),
          "w": jnp.arange(12, dtype=jnp.float32).reshape(3, 4) / 6.0 - 1.0}
H = {"b": jnp.array([1.0, 0.5, 2.0, 1.5], jnp.float32), "w": jnp.full((3, 4), 0.75, jnp.float32)}
TARGET = {"b": jnp.array([1.0, 2.0, -1.0, 0.5], jnp.float32),
          "w": jnp.arange(12, dtype=jnp.float32).reshape(3, 4)[::-1] / 4.0}
PATTERN = {"b": jnp.array([1.0, -1.0, 0.5, 2.0], jnp.float32),
           "w": jnp.arange(12, dtype=jnp.float32).reshape(3, 4) % 5 - 2.0}


def grads(p, t):
    return jax.tree.map(lambda x, h, c, q: 2.0 * h * (x - c) + 0.1 * (t % 3 - 1) * q, p, H, TARGET, PATTERN)


WARMUP = optax.warmup_cosine_decay_schedule(0.0, 0.1, 5, 20, 0.01)
MASK = {"b": False, "w": True}
OPTIMIZERS = {
    "sgd(0.1)": optax.sgd(0.1),
    "sgd(0.1, 0.9)": optax.sgd(0.1, 0.9),
    "sgd(0.1, 0.9, nesterov=True)": optax.sgd(0.1, 0.9, nesterov=True),
    "adam(0.05)": optax.adam(0.05),
    "adam(warmup)": optax.adam(WARMUP),
    "adam(0.05, eps_root=1e-8)": optax.adam(0.05, eps_root=1e-8),
    "nadam(0.05)": optax.nadam(0.05),
    "adamw(0.05, weight_decay=0.1)": optax.adamw(0.05, weight_decay=0.1),
    "adamw(warmup, weight_decay=0.1, mask=MASK)": optax.adamw(WARMUP, weight_decay=0.1, mask=MASK),
    "rmsprop(0.01)": optax.rmsprop(0.01),
    "rmsprop(0.01, eps_in_sqrt=False, initial_scale=0.1)": optax.rmsprop(0.01, eps_in_sqrt=False, initial_scale=0.1),
    "adagrad(0.1)": optax.adagrad(0.1),
    "adafactor(0.05)": optax.adafactor(0.05),
    "adafactor(0.05, min_dim_size_to_factor=2)": optax.adafactor(0.05, min_dim_size_to_factor=2),
    "lion(0.01)": optax.lion(0.01),
    "lion(0.01, weight_decay=0.5)": optax.lion(0.01, weight_decay=0.5),
    "lamb(0.01, weight_decay=0.01)": optax.lamb(0.01, weight_decay=0.01),
    "chain(clip_by_global_norm(1.0), adam(0.05))": optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.05)),
    "chain(clip(0.1), sgd(0.1))": optax.chain(optax.clip(0.1), optax.sgd(0.1)),
    "chain(clip_by_block_rms(0.5), sgd(0.1))": optax.chain(optax.clip_by_block_rms(0.5), optax.sgd(0.1)),
    "chain(add_decayed_weights(linear), sgd(0.1))": optax.chain(
        optax.add_decayed_weights(optax.linear_schedule(0.5, 0.0, 10)), optax.sgd(0.1)),
    "chain(scale_by_schedule(exponential), scale(-0.1))": optax.chain(
        optax.scale_by_schedule(optax.exponential_decay(1.0, 4, 0.5)), optax.scale(-0.1)),
    "chain(trace(0.5, nesterov=True), scale(-0.1))": optax.chain(optax.trace(0.5, nesterov=True), optax.scale(-0.1)),
    "chain(scale_by_rss(), scale(-0.1))": optax.chain(optax.scale_by_rss(), optax.scale(-0.1)),
    "chain(scale_by_trust_ratio(), scale(-0.1))": optax.chain(optax.scale_by_trust_ratio(), optax.scale(-0.1)),
    "chain(scale_by_param_block_rms(), scale(-0.1))": optax.chain(optax.scale_by_param_block_rms(), optax.scale(-0.1)),
    "chain(scale_by_factored_rms(min_dim_size_to_factor=2), scale(-0.05))": optax.chain(
        optax.scale_by_factored_rms(min_dim_size_to_factor=2), optax.scale(-0.05)),
    "chain(masked(sgd(0.1), lambda p: MASK), scale(-0.5))": optax.chain(
        optax.masked(optax.sgd(0.1), lambda p: MASK), optax.scale(-0.5)),
    "chain(masked(trace(0.9), MASK), scale(-0.1))": optax.chain(optax.masked(optax.trace(0.9), MASK), optax.scale(-0.1)),
    "MultiSteps(adam(0.05), 3)": optax.MultiSteps(optax.adam(0.05), 3).gradient_transformation(),
    "MultiSteps(sgd(0.1), 4, use_grad_mean=False)": optax.MultiSteps(optax.sgd(0.1), 4, use_grad_mean=False)
    .gradient_transformation(),
}

SCHEDULES = {
    "constant_schedule(0.3)": optax.constant_schedule(0.3),
    "linear_schedule(1.0, 0.1, 10, 5)": optax.linear_schedule(1.0, 0.1, 10, 5),
    "polynomial_schedule(1.0, 0.0, 2, 10)": optax.polynomial_schedule(1.0, 0.0, 2, 10),
    "cosine_decay_schedule(0.5, 12, 0.1, 2.0)": optax.cosine_decay_schedule(0.5, 12, 0.1, 2.0),
    "cosine_decay_schedule(1.0, 20)": optax.cosine_decay_schedule(1.0, 20),
    "exponential_decay(1.0, 3, 0.8)": optax.exponential_decay(1.0, 3, 0.8),
    "exponential_decay(1.0, 4, 0.5, 2, True, 0.1)": optax.exponential_decay(1.0, 4, 0.5, 2, True, 0.1),
    "exponential_decay(0.1, 5, 2.0, end_value=0.3)": optax.exponential_decay(0.1, 5, 2.0, end_value=0.3),
    "warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, 0.05)": optax.warmup_cosine_decay_schedule(0.0, 1.0, 5, 20, 0.05),
    "piecewise_constant_schedule(1.0, {5: 0.5, 10: 0.1})": optax.piecewise_constant_schedule(1.0, {5: 0.5, 10: 0.1}),
    "join_schedules([constant(1.0), linear(1.0, 0.0, 10)], [5])": optax.join_schedules(
        [optax.constant_schedule(1.0), optax.linear_schedule(1.0, 0.0, 10)], [5]),
}


def run(opt):
    def step(p, s, t):
        u, s = opt.update(grads(p, t), s, p)
        return optax.apply_updates(p, u), s

    p, s = PARAMS, opt.init(PARAMS)
    for t in range(STEPS):
        p, s = step(p, s, jnp.float32(t))
    return p, s


def floats(x):
    return "{" + ", ".join(repr(float(v)) for v in np.ravel(np.asarray(x, np.float64))) + "}"


def main():
    lines = [f"// Generated by tests/golden/optim_cases.py with JAX {jax.__version__} and optax {optax.__version__};"
             " do not edit.",
             "#ifdef JAXCC_OPTIM_OPTIMIZER_CASES",
             "// {case, final b, final w, number of state leaves, first state leaf}"]
    for name, opt in OPTIMIZERS.items():
        p, s = run(opt)
        leaves = jax.tree.leaves(s)
        lines.append(f'{{"{name}", {floats(p["b"])}, {floats(p["w"])}, {len(leaves)}, {floats(leaves[0]) if leaves else "{}"}}},')
    lines += ["#endif", "#ifdef JAXCC_OPTIM_SCHEDULE_CASES", "// {case, value at counts 0 .. 24}"]
    for name, sched in SCHEDULES.items():
        values = [jnp.asarray(sched(jnp.int32(c)), jnp.float32) for c in range(25)]
        lines.append(f'{{"{name}", {floats(values)}}},')
    lines.append("#endif")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim_cases.inc"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
