"""A pre-norm transformer encoder block in JAX, trained for a few SGD steps
on a toy next-token task. examples/transformer_block.cpp is its port to
jaxcc, function by function; this file is the original, and running it
prints the figures the port must reproduce (examples/transformer_block.expected).

    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax==0.10.2
    /tmp/jaxenv/bin/python examples/transformer_block.py > examples/transformer_block.expected
"""
import jax
import jax.numpy as jnp

VOCAB, D_MODEL, HEADS, D_FF, SEQ, BATCH = 16, 32, 4, 64, 8, 4


def init_params(key):
    k = jax.random.split(key, 7)
    scale = 1.0 / jnp.sqrt(D_MODEL)
    return {
        "embed": jax.random.normal(k[0], (VOCAB, D_MODEL)) * 0.02,
        "ln1": {"scale": jnp.ones(D_MODEL), "bias": jnp.zeros(D_MODEL)},
        "wqkv": jax.random.normal(k[1], (D_MODEL, 3 * D_MODEL)) * scale,
        "wo": jax.random.normal(k[2], (D_MODEL, D_MODEL)) * scale,
        "ln2": {"scale": jnp.ones(D_MODEL), "bias": jnp.zeros(D_MODEL)},
        "w1": jax.random.normal(k[3], (D_MODEL, D_FF)) * scale,
        "b1": jnp.zeros(D_FF),
        "w2": jax.random.normal(k[4], (D_FF, D_MODEL)) / jnp.sqrt(D_FF),
        "b2": jnp.zeros(D_MODEL),
    }


def layer_norm(x, p, eps=1e-5):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + eps) * p["scale"] + p["bias"]


def attention(x, wqkv, wo):
    qkv = x @ wqkv                                   # [T, 3D]
    q, k, v = jnp.split(qkv, 3, axis=-1)             # 3 x [T, D]
    heads = lambda t: t.reshape(SEQ, HEADS, D_MODEL // HEADS)
    out = jax.nn.dot_product_attention(heads(q)[None], heads(k)[None], heads(v)[None], is_causal=True)[0]
    return out.reshape(SEQ, D_MODEL) @ wo


def mlp(x, p):
    return jax.nn.gelu(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]


def block(params, tokens):
    x = params["embed"][tokens]                      # [T, D]
    x = x + attention(layer_norm(x, params["ln1"]), params["wqkv"], params["wo"])
    x = x + mlp(layer_norm(x, params["ln2"]), params)
    return x @ params["embed"].T                     # tied output embedding: [T, VOCAB]


def loss(params, tokens, targets):
    logits = jax.vmap(block, in_axes=(None, 0))(params, tokens)
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], axis=-1))


@jax.jit
def sgd_step(params, tokens, targets, lr=0.5):
    value, grads = jax.value_and_grad(loss)(params, tokens, targets)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), value


def main():
    params = init_params(jax.random.key(0))
    # Toy task: each sequence counts up from a random start; predict the next token.
    starts = jax.random.randint(jax.random.key(1), (BATCH, 1), 0, VOCAB)
    tokens = (starts + jnp.arange(SEQ)) % VOCAB
    targets = (tokens + 1) % VOCAB
    for step in range(5):
        params, value = sgd_step(params, tokens, targets)
        print(f"step {step} loss: {value:.6f}")
    for path, p in jax.tree_util.tree_flatten_with_path(params)[0]:
        name = "/".join(k.key for k in path)
        print(f"norm {name}: {float(jnp.sqrt(jnp.sum(p * p))):.6f}")


if __name__ == "__main__":
    main()
