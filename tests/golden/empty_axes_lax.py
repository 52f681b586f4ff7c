"""The jax.lax and jax.nn calls of the empty-axis sweep, and the cases of
the report that asked for it (see empty_axes_cases.py)."""

import jax
import jax.numpy as jnp
from jax import lax

SCALAR = [()]
EMPTY = [(0,), (0, 3), (3, 0), (0, 3, 4), (2, 0, 4), (2, 3, 0)]
ALL = SCALAR + EMPTY
i32 = jnp.int32

CALLS = {
    # The report's cases, one by one.
    "jnp.cumsum(x, 0)": (lambda x: jnp.cumsum(x, 0), [(0, 4, 3), ()]),
    "lax.cumprod(x, 0, reverse=True)": (lambda x: lax.cumprod(x, 0, reverse=True), [(0, 4, 3), ()]),
    "lax.cummax(x, 1)": (lambda x: lax.cummax(x, 1), [(4, 0)]),
    "jnp.pad(x, ((0, 0), (0, 0)), 'edge')": (lambda x: jnp.pad(x, ((0, 0), (0, 0)), "edge"), [(0, 3)]),
    "jnp.pad(x, ((4, 4), (0, 0)), 'reflect')": (lambda x: jnp.pad(x, ((4, 4), (0, 0)), "reflect"), [(4, 0)]),
    "jnp.cumsum(x, 1)": (lambda x: jnp.cumsum(x, 1), [()]),
    "jnp.repeat(x, 3, -1)": (lambda x: jnp.repeat(x, 3, -1), [()]),
    "x[2, jnp.zeros(0, int32)]": (lambda x: x[2, jnp.zeros(0, i32)], [(3, 0, 4)]),
    "x.at[jnp.zeros(3, int32)].add(1.0)": (lambda x: x.at[jnp.zeros(3, i32)].add(1.0), [(0, 4)]),
    "x.at[0, jnp.zeros(3, int32)].add(1.0)": (lambda x: x.at[0, jnp.zeros(3, i32)].add(1.0), [(4, 0)]),
    "x.at[4:-3:2].add(jnp.ones((1, 5)))": (lambda x: x.at[4:-3:2].add(jnp.ones((1, 5))), [(1, 4)]),
    "jnp.pad(x, 2, 'mean')": (lambda x: jnp.pad(x, 2, "mean"), [(0, 4, 4)]),
    "jnp.pad(x, 2, 'linear_ramp')": (lambda x: jnp.pad(x, 2, "linear_ramp"), [(0, 4, 4)]),
}
