"""The state of one game as a pytree of fixed-shape JAX arrays: ``batch/state.py``'s fields, per game.

Every array field of :class:`~ckc_env.batch.state.BatchState` is a field of :class:`State` with the
same name, meaning and values, without the batch axis (``jax.vmap`` adds it): the declarations are
read from ``batch/state.py``, so the three engines keep one list of fields. Only the representation
of what NumPy holds in 64 bits changes, since JAX runs in 32 bits unless told otherwise (and an
environment must not flip a process-wide switch):

| batched field | here |
|---|---|
| ``key`` uint64 | (2,) uint32: the key's high and low words (``jax.chance``) |
| ``counter`` uint64 | uint32 (a game draws a few hundred words) |
| ``holdings`` (5,) uint64 chip masks | (5, chips) bool |
| ``face_up`` uint64 chip mask | (chips,) bool |
| ``rewards`` (5,) float64 | (5,) float32 (points are small integers: exact) |

The record of the last finished round (``RoundRecord``) is the nested :class:`Record`, likewise.
What shapes the arrays or the compiled code (the chip pool, with the Stasi and Cafe Adler chips in
it) is :class:`Rules`, a hashable static argument of the jitted functions. The other rule options
are data, per game (:class:`Options`: the window order, ``reopen_windows``, ``clue_face``,
``non_accuser_white``, ``target_points``, ``max_rounds``; the first player is
``first_player_option``): one compilation plays every combination of them, in one batch if need
be (a batch of the NumPy engine shares them all). :func:`from_batch` and :func:`to_batch` convert whole batches
between the engines, so any position of the NumPy engine can be read by the JAX functions and back
(the differential tests and the host-side summaries use them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..batch.state import ARRAYS, BatchRules, BatchState, RoundRecord, batch_rules, empty_state
from ..config import WINDOW_ORDER_CHOICES, GameConfig


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Options:
    """The rule options that are data (per game, a leading batch axis when batched): what
    ``GameConfig`` says, as :func:`options_of` reads it."""

    window_order: jax.Array  # int8: the index in config.WINDOW_ORDER_CHOICES
    reopen_windows: jax.Array  # bool
    choose_faces: jax.Array  # bool: clue_face == "choose"
    chief_uncaught: jax.Array  # bool: non_accuser_white == "chief_uncaught"
    target_points: jax.Array  # int16
    max_rounds: jax.Array  # int8


def options_of(configs: GameConfig | Sequence[GameConfig]) -> Options:
    """The options of a configuration (scalars) or of one configuration per game ((B,) arrays)."""
    many = not isinstance(configs, GameConfig)
    listed = list(configs) if many else [configs]
    values = Options(
        window_order=np.array([WINDOW_ORDER_CHOICES.index(c.window_order) for c in listed], np.int8),
        reopen_windows=np.array([c.reopen_windows for c in listed], bool),
        choose_faces=np.array([c.clue_face == "choose" for c in listed], bool),
        chief_uncaught=np.array([c.non_accuser_white == "chief_uncaught" for c in listed], bool),
        target_points=np.array([c.target_points for c in listed], np.int16),
        max_rounds=np.array([c.max_rounds for c in listed], np.int8),
    )
    return values if many else jax.tree_util.tree_map(lambda x: x[0], values)


_WIDE = {"key", "counter", "holdings", "face_up", "rewards"}
"""The batched fields whose representation differs here (see the module docstring)."""


@dataclass(frozen=True, eq=False)
class Rules:
    """What is fixed for a batch, as NumPy constants folded into the compiled code: the batched
    engine's :class:`~ckc_env.batch.state.BatchRules` (``numpy``) and the chip pool's tables as
    plain arrays. Hashable by identity; :func:`rules_of` builds one per configuration."""

    numpy: BatchRules
    chip_colour: np.ndarray  # (chips,) int32
    chip_value: np.ndarray  # (chips,) int32 printed values
    chip_points: np.ndarray  # (chips,) int32 what each counts in a total
    chip_value_index: np.ndarray  # (chips,) int32 index among the values -2..5
    adler_index: np.ndarray  # (chips,) int32 position in adler_ids, -1 for other chips
    adler_ids: np.ndarray  # (4,) int32, -1 without the variant
    is_adler: np.ndarray  # (chips,) bool
    not_swappable: np.ndarray  # (chips,) bool: the Stasi chip
    colour_ids: tuple[np.ndarray, ...]  # per colour, its chip ids ascending (the supply's shuffle)

    @property
    def config(self) -> GameConfig:
        return self.numpy.config

    @property
    def n_chips(self) -> int:
        return len(self.chip_colour)

    @property
    def supply_size(self) -> int:
        return self.numpy.supply_size

    @property
    def stasi_id(self) -> int:
        return self.numpy.stasi_id


@lru_cache(maxsize=64)
def _rules(numpy_rules: BatchRules) -> Rules:
    r = numpy_rules
    i32 = np.int32
    chips = r.n_chips
    not_swappable = np.zeros(chips, dtype=bool)
    if r.stasi_id >= 0:
        not_swappable[r.stasi_id] = True
    return Rules(
        numpy=r,
        chip_colour=r.chip_colour.astype(i32),
        chip_value=r.chip_value.astype(i32),
        chip_points=r.chip_points.astype(i32),
        chip_value_index=r.chip_value_index.astype(i32),
        adler_index=r.adler_index[:chips].astype(i32),
        adler_ids=r.adler_ids.astype(i32),
        is_adler=r.adler_index[:chips] >= 0,
        not_swappable=not_swappable,
        colour_ids=tuple(np.flatnonzero(r.chip_colour == c).astype(i32) for c in range(3)),
    )


def rules_of(config: GameConfig | BatchRules) -> Rules:
    """The rules of a configuration (or of a NumPy batch's rules), built once."""
    return _rules(config if isinstance(config, BatchRules) else batch_rules(config))


def _spec(name: str, shape: tuple[Any, ...], dtype: np.dtype, rules: BatchRules) -> tuple[tuple[int, ...], Any]:
    """The per-game shape and dtype of a field here."""
    shape = tuple(rules.supply_size if d == "k" else d for d in shape)
    chips = rules.n_chips
    wide = {
        "key": ((2,), jnp.uint32),
        "counter": ((), jnp.uint32),
        "holdings": ((*shape, chips), jnp.bool_),
        "face_up": ((chips,), jnp.bool_),
        "rewards": (shape, jnp.float32),
    }
    return wide.get(name, (shape, dtype))


_STATE_FIELDS = tuple(f.name for f in ARRAYS)
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(RoundRecord))


def _pytree(cls: type) -> type:
    cls.__module__ = __name__  # made by make_dataclass: named after this module (jax.export writes it so)
    names = [f.name for f in dataclasses.fields(cls)]
    return jax.tree_util.register_dataclass(cls, data_fields=names, meta_fields=[])


Record = _pytree(
    dataclasses.make_dataclass(
        "Record",
        [(name, jax.Array) for name in _RECORD_FIELDS],
        frozen=True,
        namespace={
            "__doc__": "The last finished round of a game: ``batch.state.RoundRecord``'s fields, per game.",
            "replace": lambda self, **changes: dataclasses.replace(self, **changes),
        },
    )
)
State = _pytree(
    dataclasses.make_dataclass(
        "State",
        [(name, jax.Array) for name in _STATE_FIELDS]
        + [("record", Any, field(default=None)), ("options", Any, field(default=None))],
        frozen=True,
        namespace={
            "__doc__": "One game (a batch under ``jax.vmap``): ``batch.state.BatchState``'s array fields, per game.",
            "replace": lambda self, **changes: dataclasses.replace(self, **changes),
        },
    )
)


def empty(rules: Rules, n: int = 5) -> State:
    """One game's arrays in the empty state (over), from the batched declarations."""
    numpy_state = empty_state(rules.numpy, np.array([n]), None, np.array([-1]))
    return jax.tree_util.tree_map(lambda x: x[0], from_batch(numpy_state)[1])


def cleared(state: State, stage: str, rules: Rules) -> State:
    """The fields declared as cleared at ``stage`` (``"new_game"``, ``"new_round"``) reset."""
    changes = {}
    for f in ARRAYS:
        value = f.metadata[stage]
        if value is None:
            continue
        old = getattr(state, f.name)
        changes[f.name] = jnp.full(old.shape, value, dtype=old.dtype)
    return state.replace(**changes)


# ------------------------------------------------------------------------------ between the engines
def _unpack_chips(masks: np.ndarray, chips: int) -> np.ndarray:
    return ((masks[..., None] >> np.arange(chips, dtype=np.uint64)) & np.uint64(1)).astype(bool)


def _pack_chips(bits: np.ndarray) -> np.ndarray:
    weights = np.uint64(1) << np.arange(bits.shape[-1], dtype=np.uint64)
    return np.bitwise_or.reduce(np.where(bits, weights, np.uint64(0)), axis=-1)


def split_keys(keys: np.ndarray) -> np.ndarray:
    """(..., 2) uint32 high and low words of uint64 keys."""
    keys = np.asarray(keys, dtype=np.uint64)
    return np.stack([(keys >> np.uint64(32)).astype(np.uint32), (keys & np.uint64(0xFFFFFFFF)).astype(np.uint32)], -1)


def join_keys(words: np.ndarray) -> np.ndarray:
    """uint64 keys from (..., 2) uint32 high and low words."""
    words = np.asarray(words)
    return (words[..., 0].astype(np.uint64) << np.uint64(32)) | words[..., 1].astype(np.uint64)


def _to_jax(name: str, value: np.ndarray, rules: BatchRules) -> np.ndarray:
    if name == "key":
        return split_keys(value)
    if name == "counter":
        return value.astype(np.uint32)
    if name in ("holdings", "face_up"):
        return _unpack_chips(value, rules.n_chips)
    if name == "rewards":
        return value.astype(np.float32)
    return value


def _to_numpy(name: str, value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if name == "key":
        return join_keys(value)
    if name in ("holdings", "face_up"):
        return _pack_chips(value)
    return value.astype(dtype)


def from_batch(state: BatchState) -> tuple[Rules, State]:
    """The JAX form of a NumPy batch (its rules, and its games with a leading batch axis)."""
    rules = state.rules
    values = {name: jnp.asarray(_to_jax(name, getattr(state, name), rules)) for name in _STATE_FIELDS}
    record = Record(**{name: jnp.asarray(getattr(state.record, name)) for name in _RECORD_FIELDS})
    options = options_of([rules.config] * state.batch_size)
    return rules_of(rules), State(**values, record=record, options=jax.tree_util.tree_map(jnp.asarray, options))


def to_batch(rules: Rules, state: State, chance: Any = None) -> BatchState:
    """The NumPy batch of JAX games (a leading batch axis): what the host-side readers, summaries
    and tests of the batched engine take. ``chance`` (default ``RandomChance``) serves further steps.
    The NumPy batch's options are ``rules.config``'s (``state.options`` are not carried over)."""
    from ..batch.chance import RandomChance

    host = jax.device_get(state)
    n = np.asarray(host.n)
    out = empty_state(rules.numpy, n, chance or RandomChance(), np.asarray(host.first_player_option))
    for f in ARRAYS:
        setattr(out, f.name, _to_numpy(f.name, np.asarray(getattr(host, f.name)), f.metadata["dtype"]))
    record = host.record
    out.record = RoundRecord(
        **{name: np.asarray(getattr(record, name)).astype(getattr(out.record, name).dtype) for name in _RECORD_FIELDS}
    )
    return out


# ------------------------------------------------------------------------------ helpers of the rules
def put(state: Any, **changes: Any) -> Any:
    """``state`` with some fields replaced, each cast to the field's dtype (the rules compute in
    int32 and store in the declared, narrower types)."""
    return state.replace(**{k: jnp.asarray(v).astype(getattr(state, k).dtype) for k, v in changes.items()})


def wide(array: jax.Array) -> jax.Array:
    """An integer field as int32 for arithmetic and scatters (``put`` stores it back narrow)."""
    return array.astype(jnp.int32) if jnp.issubdtype(array.dtype, jnp.signedinteger) else array


def set_at(array: jax.Array, index: jax.Array, value: jax.Array, where: jax.Array = True) -> jax.Array:
    """``array`` with entry ``index`` (along the first axis) set to ``value`` where ``where``; an
    index out of range sets nothing. A compare and a select: on tiny per-game arrays this is what
    a scatter costs without a scatter's per-element loop on a CPU backend."""
    hit = jnp.arange(array.shape[0]) == index
    hit = hit.reshape(hit.shape + (1,) * (array.ndim - 1)) & where
    return jnp.where(hit, jnp.asarray(value).astype(array.dtype), array)


def add_at(array: jax.Array, index: jax.Array, value: jax.Array) -> jax.Array:
    """``array`` with ``value`` added at ``index`` (along the first axis; out of range: nothing)."""
    hit = jnp.arange(array.shape[0]) == index
    hit = hit.reshape(hit.shape + (1,) * (array.ndim - 1))
    return jnp.where(hit, array + jnp.asarray(value).astype(array.dtype), array)


def choose(flag: jax.Array, then: Any, otherwise: Any) -> Any:
    """Every array of ``then`` where ``flag``, else of ``otherwise`` (a branch-free ``if`` on a state);
    an array both sides share is kept as it is (no select traced for it)."""
    return jax.tree_util.tree_map(lambda a, b: a if a is b else jnp.where(flag, a, b), then, otherwise)


def cat_bit(card: jax.Array) -> jax.Array:
    """uint32 bit of a cat (0..31); 0 for an investigator card (32) or no card (-1): ``CAT_BITS``."""
    card = jnp.asarray(card).astype(jnp.int32)
    return jnp.where((card >= 0) & (card < 32), jnp.left_shift(jnp.uint32(1), card.clip(0, 31).astype(jnp.uint32)), 0)


def ask(state: Any, kind: int, seat: jax.Array) -> Any:
    """Ask ``seat`` a decision of ``kind``."""
    return put(state, pending_kind=kind, pending_seat=seat)


def compact(items: jax.Array, keep: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The kept entries of ``items`` in order, padded with -1, and their count (``batch.state.compact``)."""
    size = items.shape[-1]
    rank = jnp.cumsum(keep) - 1
    out = jnp.full(size, -1, dtype=jnp.int32).at[jnp.where(keep, rank, size)].set(items.astype(jnp.int32), mode="drop")
    return out, keep.sum().astype(jnp.int32)
