"""Observation and state encoding, declared once as named pieces (see ``OBSERVATION`` and ``STATE``).

Seats in the observation are relative to the observer: relative seat r is the player r places
clockwise (r = 0 is the observer). Five seats are always encoded; seats a 3- or 4-player game
does not have are zero and flagged in ``seat_present``, so one network can play every count.
Counts are scaled into small ranges (the scale is in each piece's meaning).
"""

from __future__ import annotations

import numpy as np

from .config import MAX_CHIPS_PER_COLOUR
from .engine.cards import INVESTIGATOR, N_CATS, N_CLUES
from .engine.chips import STASI_KEPT_VALUE
from .engine.game import Game
from .engine.view import PlayerView
from .layout import Layout, Piece

SEATS = 5
MAX_DECK = N_CATS + 2
MAX_ACCUSATIONS = SEATS - 1
CHIP_VALUES = tuple(range(STASI_KEPT_VALUE, 6))  # -2..5
POINTS_LOW = (STASI_KEPT_VALUE - MAX_CHIPS_PER_COLOUR) / 10
POINTS_HIGH = MAX_CHIPS_PER_COLOUR * (5 + 2) / 10
COUNT_HIGH = MAX_CHIPS_PER_COLOUR / 10

_PUBLIC = [
    Piece("seat_present", (SEATS,), "1 for each relative seat that exists in this game"),
    Piece("num_players", (3,), "one-hot: 3, 4 or 5 players"),
    Piece(
        "rules",
        (4,),
        "flags: stasi variant, cafe_adler variant, clue_face='choose', non_accuser_white='chief_uncaught'",
    ),
    Piece("round", (5,), "one-hot round number 1..5"),
    Piece(
        "decision",
        (4,),
        "one-hot kind of the observer's pending decision: window, forced_accusation, clue_face, cafe_adler (zeros when not acting)",
    ),
    Piece("first_player", (SEATS,), "one-hot relative seat of this round's first player"),
    Piece(
        "drawer",
        (SEATS,),
        "one-hot relative seat whose turn it is to draw (the last card's drawer while its window is open; "
        "after the last card, the player after its drawer)",
    ),
    Piece(
        "last_card",
        (N_CATS + 1,),
        "one-hot last resolved card: cats 0..31, 32 = investigator card (zeros before the first draw)",
    ),
    Piece("last_drawer", (SEATS,), "one-hot relative seat that drew the last card"),
    Piece("deck_size", (1,), f"cards left in the deck / {MAX_DECK}"),
    Piece("investigators_left", (1,), "investigator cards left in the deck / 2"),
    Piece(
        "public_clues",
        (N_CLUES,),
        "clues revealed from the bag (by investigator cards; all bag tiles once the round is scored)",
    ),
    Piece(
        "exposed_clues",
        (SEATS, N_CLUES),
        "clue of each relative seat whose tile lies face-up (Stasi card holder; everyone once the round is scored)",
    ),
    Piece(
        "stasi_card",
        (SEATS,),
        "one-hot relative seat holding the Stasi card: the seat whose clue is face-up this round; "
        "from the hand-out on, the taker of the Stasi chip",
    ),
    Piece("rows", (SEATS, N_CATS), "cats in each relative seat's row of suspects"),
    Piece("discards", (SEATS, N_CATS), "cats on each relative seat's discard pile"),
    Piece("accused", (SEATS, N_CATS), "the cat each relative seat accused this round"),
    Piece(
        "accusation_order",
        (SEATS, MAX_ACCUSATIONS),
        "one-hot position of each relative seat's accusation in this round's order",
    ),
    Piece("targets", (N_CATS,), "cats that may be accused now (in a row, not accused)"),
    Piece(
        "chip_colours", (SEATS, 3), "chips of each relative seat by colour (gold, white, black) / 10", high=COUNT_HIGH
    ),
    Piece("face_up_adler", (SEATS, 3), "face-up Cafe Adler chips of each relative seat by colour / 2"),
    Piece("supply", (3,), "chips left in the supply by colour / 20"),
]
_OWN = [
    Piece("own_tile", (5,), "one-hot feature of the observer's clue tile"),
    Piece("own_clue", (N_CLUES,), "one-hot observer's clue (zeros while its face is to be chosen)"),
    Piece("own_chip_values", (len(CHIP_VALUES),), "observer's chips by value -2..5 / 10", high=COUNT_HIGH),
    Piece("own_points", (1,), "observer's points / 10", low=POINTS_LOW, high=POINTS_HIGH),
    Piece("own_hidden_adler", (3,), "observer's hidden Cafe Adler chips by colour / 2"),
    Piece("adler_decision", (3,), "one-hot colour of the Adler chip the observer is deciding about"),
]
_HIDDEN = [
    Piece("acting_seat", (SEATS,), "one-hot seat that has to decide (zeros at game end)"),
    Piece("clues", (SEATS, N_CLUES), "every seat's clue"),
    Piece("bag", (N_CLUES,), "faces of the tiles in the bag, revealed or not"),
    Piece("chief", (N_CATS,), "one-hot chief spy (zeros while a clue face is still to be chosen)"),
    Piece("deck_cats", (N_CATS,), "cats still in the deck"),
    Piece("chip_values", (SEATS, len(CHIP_VALUES)), "every seat's chips by value -2..5 / 10", high=COUNT_HIGH),
    Piece("points", (SEATS,), "every seat's points / 10", low=POINTS_LOW, high=POINTS_HIGH),
    Piece("hidden_adler", (SEATS, 3), "every seat's hidden Cafe Adler chips by colour / 2"),
]

OBSERVATION = Layout(_PUBLIC + _OWN)
"""The observation vector of one player."""
assert OBSERVATION.offsets["discards"] == OBSERVATION.offsets["rows"] + SEATS * N_CATS
assert OBSERVATION.offsets["accused"] == OBSERVATION.offsets["discards"] + SEATS * N_CATS
STATE = Layout([p for p in _PUBLIC if p.name != "decision"] + _HIDDEN)
"""The full state (seats absolute: relative to seat 0), for centralised critics."""

_BITS16 = np.unpackbits(
    np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1, bitorder="little"
).astype(np.float32)
"""_BITS16[m] = the 16 bits of m as floats, lowest first."""

_REL = {
    (n, seat): np.array([(seat + r) % n for r in range(n)] + [SEATS] * (SEATS - n))
    for n in (3, 4, 5)
    for seat in range(n)
}
"""Absolute seat of each relative seat 0..4 (padding seats point at the engine's empty row 5)."""


def _public(layout: Layout, view: PlayerView, out: np.ndarray, idx: list[int], val: list[float]) -> None:
    """Write the public pieces seen from ``view.seat`` (everything here is known at the table).

    Tables are copied in blocks; single entries are gathered as (index, value) pairs for the
    caller to write with one NumPy call, since scalar writes would dominate the cost.
    """
    seat, n = view.seat, view.num_players
    o = layout.offsets
    rel = _REL[n, seat]
    # rows, discards, accused are consecutive pieces: one gather fills all three.
    np.take(view.table_bits, rel, axis=1, out=out[o["rows"] : o["accused"] + SEATS * N_CATS].reshape(3, SEATS, N_CATS))
    targets = view.targets
    out[o["targets"] : o["targets"] + 16] = _BITS16[targets & 0xFFFF]
    out[o["targets"] + 16 : o["targets"] + 32] = _BITS16[targets >> 16]
    chips = out[o["chip_colours"] : o["chip_colours"] + 3 * SEATS].reshape(SEATS, 3)
    np.take(view.chip_counts, rel, axis=0, out=chips)
    chips *= 0.1
    face_up = out[o["face_up_adler"] : o["face_up_adler"] + 3 * SEATS].reshape(SEATS, 3)
    np.take(view.face_up_counts, rel, axis=0, out=face_up)
    face_up *= 0.5

    ones = [o["num_players"] + n - 3, o["round"] + view.round_index]
    ones += range(o["seat_present"], o["seat_present"] + n)
    cfg = view.config
    rules = (cfg.stasi, cfg.cafe_adler, cfg.clue_face == "choose", cfg.non_accuser_white == "chief_uncaught")
    ones += [o["rules"] + i for i, flag in enumerate(rules) if flag]
    ones.append(o["first_player"] + (view.first_player - seat) % n)
    ones.append(o["drawer"] + (view.drawer - seat) % n)
    if view.last_card >= 0:
        ones.append(o["last_card"] + view.last_card)
        ones.append(o["last_drawer"] + (view.last_drawer - seat) % n)
    if view.stasi_card >= 0:
        ones.append(o["stasi_card"] + (view.stasi_card - seat) % n)
    ones += [o["public_clues"] + clue for clue in view.public_clues]
    for holder, clue in view.exposed_clues.items():
        ones.append(o["exposed_clues"] + ((holder - seat) % n) * N_CLUES + clue)
    for position, (who, _) in enumerate(view.accusations):
        ones.append(o["accusation_order"] + ((who - seat) % n) * MAX_ACCUSATIONS + position)
    idx += ones
    val += [1.0] * len(ones)
    idx += (o["deck_size"], o["investigators_left"], o["supply"], o["supply"] + 1, o["supply"] + 2)
    supply = view.supply_counts
    val += (view.deck_size / MAX_DECK, view.investigators_left / 2, *(c / MAX_CHIPS_PER_COLOUR for c in supply))


def _value_counts(start: int, values: list[int], idx: list[int], val: list[float]) -> None:
    counts = [0] * len(CHIP_VALUES)
    for value in values:
        counts[value - STASI_KEPT_VALUE] += 1
    for i, count in enumerate(counts):
        if count:
            idx.append(start + i)
            val.append(count / 10)


def encode_observation(game: Game, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (float32, ``OBSERVATION.size`` long)."""
    view = PlayerView(game, seat)
    layout = OBSERVATION
    o = layout.offsets
    out = np.zeros(layout.size, dtype=np.float32)
    idx: list[int] = []
    val: list[float] = []
    _public(layout, view, out, idx, val)
    kind = view.decision_kind
    if kind >= 0:
        idx.append(o["decision"] + kind)
        val.append(1.0)
    idx.append(o["own_tile"] + view.own_tile)
    val.append(1.0)
    if view.own_clue >= 0:
        idx.append(o["own_clue"] + view.own_clue)
        val.append(1.0)
    values = view.own_chip_values
    _value_counts(o["own_chip_values"], values, idx, val)
    idx.append(o["own_points"])
    val.append(sum(values) / 10)
    for c, count in enumerate(view.own_hidden_adler_counts()):
        if count:
            idx.append(o["own_hidden_adler"] + c)
            val.append(count / 2)
    colour = view.decision_chip_colour
    if colour >= 0:
        idx.append(o["adler_decision"] + colour)
        val.append(1.0)
    out[idx] = val
    return out


def encode_state(game: Game) -> np.ndarray:
    """The full state (hidden clues, chip values, deck contents), seats absolute (seat 0 first)."""
    from .engine import scoring
    from .engine.round_setup import chief

    layout = STATE
    o = layout.offsets
    out = np.zeros(layout.size, dtype=np.float32)
    idx: list[int] = []
    val: list[float] = []
    _public(layout, PlayerView(game, 0), out, idx, val)
    ones = []
    if game.current_seat >= 0:
        ones.append(o["acting_seat"] + game.current_seat)
    ones += [o["clues"] + s * N_CLUES + clue for s, clue in enumerate(game.clues) if clue >= 0]
    ones += [o["bag"] + clue for clue in game.bag]
    if min(game.clues) >= 0:
        ones.append(o["chief"] + chief(game))
    ones += [o["deck_cats"] + card for card in game.deck[game.deck_pos :] if card != INVESTIGATOR]
    idx += ones
    val += [1.0] * len(ones)
    for s in range(game.n):
        values = [scoring.chip_value(game, chip) for chip in game.holdings[s]]
        _value_counts(o["chip_values"] + s * len(CHIP_VALUES), values, idx, val)
        idx.append(o["points"] + s)
        val.append(sum(values) / 10)
        hidden = [0, 0, 0]
        for chip in scoring.hidden_adler_chips(game, s):
            hidden[game.pool.colour[chip]] += 1
        for c, count in enumerate(hidden):
            if count:
                idx.append(o["hidden_adler"] + 3 * s + c)
                val.append(count / 2)
    out[idx] = val
    return out
