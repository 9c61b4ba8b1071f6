"""Observation and state vectors of one game in JAX: ``batch/observation.py``'s layouts, bit for bit.

The twin of :mod:`ckc_env.batch.observation` (itself the batched form of ``ckc_env.observation``)
for a single :class:`~ckc_env.jax.state.State`; ``jax.vmap`` (the ``*_batch`` wrappers) makes it a
batch encoder, and everything is fixed-shape and branch-free so that it compiles under
``jax.jit(jax.vmap(...))``. Each piece of a layout is computed by name as a flat float32 block and
the blocks are concatenated in the layout's order (the offsets are static), zeros for a piece the
game leaves empty.

Values equal the NumPy encoder's exactly: one-hot pieces and bits are 0.0 or 1.0, halves are exact
in float32, and every other scaled count (tenths, ``/ MAX_DECK``, ``/ 20``) is read from a float32
table computed by NumPy as the NumPy encoder computes it (``_TENTHS`` is that encoder's table), so
no backend's division can differ in the last bit. The posterior pieces (``belief_*``, ``players_*``,
``second_order_*``) are what the caller's posterior holds, cast to float32 as NumPy casts its float64
posterior. The exact posterior defaults to ``jax.beliefs.seat_beliefs`` and the players' to a fresh
reading (``jax.players_posterior.observed_posterior``), imported when first needed; the
second-order posterior has no JAX reader and must be given.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..config import MAX_CHIPS_PER_COLOUR
from ..engine.actions import CAFE_ADLER
from ..engine.cards import INVESTIGATOR, N_CATS, N_CLUES
from ..engine.state import SCORING
from ..layout import Layout
from ..observation import CRITIC_STATE, MAX_ACCUSATIONS, MAX_DECK, OBSERVATION, STATE, TENTHS
from . import compiled
from .state import Rules, State

SEATS = 5
F32 = jnp.float32
I32 = jnp.int32

_TENTHS = np.array(TENTHS, dtype=np.float32)
"""``_TENTHS[k]``: a count k / 10 as the NumPy encoders write it (``observation.TENTHS``)."""
_POINTS_LOW, _POINTS_HIGH = -64, 256
_POINTS = (np.arange(_POINTS_LOW, _POINTS_HIGH + 1) / 10).astype(np.float32)
"""``_POINTS[p - _POINTS_LOW]``: points p / 10 computed in float64 and cast, as NumPy does."""
_BY_DECK = (np.arange(MAX_DECK + 1) / MAX_DECK).astype(np.float32)
_BY_SUPPLY = (np.arange(MAX_CHIPS_PER_COLOUR + 1) / MAX_CHIPS_PER_COLOUR).astype(np.float32)
_R = np.arange(SEATS)

Posterior = Any
"""A posterior of one seat: anything with ``chief`` (32,), ``assistant`` (32,) and ``clue`` (5, 10)
(seats absolute) as attributes, or the tuple ``(chief, assistant, clue)``."""


def _table(table: np.ndarray, index: jax.Array, low: int = 0) -> jax.Array:
    """``table[index - low]``: the scaled value of a count (clipped: a count is never outside)."""
    return jnp.take(jnp.asarray(table), index.astype(I32) - low, mode="clip")


def _hot(index: jax.Array, size: int, where: Any = True) -> jax.Array:
    """(size,) float32 one-hot of ``index`` where ``where`` (an index outside 0..size-1 gives zeros)."""
    return ((jnp.arange(size) == index) & where).astype(F32)


def _hots(indices: jax.Array, size: int, where: Any = True) -> jax.Array:
    """(size,) float32: 1.0 at each of ``indices`` (k,) that ``where`` keeps."""
    return ((jnp.arange(size)[None, :] == indices[:, None]) & jnp.asarray(where)[..., None]).any(0).astype(F32)


def _bits(masks: jax.Array) -> jax.Array:
    """(k * 32,) float32: the bits of (k,) uint32 masks, lowest first."""
    shifts = jnp.arange(N_CATS, dtype=jnp.uint32)
    return ((masks.astype(jnp.uint32)[..., None] >> shifts) & 1).astype(F32).reshape(-1)


def _hidden_adler(rules: Rules, state: State) -> jax.Array:
    """(5, 3) int32: each seat's hidden Cafe Adler chips by colour (zeros without the variant)."""
    if not rules.config.cafe_adler:
        return jnp.zeros((SEATS, 3), I32)
    colour = np.arange(3)[None, :] == rules.chip_colour[:, None]  # (chips, 3)
    adler_colour = jnp.asarray(colour & rules.is_adler[:, None])
    hidden = state.holdings & ~state.face_up[None, :]  # (5, chips)
    return (hidden[:, :, None] & adler_colour[None]).sum(1, dtype=I32)


def acting_seat(state: State) -> jax.Array:
    """The seat an observation is for by default: the seat to act, seat 0 once the game is over."""
    return jnp.where(state.pending_kind >= 0, state.pending_seat, 0).astype(I32)


def _seats_from(state: State, seat: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Per relative seat seen from ``seat``: the absolute seat (-1: absent), present, and the index
    into per-seat arrays (absent rows read seat 4, then masked)."""
    n = state.n.astype(I32)
    absolute = jnp.where(n > _R, (seat + _R) % n, -1)
    present = absolute >= 0
    return absolute, present, absolute % SEATS


def _public(rules: Rules, state: State, seat: jax.Array) -> dict[str, jax.Array]:
    """The public pieces seen from ``seat``: ``batch.observation._public`` for one game."""
    seat = jnp.asarray(seat, I32)
    n = state.n.astype(I32)
    absolute, present, at = _seats_from(state, seat)

    def relative(who: jax.Array) -> jax.Array:
        return (who.astype(I32) - seat) % n

    config, options = rules.config, state.options
    flags = jnp.stack(
        [jnp.asarray(config.stasi), jnp.asarray(config.cafe_adler), options.choose_faces, options.chief_uncaught]
    ).astype(F32)
    p: dict[str, jax.Array] = {
        "seat_present": present.astype(F32),
        "num_players": _hot(n - 3, 3),
        "rules": jnp.asarray(flags),
        "round": _hot(state.round_index.astype(I32), 5),
        "first_player": _hot(relative(state.first_player), SEATS),
        "drawer": _hot(relative(state.drawer), SEATS),
    }
    drawn = state.last_card >= 0
    p["last_card"] = _hot(state.last_card.astype(I32), N_CATS + 1, drawn)
    p["last_drawer"] = _hot(relative(state.last_drawer), SEATS, drawn)
    p["deck_size"] = _table(_BY_DECK, state.deck_len.astype(I32) - state.deck_pos.astype(I32))[None]
    p["investigators_left"] = ((SEATS - n - state.public_count.astype(I32)).astype(F32) * 0.5)[None]

    scored = state.phase >= SCORING
    revealed = jnp.where(scored, SEATS - n, state.public_count.astype(I32))
    bag = state.bag.astype(I32)
    p["public_clues"] = _hots(bag, N_CLUES, (jnp.arange(bag.shape[0]) < revealed) & (bag >= 0))
    # every clue face-up once the round is scored; before, the Stasi card holder's
    clues = jnp.where(present, state.clues[at].astype(I32), -1)
    holder = jnp.where(scored, -1, state.stasi_exposed.astype(I32))
    face_up = present & (scored | (absolute == holder)) & (clues >= 0)
    p["exposed_clues"] = ((jnp.arange(N_CLUES) == clues[:, None]) & face_up[:, None]).astype(F32).reshape(-1)
    stasi_card = jnp.where(state.phase < SCORING, state.stasi_exposed, state.stasi_taker).astype(I32)
    p["stasi_card"] = _hot(relative(stasi_card), SEATS, stasi_card >= 0)
    made = jnp.arange(MAX_ACCUSATIONS) < state.accusation_count.astype(I32)
    who = relative(state.accusation_seat)
    p["accusation_order"] = ((_R[:, None] == who[None, :]) & made[None, :]).astype(F32).reshape(-1)
    p["accusation_cards"] = _table(_BY_DECK, jnp.where(present, state.accused_at[at].astype(I32), 0))

    rows = jnp.where(present, state.rows[at], 0)
    discards = jnp.where(present, state.discards[at], 0)
    p["rows"] = _bits(rows)
    p["discards"] = _bits(discards)
    accused = jnp.where(present, state.accused_by[at].astype(I32), -1)
    p["accused"] = (jnp.arange(N_CATS) == accused[:, None]).astype(F32).reshape(-1)
    table = jnp.where(present[:, None], state.chip_table[at].astype(I32), 0)  # (5, 6)
    p["chip_colours"] = _table(_TENTHS, table[:, :3]).reshape(-1)
    if config.cafe_adler:  # face-up Adler chips exist only in that variant
        p["face_up_adler"] = (table[:, 3:].astype(F32) * 0.5).reshape(-1)
    p["targets"] = _bits((state.row_cats & ~state.accused_cats)[None])
    p["supply"] = _table(_BY_SUPPLY, state.supply_len)
    return p


def _posterior_parts(b: Posterior) -> tuple[jax.Array, jax.Array, jax.Array]:
    if hasattr(b, "chief"):
        return b.chief, b.assistant, b.clue
    chief, assistant, clue = b[:3]
    return chief, assistant, clue


def _write_posterior(p: dict[str, jax.Array], name: str, b: Posterior, present: jax.Array, at: jax.Array) -> None:
    """The pieces ``{name}_chief``, ``_assistant`` and ``_clues`` (the clue rows rotated to relative seats)."""
    chief, assistant, clue = _posterior_parts(b)
    p[f"{name}_chief"] = jnp.asarray(chief, F32)
    p[f"{name}_assistant"] = jnp.asarray(assistant, F32)
    rows = jnp.where(present[:, None], jnp.asarray(clue, F32)[at], 0.0)
    p[f"{name}_clues"] = rows.reshape(-1)


def _assemble(layout: Layout, pieces: dict[str, jax.Array]) -> jax.Array:
    """The layout's vector: its pieces in order, zeros for those left empty."""
    blocks = []
    for piece in layout.pieces:
        block = pieces.get(piece.name)
        if block is None:
            block = jnp.zeros(piece.size, F32)
        elif block.shape != (piece.size,):
            raise AssertionError(f"piece {piece.name}: shape {block.shape}, layout says {piece.size}")
        blocks.append(block.astype(F32))
    return jnp.concatenate(blocks)


_FILLED = {
    "seat_present", "num_players", "rules", "round", "decision", "first_player", "drawer", "last_card",
    "last_drawer", "deck_size", "investigators_left", "public_clues", "exposed_clues", "stasi_card",
    "accusation_order", "accusation_cards", "rows", "discards", "accused", "chip_colours", "face_up_adler",
    "targets", "supply", "own_tile", "own_clue", "own_chip_values", "own_points", "own_hidden_adler",
    "adler_decision", "belief_chief", "belief_assistant", "belief_clues", "players_chief", "players_assistant",
    "players_clues", "second_order_chief", "second_order_assistant", "second_order_clues",
}  # fmt: skip
"""The pieces an observation can have (``ckc_env.observation.LAYOUTS``)."""


def observe(
    rules: Rules,
    state: State,
    seat: Any = None,
    layout: Layout = OBSERVATION,
    exact: Posterior | None = None,
    players: Posterior | None = None,
    second_order: Posterior | None = None,
) -> jax.Array:
    """(layout.size,) float32: the observation of ``seat`` (default: the seat to act, 0 once over),
    as ``batch.observe`` writes it for one game.

    ``exact``: the seat's exact posterior (default: computed with ``jax.beliefs.seat_beliefs``, for
    a layout with ``belief_*`` pieces). ``players``: the ``players_*`` pieces' posterior, e.g. from a
    reading kept across steps (``jax.players_posterior.kept_observed_posterior``); default: read
    afresh (``jax.players_posterior.observed_posterior``), as ``batch.observe`` does without a reader.
    ``second_order``: the ``second_order_*`` pieces' posterior, required for that layout (it has no
    JAX reader)."""
    unknown = {p.name for p in layout.pieces} - _FILLED
    if unknown:
        raise ValueError(f"not an observation layout: pieces {sorted(unknown)}")
    seat = acting_seat(state) if seat is None else jnp.asarray(seat, I32)
    p = _public(rules, state, seat)
    kind = state.pending_kind.astype(I32)
    acting = (state.pending_seat.astype(I32) == seat) & (kind >= 0)
    p["decision"] = _hot(kind, 4, acting)
    colour = jnp.take(jnp.asarray(rules.chip_colour), state.pending_chip.astype(I32), mode="clip")
    p["adler_decision"] = _hot(colour, 3, acting & (kind == CAFE_ADLER))
    p["own_tile"] = _hot(state.tiles[seat].astype(I32), 5)
    p["own_clue"] = _hot(state.clues[seat].astype(I32), N_CLUES)
    p["own_chip_values"] = _table(_TENTHS, state.value_counts[seat])
    p["own_points"] = _table(_POINTS, state.points[seat], _POINTS_LOW)[None]
    if rules.config.cafe_adler:
        p["own_hidden_adler"] = _hidden_adler(rules, state)[seat].astype(F32) * 0.5
    names = layout.offsets
    if "belief_chief" in names:
        _, present, at = _seats_from(state, seat)
        if exact is None:
            from .beliefs import seat_beliefs

            exact = seat_beliefs(rules, state, seat)
        _write_posterior(p, "belief", exact, present, at)
        if "players_chief" in names:
            if players is None:  # read afresh, as batch.observe does without a reader
                from .players_posterior import observed_posterior

                players = observed_posterior(rules, state, seat, exact if hasattr(exact, "assignments") else None)
            _write_posterior(p, "players", players, present, at)
        if "second_order_chief" in names:
            if second_order is None:
                raise ValueError("this layout has the second_order_* pieces: pass second_order= (no JAX reader yet)")
            _write_posterior(p, "second_order", second_order, present, at)
    return _assemble(layout, p)


def observe_reading(rules: Rules, layout: Layout, state: State, seat: Any, reading: Any) -> tuple[jax.Array, Any]:
    """:func:`observe` of ``seat`` by a player that keeps its reading of the other players across
    steps (``jax.players_posterior.Reading``, None for a layout without the ``players_*`` pieces):
    the exact posterior computed once for both belief pieces, the reading brought up to date, as
    ``BatchPolicyAgent``'s readers are. Returns the observation and the reading."""
    exact = players = None
    if "belief_chief" in layout.offsets:
        from .beliefs import seat_beliefs

        exact = seat_beliefs(rules, state, seat)
        if "players_chief" in layout.offsets:
            from .players_posterior import kept_observed_posterior

            reading, players = kept_observed_posterior(rules, reading, state, seat, exact)
    return observe(rules, state, seat, layout, exact=exact, players=players), reading


def _hidden(rules: Rules, state: State) -> dict[str, jax.Array]:
    """The hidden pieces of ``STATE``, per-seat ones as (5, k) rows by absolute seat."""
    kind = state.pending_kind.astype(I32)
    acting = kind >= 0
    clues = state.clues.astype(I32)
    bag = state.bag.astype(I32)
    n = state.n.astype(I32)
    every = jnp.concatenate([clues, bag])
    value_a = (every >= 0) & ((every & 1) == 0)
    chief = jnp.where(value_a, jnp.left_shift(1, jnp.clip(every >> 1, 0)), 0).sum()
    chosen = ((clues >= 0) | (n <= _R)).all()
    deck = state.deck.astype(I32)
    in_deck = (jnp.arange(deck.shape[0]) >= state.deck_pos.astype(I32)) & (deck != INVESTIGATOR) & (deck >= 0)
    cat_bits = jnp.where(in_deck, jnp.left_shift(jnp.uint32(1), jnp.clip(deck, 0, N_CATS - 1).astype(jnp.uint32)), 0)
    deck_cats = lax.reduce(cat_bits.astype(jnp.uint32), jnp.uint32(0), lax.bitwise_or, (0,))
    return {
        "acting_seat": _hot(state.pending_seat.astype(I32), SEATS, acting)[:, None],
        "decision": _hot(kind, 4, acting),
        "clues": (jnp.arange(N_CLUES) == clues[:, None]).astype(F32),
        "bag": _hots(bag, N_CLUES, bag >= 0),
        "chief": _hot(chief, N_CATS, chosen),
        "deck_cats": _bits(deck_cats),
        "chip_values": _table(_TENTHS, state.value_counts),
        "points": _table(_POINTS, state.points, _POINTS_LOW)[:, None],
        "hidden_adler": _hidden_adler(rules, state).astype(F32) * 0.5,
    }


def encode_state(rules: Rules, state: State) -> jax.Array:
    """(STATE.size,) float32: the full state, seats absolute, as ``batch.encode_state`` writes it."""
    p = _public(rules, state, jnp.asarray(0, I32))
    p.update({name: value.reshape(-1) for name, value in _hidden(rules, state).items()})
    return _assemble(STATE, p)


_BY_SEAT = {"acting_seat", "clues", "chip_values", "points", "hidden_adler"}


def encode_critic_state(rules: Rules, state: State, seat: Any = None) -> jax.Array:
    """(CRITIC_STATE.size,) float32: ``batch.observation.encode_critic_state`` for one game, the
    per-seat hidden rows rotated to the seats relative to ``seat`` (default: the seat to act)."""
    seat = acting_seat(state) if seat is None else jnp.asarray(seat, I32)
    _, present, at = _seats_from(state, seat)
    p = {}
    for name, value in _hidden(rules, state).items():
        if name in _BY_SEAT:
            value = jnp.where(present[:, None], value[at], 0.0)
        p[f"state_{name}"] = value.reshape(-1)
    p.pop("state_decision")
    return _assemble(CRITIC_STATE, p)


# ------------------------------------------------------------------------------ batches
def _seats_or_acting(states: State, seats: Any) -> jax.Array:
    return jax.vmap(acting_seat)(states) if seats is None else jnp.asarray(seats, I32)


@compiled.entry(static=("rules", "layout"), what="the observations")
def observe_batch(
    rules: Rules,
    states: State,
    seats: Any = None,
    layout: Layout = OBSERVATION,
    exact: Posterior | None = None,
    players: Posterior | None = None,
    second_order: Posterior | None = None,
) -> jax.Array:
    """(B, layout.size) float32: :func:`observe` of every game of a batch (``states`` with a leading
    axis), ``seats[b]`` in game b (default: each game's seat to act), jitted per rules and layout."""
    seats = _seats_or_acting(states, seats)
    one: Callable[..., jax.Array] = partial(observe, rules, layout=layout)
    return jax.vmap(lambda s, seat, e, pl, so: one(s, seat, exact=e, players=pl, second_order=so))(
        states, seats, exact, players, second_order
    )


@compiled.entry(static=("rules",), what="the full states")
def encode_state_batch(rules: Rules, states: State) -> jax.Array:
    """(B, STATE.size) float32: :func:`encode_state` of every game of a batch."""
    return jax.vmap(partial(encode_state, rules))(states)


@compiled.entry(static=("rules",), what="the critic's states")
def encode_critic_state_batch(rules: Rules, states: State, seats: Any = None) -> jax.Array:
    """(B, CRITIC_STATE.size) float32: :func:`encode_critic_state` of every game of a batch."""
    seats = _seats_or_acting(states, seats)
    return jax.vmap(partial(encode_critic_state, rules))(states, seats)


__all__ = [
    "acting_seat",
    "encode_critic_state",
    "encode_critic_state_batch",
    "encode_state",
    "encode_state_batch",
    "observe",
    "observe_batch",
]
