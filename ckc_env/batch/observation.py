"""Observation and state vectors of a batch: ``ckc_env.observation``'s layouts, bit for bit.

Every piece is filled for all games at once by name from the layout's offsets, so any layout of
``ckc_env.observation.LAYOUTS`` (v1 with or without the exact beliefs or the players' posterior, and
the legacy v0) and the ``STATE`` layout come out exactly as the scalar encoder writes them: the same
float32 values, computed by the same float64 (or float32) operations before the cast. Entries that
are 1.0 (flags, one-hot pieces) are gathered as flat positions and written in one scatter; counts
and bits are written as blocks. The players' posterior comes from ``batch.players_posterior``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..config import MAX_CHIPS_PER_COLOUR
from ..engine.actions import CAFE_ADLER
from ..engine.cards import INVESTIGATOR, N_CATS, N_CLUES
from ..engine.state import SCORING
from ..layout import Layout
from ..observation import CRITIC_STATE, MAX_ACCUSATIONS, MAX_DECK, OBSERVATION, STATE, TENTHS
from .beliefs import BatchBeliefs, seat_beliefs
from .scoring import chief_of
from .state import CAT_BITS, N_VALUES, SEAT_RANGE, SEATS, BatchState
from .suspicion import targets

_TENTHS = np.array(TENTHS, dtype=np.float32)
"""``_TENTHS[k]``: a count k scaled by 1/10 exactly as the scalar encoder writes it."""
_ROWS_PIECES = 3 * SEATS * N_CATS
"""rows, discards and accused: three (5, 32) pieces in a row."""


_WRITTEN = {
    # pieces every call writes whole (the rest starts at zero)
    "deck_size", "investigators_left", "accusation_cards", "rows", "discards", "accused", "chip_colours", "targets",
    "supply", "own_chip_values", "own_points", "belief_chief", "belief_assistant", "belief_clues", "deck_cats",
    "chip_values", "points", "hidden_adler", "players_chief", "players_assistant", "players_clues",
    "second_order_chief", "second_order_assistant", "second_order_clues",
}  # fmt: skip


@cache
def _zeroed(layout: Layout) -> tuple[tuple[int, int], ...]:
    """The column ranges of a layout's pieces that are not written whole, merged where adjacent."""
    ranges: list[list[int]] = []
    for piece in layout.pieces:
        if piece.name in _WRITTEN:
            continue
        start = layout.offsets[piece.name]
        if ranges and ranges[-1][1] == start:
            ranges[-1][1] = start + piece.size
        else:
            ranges.append([start, start + piece.size])
    return tuple((a, b) for a, b in ranges)


def _blank(layout: Layout, size: int, out: np.ndarray | None) -> np.ndarray:
    """A (size, layout.size) float32 array (``out`` if given), zero wherever the pieces are not all
    written: writing each entry once is most of an observation's cost at large batches."""
    if out is None:
        out = np.empty((size, layout.size), dtype=np.float32)
    elif out.shape != (size, layout.size) or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape ({size}, {layout.size}), got {out.dtype} {out.shape}")
    for a, b in _zeroed(layout):
        out[:, a:b] = 0.0
    return out


class _Ones:
    """The flat positions of a (B, width) array's entries that are 1.0, written in one scatter."""

    def __init__(self, size: int, width: int) -> None:
        self.start = np.arange(size, dtype=np.int64) * width
        self.parts: list[np.ndarray] = []

    def add(self, column: np.ndarray, where: np.ndarray | None = None) -> None:
        """One entry per game (``column``: (B,)), or several (``column``: (B, k), or (1, k) for the
        same columns in every game); ``where`` (the same shape) keeps some."""
        flat = (self.start if column.ndim == 1 else self.start[:, None]) + column
        self.parts.append(flat.reshape(-1) if where is None else flat[where])

    def write(self, out: np.ndarray) -> np.ndarray:
        out.reshape(-1)[np.concatenate(self.parts)] = 1.0
        return out


def _public(
    state: BatchState, seats: np.ndarray, layout: Layout, out: np.ndarray | None
) -> tuple[np.ndarray, _Ones, np.ndarray, np.ndarray]:
    """The public pieces seen from ``seats`` (one per game): ``Encoder.public`` for the batch.
    Returns the vectors with every piece but the 1.0 entries, those entries, the player counts and,
    per relative seat, the absolute seat (-1: absent)."""
    o = layout.offsets
    size = state.batch_size
    games = np.arange(size)
    n = state.n.astype(np.int64)
    out = _blank(layout, size, out)
    ones = _Ones(size, layout.size)
    absolute = np.where(n[:, None] > SEAT_RANGE, (seats[:, None] + SEAT_RANGE) % n[:, None], -1)
    present = absolute >= 0
    at = games[:, None] * SEATS + absolute % SEATS  # flat index of (game, absolute seat) in (B, 5) arrays

    def relative(seat: np.ndarray) -> np.ndarray:
        return (seat - seats) % n

    config = state.rules.config
    flags = (
        config.stasi,
        config.cafe_adler,
        config.clue_face == "choose",
        config.non_accuser_white == "chief_uncaught",
    )
    ones.add(o["seat_present"] + SEAT_RANGE[None, :], present)
    ones.add(o["num_players"] + n - 3)
    ones.add(o["rules"] + np.flatnonzero(flags)[None, :])

    # rows, discards, accused and targets: one bit unpacking
    masks = np.empty((size, 3 * SEATS + 1), dtype="<u4")
    masks[:, :SEATS] = np.where(present, np.take(state.rows, at), 0)
    masks[:, SEATS : 2 * SEATS] = np.where(present, np.take(state.discards, at), 0)
    masks[:, 2 * SEATS : 3 * SEATS] = np.where(present, CAT_BITS[np.take(state.accused_by, at)], 0)
    masks[:, 3 * SEATS] = targets(state)
    bits = np.unpackbits(masks.view(np.uint8), axis=1, bitorder="little")
    out[:, o["rows"] : o["rows"] + _ROWS_PIECES] = bits[:, :_ROWS_PIECES]
    out[:, o["targets"] : o["targets"] + N_CATS] = bits[:, _ROWS_PIECES : _ROWS_PIECES + N_CATS]

    table = np.where(present[:, :, None], np.take(state.chip_table.reshape(-1, 6), at, axis=0), 0)
    out[:, o["chip_colours"] : o["chip_colours"] + 3 * SEATS] = _TENTHS[table[:, :, :3]].reshape(size, -1)
    if config.cafe_adler:  # face-up Adler chips exist only in that variant
        out[:, o["face_up_adler"] : o["face_up_adler"] + 3 * SEATS] = (table[:, :, 3:] / 2).reshape(size, -1)

    ones.add(o["round"] + state.round_index.astype(np.int64))
    ones.add(o["first_player"] + relative(state.first_player))
    ones.add(o["drawer"] + relative(state.drawer))
    drawn = state.last_card >= 0
    ones.add(o["last_card"] + state.last_card.astype(np.int64), drawn)
    ones.add(o["last_drawer"] + relative(state.last_drawer), drawn)
    stasi_card = np.where(state.phase < SCORING, state.stasi_exposed, state.stasi_taker)
    ones.add(o["stasi_card"] + relative(stasi_card), stasi_card >= 0)

    scored = state.phase >= SCORING
    revealed = np.where(scored, SEATS - n, state.public_count)
    ones.add(o["public_clues"] + state.bag.astype(np.int64), np.arange(2) < revealed[:, None])
    # every clue face-up once the round is scored; before, the Stasi card holder's
    clues = np.where(present, np.take(state.clues, at), -1)
    holder = np.where(scored, -1, state.stasi_exposed)
    face_up = present & (scored[:, None] | (absolute == holder[:, None])) & (clues >= 0)
    ones.add(o["exposed_clues"] + SEAT_RANGE * N_CLUES + clues, face_up)

    made = np.arange(MAX_ACCUSATIONS) < state.accusation_count[:, None]
    order = ((state.accusation_seat - seats[:, None]) % n[:, None]) * MAX_ACCUSATIONS + np.arange(MAX_ACCUSATIONS)
    ones.add(o["accusation_order"] + order, made)
    if "accusation_cards" in o:
        when = np.where(present, np.take(state.accused_at, at), 0)
        out[:, o["accusation_cards"] : o["accusation_cards"] + SEATS] = when / MAX_DECK
    out[:, o["deck_size"]] = (state.deck_len - state.deck_pos) / MAX_DECK
    out[:, o["investigators_left"]] = (SEATS - n - state.public_count) / 2
    out[:, o["supply"] : o["supply"] + 3] = state.supply_len / MAX_CHIPS_PER_COLOUR
    return out, ones, n, absolute


def observe(
    state: BatchState,
    seats: np.ndarray | None = None,
    layout: Layout = OBSERVATION,
    out: np.ndarray | None = None,
    players: BatchBeliefs | None = None,
    second_order: BatchBeliefs | None = None,
    exact: BatchBeliefs | None = None,
) -> np.ndarray:
    """(B, layout.size) float32: the observation of ``seats[b]`` in game b (default: the seat to act,
    seat 0 where the game is over), as ``ckc_env.observation.encode_observation`` writes it; into
    ``out`` (reused between steps) if given.

    A layout with the players' posterior (``OBSERVATION_WITH_PLAYER_BELIEFS``) reads the others'
    decisions afresh in every game (as the scalar encoder without a reader), unless ``players``
    gives those pieces (``players_posterior.observed_posterior`` of these games and seats, e.g. from
    a reader kept across steps, as the scalar ``Table`` keeps one per seat); likewise the layout with
    the second-order posterior (``OBSERVATION_WITH_SECOND_ORDER``) and ``second_order``, from a
    ``second_order.SecondOrderReader``. ``exact``: the exact posterior of these games and seats, if
    already computed (``second_order.LayoutReaders.posteriors`` gives it with the others)."""
    if seats is None:
        seats = np.where(state.pending_kind >= 0, state.pending_seat, 0)
    seats = np.asarray(seats, dtype=np.int64)
    if seats.shape != (state.batch_size,) or np.any(seats < 0) or np.any(seats >= state.n):
        raise ValueError(f"seats must be one seat per game (0..n-1), shape ({state.batch_size},)")
    o = layout.offsets
    out, ones, _, absolute = _public(state, seats, layout, out)
    games = np.arange(state.batch_size)
    kind = state.pending_kind.astype(np.int64)
    acting = (state.pending_seat == seats) & (kind >= 0)
    ones.add(o["decision"] + kind, acting)
    colour = state.rules.chip_colour[state.pending_chip.astype(np.int64)]
    ones.add(o["adler_decision"] + colour, acting & (kind == CAFE_ADLER))
    ones.add(o["own_tile"] + state.tiles[games, seats].astype(np.int64))
    own_clue = state.clues[games, seats].astype(np.int64)
    ones.add(o["own_clue"] + own_clue, own_clue >= 0)
    out[:, o["own_chip_values"] : o["own_chip_values"] + N_VALUES] = _TENTHS[state.value_counts[games, seats]]
    out[:, o["own_points"]] = state.points[games, seats] / 10
    if state.rules.config.cafe_adler:
        hidden = state.holdings[games, seats] & ~state.face_up
        counts = np.bitwise_count(hidden[:, None] & state.rules.adler_colour_bits)
        out[:, o["own_hidden_adler"] : o["own_hidden_adler"] + 3] = counts / 2
    if "belief_chief" in o:
        b = exact if exact is not None else seat_beliefs(state, games, seats)
        _write_posterior(out, o, "belief", b, absolute)
        if "players_chief" in o:
            if players is None:
                from .players_posterior import observed_posterior  # it builds on the batched agents

                players = observed_posterior(state, games, seats, exact=b)
            _write_posterior(out, o, "players", players, absolute)
        if "second_order_chief" in o:
            if second_order is None:
                from .players_posterior import observed_posterior
                from .second_order import SecondOrderReader

                second_order = observed_posterior(state, games, seats, SecondOrderReader(), exact=b)
            _write_posterior(out, o, "second_order", second_order, absolute)
    return ones.write(out)


def _write_posterior(out: np.ndarray, o: dict, name: str, b: BatchBeliefs, absolute: np.ndarray) -> None:
    """The pieces ``{name}_chief``, ``_assistant`` and ``_clues`` (seats relative to the observer)."""
    out[:, o[f"{name}_chief"] : o[f"{name}_chief"] + N_CATS] = b.chief
    out[:, o[f"{name}_assistant"] : o[f"{name}_assistant"] + N_CATS] = b.assistant
    relative = np.take_along_axis(b.clue, (absolute % SEATS)[:, :, None], 1)
    relative = np.where((absolute >= 0)[:, :, None], relative, 0.0)
    out[:, o[f"{name}_clues"] : o[f"{name}_clues"] + SEATS * N_CLUES] = relative.reshape(len(out), -1)


def encode_state(state: BatchState, out: np.ndarray | None = None) -> np.ndarray:
    """(B, STATE.size) float32: the full state of each game (hidden clues, chip values, deck
    contents), seats absolute, as ``ckc_env.observation.encode_state`` writes it (into ``out`` if given)."""
    o = STATE.offsets
    size = state.batch_size
    out, ones, n, _ = _public(state, np.zeros(size, dtype=np.int64), STATE, out)
    kind = state.pending_kind.astype(np.int64)
    acting = kind >= 0
    ones.add(o["acting_seat"] + state.pending_seat.astype(np.int64), acting)
    ones.add(o["decision"] + kind, acting)
    clues = state.clues.astype(np.int64)
    ones.add(o["clues"] + SEAT_RANGE * N_CLUES + clues, clues >= 0)
    bag = state.bag.astype(np.int64)
    ones.add(o["bag"] + bag, bag >= 0)
    chosen = ((clues >= 0) | (n[:, None] <= SEAT_RANGE)).all(1)
    ones.add(o["chief"] + chief_of(state.clues, state.bag), chosen)
    in_deck = (np.arange(state.deck.shape[1]) >= state.deck_pos[:, None]) & (state.deck != INVESTIGATOR)
    deck_cats = np.bitwise_or.reduce(np.where(in_deck, CAT_BITS[state.deck], 0), axis=1).astype("<u4")
    out[:, o["deck_cats"] : o["deck_cats"] + N_CATS] = np.unpackbits(
        deck_cats.view(np.uint8).reshape(size, 4), axis=1, bitorder="little"
    )
    values = state.value_counts.astype(np.int64)
    out[:, o["chip_values"] : o["chip_values"] + SEATS * N_VALUES] = _TENTHS[values].reshape(size, -1)
    out[:, o["points"] : o["points"] + SEATS] = state.points / 10
    hidden = state.holdings[:, :, None] & ~state.face_up[:, None, None] & state.rules.adler_colour_bits
    out[:, o["hidden_adler"] : o["hidden_adler"] + 3 * SEATS] = (np.bitwise_count(hidden) / 2).reshape(size, -1)
    return ones.write(out)


_BY_SEAT = {"acting_seat", "clues", "chip_values", "points", "hidden_adler"}
"""The hidden pieces of ``STATE`` with a row per seat (rotated to the observer's relative seats)."""


def encode_critic_state(state: BatchState, seats: np.ndarray) -> np.ndarray:
    """(B, CRITIC_STATE.size) float32: the hidden pieces of :func:`encode_state`, the per-seat ones
    rotated so that row r is the player r places clockwise of ``seats`` (zeros for seats the game
    does not have), as the observation orders seats. What an asymmetric critic reads beside the
    observation (``CheckpointCharlieVectorEnv(critic_state=True)``); never a policy's input."""
    full = encode_state(state)
    n = state.n.astype(np.int64)
    absolute = np.where(n[:, None] > SEAT_RANGE, (seats[:, None] + SEAT_RANGE) % n[:, None], -1)
    present = (absolute >= 0)[:, :, None]
    out = np.empty((state.batch_size, CRITIC_STATE.size), dtype=np.float32)
    for piece in CRITIC_STATE.pieces:
        name = piece.name.removeprefix("state_")
        block = full[:, STATE.slice(name)]
        if name in _BY_SEAT:
            rows = block.reshape(len(block), SEATS, -1)
            rows = np.where(present, np.take_along_axis(rows, (absolute % SEATS)[:, :, None], 1), 0.0)
            block = rows.reshape(len(block), -1)
        out[:, CRITIC_STATE.slice(piece.name)] = block
    return out
