"""The device trainer's state on disk (``train_state.safetensors``): the network, Adam's state, the
PRNG key and the step count as safetensors (plain tensors and a JSON header: nothing to unpickle),
written whole; read back by ``--resume`` only after every tensor has been checked against the
run's config, as a stranger's file is (:func:`check_state`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ckc_env.files import InputError, write_atomic

from ...config import TrainConfig
from .network import Hyper, init_network
from .update import Runner, make_optimizer

STATE_FILE = "train_state.safetensors"
STATE_FORMAT = "ckc-env-jax-train-state"


def _leaves(runner: Runner) -> dict[str, np.ndarray]:
    import jax

    kept = {"params": runner.params, "opt_state": runner.opt_state}
    out = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(kept)[0]:
        out[jax.tree_util.keystr(path)] = np.asarray(leaf)
    return out


def save_state(runner: Runner, path: Path, timesteps: int) -> None:
    """The network, Adam's state and the counters as safetensors (plain tensors and a JSON header:
    nothing to unpickle), written whole."""
    import jax
    from safetensors.numpy import save

    tensors = _leaves(runner)
    tensors["key"] = np.asarray(jax.random.key_data(runner.key))
    metadata = {"format": STATE_FORMAT, "num_timesteps": str(int(timesteps))}
    write_atomic(path, save({k: np.asarray(v, order="C") for k, v in tensors.items()}, metadata=metadata))


STATE_BYTES = 1 << 31
"""The most a train state file may hold (the largest network the config accepts, with Adam's two
moments, is about 600 MB)."""
HEADER_BYTES = 1 << 24
"""The most a train state's JSON header may hold."""


def expected_state(config: TrainConfig) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Every tensor a train state of this config holds, by name: its shape and dtype, computed
    abstractly (``jax.eval_shape``: nothing is compiled or allocated)."""
    import jax

    from ckc_env.observation import ENV_VERSION, LAYOUTS

    def build() -> dict[str, Any]:
        params = init_network(jax.random.key(0), LAYOUTS[ENV_VERSION][config.belief_features].size, config)
        return {"params": params, "opt_state": make_optimizer(Hyper.of(config)).init(params)}

    shapes = jax.eval_shape(build)
    out = {
        jax.tree_util.keystr(path): (tuple(leaf.shape), np.dtype(leaf.dtype))
        for path, leaf in jax.tree_util.tree_flatten_with_path(shapes)[0]
    }
    key = jax.eval_shape(lambda: jax.random.key_data(jax.random.key(0)))
    out["key"] = (tuple(key.shape), np.dtype(key.dtype))
    return out


def check_state(path: Path, config: TrainConfig) -> int:
    """A train state checked whole, as a file from a stranger, before anything is compiled: a
    safetensors file of at most :data:`STATE_BYTES`, its header JSON nested at most
    ``files.MAX_DEPTH`` deep with this format and a step count, exactly the tensors of this run's
    config (names, dtypes and shapes, the PRNG key's included) and every value finite. Its step
    count, or :class:`InputError` naming the file and what is wrong."""
    from safetensors.numpy import load

    from ckc_env.files import short

    what = f"JAX train state {path}"
    data, header, steps = read_state_header(path)
    expected = expected_state(config)
    names = set(header) - {"__metadata__"}
    missing, extra = sorted(set(expected) - names), sorted(names - set(expected))
    if missing or extra:
        problems = [f"missing tensors {[short(n) for n in missing[:8]]}"] if missing else []
        problems += [f"tensors the config has no place for {[short(n) for n in extra[:8]]}"] if extra else []
        raise InputError(f"{what} does not fit the run's config: {'; '.join(problems)}")
    try:
        tensors = load(data)
    except Exception as exc:  # a broken file: say which, never a deep traceback
        raise InputError(f"{what} cannot be read: {type(exc).__name__}: {short(str(exc), 300)}") from None
    for name, (shape, dtype) in expected.items():
        value = tensors[name]
        if value.shape != shape or value.dtype != dtype:
            raise InputError(
                f"{what}: its tensor {name} is {value.dtype}{list(value.shape)}, the run's config needs "
                f"{dtype}{list(shape)}"
            )
        if np.issubdtype(dtype, np.floating) and not np.isfinite(value).all():
            raise InputError(f"{what}: its tensor {name} holds values that are not finite (NaN or infinity)")
    return int(steps)


def read_state_header(path: Path) -> tuple[bytes, dict[str, Any], int]:
    """A train state's bytes, its safetensors header (JSON, nested at most ``files.MAX_DEPTH`` deep)
    and the step count it was saved at, read within bounds; :class:`InputError` if it is not one."""
    from ckc_env.files import parse_json, read_bytes, short

    from ...config.limits import MAX_TIMESTEPS

    what = f"JAX train state {path}"
    data = read_bytes(path, "JAX train state", STATE_BYTES)
    size = int.from_bytes(data[:8], "little") if len(data) >= 8 else -1
    if not 2 <= size <= min(HEADER_BYTES, len(data) - 8):
        raise InputError(f"{what} is not a safetensors file: its header length does not fit the file")
    header = parse_json(data[8 : 8 + size], f"{what}: its header")
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    if not isinstance(metadata, dict) or metadata.get("format") != STATE_FORMAT:
        found = short(metadata.get("format")) if isinstance(metadata, dict) else "none"
        raise InputError(f"{path} is not a JAX train state of ckc-train: its format is {found}, not {STATE_FORMAT!r}")
    steps = metadata.get("num_timesteps")
    if not (isinstance(steps, str) and steps.isdigit() and len(steps) <= 13 and int(steps) <= MAX_TIMESTEPS):
        raise InputError(f"{what}: num_timesteps={short(steps)} is not a count from 0 to {MAX_TIMESTEPS:,}")
    return data, header, int(steps)


def state_timesteps(path: Path) -> int:
    """The learner steps a train state was saved at (its header alone); InputError if it is not one."""
    return read_state_header(path)[2]


def load_state(runner: Runner, path: Path, config: TrainConfig) -> Runner:
    """``runner`` with the network, Adam's state and the key of a saved train state, checked whole
    first (:func:`check_state`)."""
    import jax
    import jax.numpy as jnp
    from safetensors.numpy import load

    check_state(path, config)
    tensors = load(read_state_header(path)[0])
    kept = {"params": runner.params, "opt_state": runner.opt_state}
    flat, tree = jax.tree_util.tree_flatten_with_path(kept)
    leaves = [jnp.asarray(tensors[jax.tree_util.keystr(keypath)]) for keypath, _ in flat]
    restored = jax.tree_util.tree_unflatten(tree, leaves)
    return runner._replace(
        params=restored["params"],
        opt_state=restored["opt_state"],
        key=jax.random.wrap_key_data(jnp.asarray(tensors["key"])),
    )
