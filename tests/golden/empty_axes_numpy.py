"""The jax.numpy and jax.numpy.linalg calls of the empty-axis sweep (see
empty_axes_cases.py)."""

import jax
import jax.numpy as jnp

SCALAR = [()]
EMPTY = [(0,), (0, 3), (3, 0), (0, 3, 4), (2, 0, 4), (2, 3, 0)]
ALL = SCALAR + EMPTY
SQUARE = [(0, 0), (2, 0, 0), (0, 3, 3)]
i32 = jnp.int32

CALLS = {
    "jnp.sin(x)": (lambda x: jnp.sin(x), ALL),
    "jnp.sum(x)": (lambda x: jnp.sum(x), ALL),
    "jnp.max(x, 0)": (lambda x: jnp.max(x, 0), ALL),
}
