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
        "one-hot relative seat whose turn it is to draw (the last card's drawer while its window is open)",
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
    Piece("stasi_card", (SEATS,), "one-hot relative seat holding the Stasi card this round"),
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
STATE = Layout([p for p in _PUBLIC if p.name != "decision"] + _HIDDEN)
"""The full state (seats absolute: relative to seat 0), for centralised critics."""

_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little").astype(np.float32)


def _bits32(masks: list[int]) -> np.ndarray:
    """Rows of 32 bits (lowest cat first) for a list of 32-bit masks."""
    raw = np.array(masks, dtype="<u4").view(np.uint8)
    return _BITS[raw].reshape(len(masks), 32)


def _o(layout: Layout, name: str) -> int:
    return layout.offsets[name]


def _fill_public(out: np.ndarray, layout: Layout, view: PlayerView) -> None:
    """The public pieces, as seen from ``view.seat`` (everything here is known at the table)."""
    seat, n = view.seat, view.num_players
    rel = [(seat + r) % n for r in range(n)]  # absolute seat of relative seat r
    o = layout.offsets

    def one_hot(name: str, absolute: int) -> None:
        if absolute >= 0:
            out[o[name] + (absolute - seat) % n] = 1.0

    out[o["seat_present"] : o["seat_present"] + n] = 1.0
    out[o["num_players"] + n - 3] = 1.0
    cfg = view.config
    out[o["rules"] : o["rules"] + 4] = (
        cfg.stasi,
        cfg.cafe_adler,
        cfg.clue_face == "choose",
        cfg.non_accuser_white == "chief_uncaught",
    )
    out[o["round"] + view.round_index] = 1.0
    one_hot("first_player", view.first_player)
    one_hot("drawer", view.drawer)
    if view.last_card >= 0:
        out[o["last_card"] + view.last_card] = 1.0
        one_hot("last_drawer", view.last_drawer)
    out[o["deck_size"]] = view.deck_size / MAX_DECK
    out[o["investigators_left"]] = view.investigators_left / 2
    for clue in view.public_clues:
        out[o["public_clues"] + clue] = 1.0
    for holder, clue in view.exposed_clues.items():
        out[o["exposed_clues"] + ((holder - seat) % n) * N_CLUES + clue] = 1.0
    one_hot("stasi_card", view.stasi_card)
    accused = [0] * n
    for position, (who, cat) in enumerate(view.accusations):
        accused[(who - seat) % n] = 1 << cat
        out[o["accusation_order"] + ((who - seat) % n) * MAX_ACCUSATIONS + position] = 1.0
    rows, discards = view.rows, view.discards
    bits = _bits32([rows[s] for s in rel] + [discards[s] for s in rel] + accused + [view.targets])
    out[o["rows"] : o["rows"] + n * N_CATS] = bits[:n].ravel()
    out[o["discards"] : o["discards"] + n * N_CATS] = bits[n : 2 * n].ravel()
    out[o["accused"] : o["accused"] + n * N_CATS] = bits[2 * n : 3 * n].ravel()
    out[o["targets"] : o["targets"] + N_CATS] = bits[3 * n]
    for r, s in enumerate(rel):
        colours = view.colour_counts(s)
        face_up = view.face_up_adler_counts(s)
        for c in range(3):
            out[o["chip_colours"] + 3 * r + c] = colours[c] / 10
            out[o["face_up_adler"] + 3 * r + c] = face_up[c] / 2
    supply = view.supply_counts
    for c in range(3):
        out[o["supply"] + c] = supply[c] / MAX_CHIPS_PER_COLOUR


def _chip_values(out: np.ndarray, start: int, values: list[int]) -> None:
    for value in values:
        out[start + value - STASI_KEPT_VALUE] += 0.1


def encode_observation(game: Game, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (float32, ``OBSERVATION.size`` long)."""
    view = PlayerView(game, seat)
    layout = OBSERVATION
    out = np.zeros(layout.size, dtype=np.float32)
    _fill_public(out, layout, view)
    o = layout.offsets
    kind = view.decision_kind
    if kind >= 0:
        out[o["decision"] + kind] = 1.0
    out[o["own_tile"] + view.own_tile] = 1.0
    if view.own_clue >= 0:
        out[o["own_clue"] + view.own_clue] = 1.0
    _chip_values(out, o["own_chip_values"], view.own_chip_values)
    out[o["own_points"]] = view.own_points / 10
    hidden = view.own_hidden_adler_counts()
    for c in range(3):
        out[o["own_hidden_adler"] + c] = hidden[c] / 2
    colour = view.decision_chip_colour
    if colour >= 0:
        out[o["adler_decision"] + colour] = 1.0
    return out


def encode_state(game: Game) -> np.ndarray:
    """The full state (hidden clues, chip values, deck contents), seats absolute (seat 0 first)."""
    from .engine import scoring
    from .engine.round_setup import chief

    layout = STATE
    out = np.zeros(layout.size, dtype=np.float32)
    _fill_public(out, layout, PlayerView(game, 0))
    o = layout.offsets
    if game.current_seat >= 0:
        out[o["acting_seat"] + game.current_seat] = 1.0
    for s, clue in enumerate(game.clues):
        if clue >= 0:
            out[o["clues"] + s * N_CLUES + clue] = 1.0
    for clue in game.bag:
        out[o["bag"] + clue] = 1.0
    if min(game.clues) >= 0:
        out[o["chief"] + chief(game)] = 1.0
    for card in game.deck[game.deck_pos :]:
        if card != INVESTIGATOR:
            out[o["deck_cats"] + card] = 1.0
    for s in range(game.n):
        values = [scoring.chip_value(game, chip) for chip in game.holdings[s]]
        _chip_values(out, o["chip_values"] + s * len(CHIP_VALUES), values)
        out[o["points"] + s] = scoring.total(game, s) / 10
        for chip in scoring.hidden_adler_chips(game, s):
            out[o["hidden_adler"] + 3 * s + game.pool.colour[chip]] += 0.5
    return out
