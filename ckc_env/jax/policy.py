"""A safe agent file's policy in JAX: the NumPy network of ``players.agent_file``, as pure functions.

Why: a tournament or a training loop on the JAX engine must choose actions on the device, inside
``jit``/``vmap``/``lax.scan``, without a host round trip per decision. The file is loaded by the
project's own loader (:func:`ckc_env.players.policy.load_policy`: the card, the weights' hash, every
tensor's name, dtype and shape, finite values, the overflow probe; nothing is unpickled, and zips
and RLlib checkpoints are refused), and its float32 weights become a pytree of ``jnp`` arrays.

    policy = load("checkpoints/ppo_all_counts_mixed_34p")   # AgentPolicy: params, card, layout
    masked = logits(policy.params, obs, mask)                # (..., 40) float32, -inf where illegal
    chosen = act(policy.params, obs, mask)                   # the most probable legal action
    chosen = act(policy.params, obs, mask, key, counter, deterministic=False)  # one drawn

The forward pass is the NumPy one (``PolicyNetwork._forward``): per layer ``x @ weight.T + bias``
then tanh, ReLU or nothing, in the card's order, in float32. Products run at ``Precision.HIGHEST``
so that an accelerator does not drop to TF32 or bfloat16 and stray from NumPy. Observations are
in the card's layout (``policy.layout``: 731, 736, 845, 850, 964 or 1078 numbers), whatever the
table plays with. NumPy refuses non-finite logits with an error; a jitted function cannot raise,
but the loader's probe already refuses weights that overflow on in-range observations.

Choosing follows :class:`~ckc_env.players.batch_policy.BatchPolicyAgent`: the first most probable
legal action; or, sampling, the first action whose running sum of ``exp(logit - max)`` passes one
word of the acting seat's SplitMix64 stream taken as a fraction of the total. That word is the one
``BatchAgent.draw`` takes: word ``counter`` of the (game, seat) stream with ``key`` (see
:func:`seat_keys`), and the caller advances that seat's counter by one per sampled decision (a
deterministic choice draws nothing). NumPy sums in float64, this in float32 (no x64), so a draw
within about 1e-6 of a boundary of the cumulative distribution may take the neighbouring action;
otherwise the same action is drawn.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..engine.chance import GOLDEN, mix64
from ..layout import Layout
from ..players.agent_file import AgentCard, PolicyNetwork
from . import chance
from .state import split_keys

SEATS = 5
_ONE_BELOW = float(np.nextafter(np.float32(1), np.float32(0)))
_SEAT_SALTS = split_keys(mix64(np.arange(1, SEATS + 1, dtype=np.uint64) * np.uint64(GOLDEN)))
"""(5, 2) uint32: ``batch.agents.seat_keys``' salts, one per seat."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Dense:
    """One layer: ``weight`` (inputs, outputs) as NumPy multiplies it and ``bias`` (outputs,). The
    activation is static (part of the tree's structure), so jit specialises on it."""

    weight: jax.Array
    bias: jax.Array
    activation: str = dataclasses.field(default="identity", metadata={"static": True})


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Network:
    """The params pytree: the policy's layers (ending in the 40 logits) and the value's (ending in 1)."""

    policy: tuple[Dense, ...]
    value: tuple[Dense, ...]


def params_of(network: PolicyNetwork) -> Network:
    """The loaded NumPy network's own float32 arrays (already transposed to (inputs, outputs)), as
    ``jnp`` arrays: the same numbers in the same layer order, so the two forward passes agree."""

    def layers(numpy_layers: list) -> tuple[Dense, ...]:
        return tuple(
            Dense(jnp.asarray(weight, jnp.float32), jnp.asarray(bias, jnp.float32), activation)
            for weight, bias, activation in numpy_layers
        )

    return Network(layers(network._policy), layers(network._value))


# ---------------------------------------------------------------------------------------------- forward
def _forward(layers: tuple[Dense, ...], observations: jax.Array) -> jax.Array:
    x = jnp.asarray(observations, jnp.float32)
    for layer in layers:
        x = jnp.matmul(x, layer.weight, precision=lax.Precision.HIGHEST) + layer.bias
        if layer.activation == "tanh":
            x = jnp.tanh(x)
        elif layer.activation == "relu":
            x = jnp.maximum(x, 0.0)
    return x


def raw_logits(params: Network, obs: jax.Array) -> jax.Array:
    """(..., 40) float32 action logits of (..., size) observations, unmasked (``PolicyNetwork.logits``)."""
    return _forward(params.policy, obs)


def logits(params: Network, obs: jax.Array, mask: jax.Array) -> jax.Array:
    """(..., 40) float32 logits with ``-inf`` at the illegal actions (``mask`` 0/False), as
    ``BatchPolicyAgent.act`` masks them before choosing."""
    return jnp.where(jnp.asarray(mask).astype(bool), raw_logits(params, obs), -jnp.inf)


def values(params: Network, obs: jax.Array) -> jax.Array:
    """(...,) the value network's estimate of each observation (``PolicyNetwork.values``)."""
    return _forward(params.value, obs)[..., 0]


# ---------------------------------------------------------------------------------------------- choosing
def fraction(key: jax.Array, counter: jax.Array) -> jax.Array:
    """Word ``counter`` of the stream with ``key`` ((2,) uint32) as a float32 fraction in [0, 1):
    ``BatchPolicyAgent``'s ``(w >> 11) / 2**53`` to float32 precision (kept below 1, so the last
    legal action can always be drawn)."""
    hi, lo = chance.words(key, jnp.asarray(counter, jnp.uint32), 1)
    value = hi[0].astype(jnp.float32) * jnp.float32(2.0**-32) + lo[0].astype(jnp.float32) * jnp.float32(2.0**-64)
    return jnp.minimum(value, jnp.float32(_ONE_BELOW))


def _drawn(masked: jax.Array, share: jax.Array) -> jax.Array:
    """The action of one row of masked logits for a fraction ``share``: the first whose running sum
    of ``exp(logit - max)`` exceeds ``share`` times the total (``agents.base.sample``)."""
    legal = masked > -jnp.inf
    top = jnp.max(jnp.where(legal, masked, 0.0))
    running = jnp.cumsum(jnp.where(legal, jnp.exp(masked - top), 0.0))
    total = running[-1]
    past = running > share * total
    last = jnp.argmax(running >= total)  # float32 rounding left nothing past the draw: the last legal action
    return jnp.where(past.any(), jnp.argmax(past), last)


def choose(
    masked: jax.Array,
    key: jax.Array | None = None,
    counter: jax.Array | None = None,
    *,
    deterministic: bool = True,
) -> jax.Array:
    """(...,) int32 actions from (..., 40) masked logits: the first maximum, or (``deterministic=False``)
    one drawn with word ``counter`` (...,) of the stream ``key`` (..., 2) uint32. A row with no
    legal action (a finished game) gives 0, as NumPy's argmax of all ``-inf``."""
    masked = jnp.asarray(masked, jnp.float32)
    if deterministic:
        return jnp.argmax(masked, axis=-1).astype(jnp.int32)
    if key is None or counter is None:
        raise ValueError("sampling needs each row's stream key (..., 2) uint32 and word counter (...,)")
    batch = masked.shape[:-1]
    rows = masked.reshape(-1, masked.shape[-1])
    keys = jnp.broadcast_to(jnp.asarray(key, jnp.uint32), (*batch, 2)).reshape(-1, 2)
    counters = jnp.broadcast_to(jnp.asarray(counter, jnp.uint32), batch).reshape(-1)
    shares = jax.vmap(fraction)(keys, counters)
    out = jax.vmap(_drawn)(rows, shares)
    out = jnp.where((rows > -jnp.inf).any(-1), out, 0)
    return out.astype(jnp.int32).reshape(batch)


def act(
    params: Network,
    obs: jax.Array,
    mask: jax.Array,
    key: jax.Array | None = None,
    counter: jax.Array | None = None,
    *,
    deterministic: bool = True,
) -> jax.Array:
    """(...,) int32 actions of (..., size) observations with (..., 40) legal masks, chosen as
    ``BatchPolicyAgent`` chooses (see :func:`choose`; ``deterministic`` is static under jit)."""
    return choose(logits(params, obs, mask), key, counter, deterministic=deterministic)


def seat_keys(game_key: jax.Array) -> jax.Array:
    """(..., 5, 2) uint32 the players' stream keys of each seat of games with keys (..., 2):
    ``batch.agents.seat_keys``, as the vector environment derives its opponents' streams."""
    salts = jnp.asarray(_SEAT_SALTS)
    game_key = jnp.asarray(game_key, jnp.uint32)[..., None, :]
    hi, lo = chance.mix64(game_key[..., 0] ^ salts[:, 0], game_key[..., 1] ^ salts[:, 1])
    return jnp.stack([hi, lo], -1)


# ---------------------------------------------------------------------------------------------- the player
@dataclass(frozen=True, eq=False)
class AgentPolicy:
    """A loaded agent file for the JAX engine: its params pytree and what its card says (layout,
    version, player counts). Hashable by identity, so it can be a static argument of a jitted
    tournament; :func:`load` gives one object per file version."""

    name: str
    card: AgentCard
    params: Network

    @property
    def layout(self) -> Layout:
        return self.card.layout

    @property
    def observation_size(self) -> int:
        return self.card.layout.size

    @property
    def version(self) -> str:
        return self.card.version

    @property
    def belief_features(self) -> bool | str:
        return self.card.belief_features

    @property
    def players(self) -> tuple[int, ...]:
        return self.card.players

    def logits(self, obs: jax.Array, mask: jax.Array) -> jax.Array:
        return logits(self.params, obs, mask)

    def act(
        self,
        obs: jax.Array,
        mask: jax.Array,
        key: jax.Array | None = None,
        counter: jax.Array | None = None,
        *,
        deterministic: bool = True,
    ) -> jax.Array:
        return act(self.params, obs, mask, key, counter, deterministic=deterministic)

    def __repr__(self) -> str:
        return f"AgentPolicy({self.name!r}, {self.version}, belief_features={self.belief_features!r})"

    def program_key(self) -> tuple[Any, ...]:
        """What of the file shapes a compiled program (``jax.exported``): its network and what its
        card says of its play, not its name, path or training record."""
        card = self.card
        return (card.version, card.belief_features, card.players, card.policy, card.value, self.params)


_POLICIES: dict[PolicyNetwork, AgentPolicy] = {}


def load(path: str | Path | Any) -> AgentPolicy:
    """The JAX policy of a safe agent file (a card ``.json``, its ``.safetensors`` or a run folder),
    loaded and checked by the project's loader; a zip or RLlib checkpoint is refused by name (this
    never unpickles). One object per loaded file version, as ``load_policy`` caches networks."""
    from ..players.agent_file import card_path
    from ..players.loading import AgentSource, locate
    from ..players.policy import load_policy

    source = path if isinstance(path, AgentSource) else locate(path)
    card_path(source)  # InputError unless a safe agent file
    network = load_policy(source)
    if network not in _POLICIES:
        _POLICIES[network] = AgentPolicy(source.named, network.card, params_of(network))
    return _POLICIES[network]


__all__ = [
    "AgentPolicy",
    "Dense",
    "Network",
    "act",
    "choose",
    "fraction",
    "load",
    "logits",
    "params_of",
    "raw_logits",
    "seat_keys",
    "values",
]
