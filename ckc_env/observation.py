"""Observation and state encoding, declared once as named pieces (see ``OBSERVATION`` and ``STATE``).

Seats in the observation are relative to the observer: relative seat r is the player r places
clockwise (r = 0 is the observer). Five seats are always encoded; seats a 3- or 4-player game
does not have are zero and flagged in ``seat_present``, so one network can play every count.
Counts are scaled into small ranges (the scale is in each piece's meaning).
"""

from __future__ import annotations

import numpy as np

from .config import MAX_CHIPS_PER_COLOUR
from .engine.actions import CAFE_ADLER
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
        "one-hot relative seat whose turn it is: the last card's drawer until that card's window closes "
        "(also when the round ends inside it), then the next player to draw (also once the deck is empty)",
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
    Piece(
        "accusation_order",
        (SEATS, MAX_ACCUSATIONS),
        "one-hot position of each relative seat's accusation in this round's order",
    ),
    Piece("rows", (SEATS, N_CATS), "cats in each relative seat's row of suspects"),
    Piece("discards", (SEATS, N_CATS), "cats on each relative seat's discard pile"),
    Piece("accused", (SEATS, N_CATS), "the cat each relative seat accused this round"),
    Piece(
        "chip_colours", (SEATS, 3), "chips of each relative seat by colour (gold, white, black) / 10", high=COUNT_HIGH
    ),
    Piece("face_up_adler", (SEATS, 3), "face-up Cafe Adler chips of each relative seat by colour / 2"),
    Piece(
        "targets",
        (N_CATS,),
        "cats in a row that nobody accused this round: the legal targets while accusations are open",
    ),
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

_BELIEFS = [
    Piece("belief_chief", (N_CATS,), "exact posterior P(cat is the chief spy) from the observer's information set"),
    Piece("belief_assistant", (N_CATS,), "exact posterior P(cat is an assistant)"),
    Piece("belief_clues", (SEATS, N_CLUES), "exact posterior of each relative seat's clue"),
]
OBSERVATION_WITH_BELIEFS = Layout(_PUBLIC + _OWN + _BELIEFS)
"""The observation with ``belief_features=True``: the same pieces, then the exact beliefs."""
STATE = Layout(_PUBLIC + _HIDDEN)
"""The full state (seats absolute: relative to seat 0; ``decision`` is the acting seat's), for
centralised critics."""

_BITS16 = np.unpackbits(
    np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1, bitorder="little"
).astype(np.float32)
"""_BITS16[m] = the 16 bits of m as floats, lowest first."""

_SEAT_BLOCK = ("rows", "discards", "accused", "chip_colours", "face_up_adler")
"""Consecutive pieces filled with one gather from the engine's ``seat_tables`` buffer."""
for _layout in (OBSERVATION, STATE):
    _names = [p.name for p in _layout.pieces]
    assert _names[_names.index("rows") :][:5] == list(_SEAT_BLOCK), "the seat block must stay consecutive"
_SEAT_BLOCK_SIZE = 3 * SEATS * N_CATS + 2 * SEATS * 3


def _seat_block_index(n: int, seat: int) -> np.ndarray:
    """Indices into ``Game.seat_tables`` for the seat block seen from ``seat``: relative seat r is
    absolute seat (seat + r) % n; seats the game does not have read the always-empty seat 5."""
    rel = [(seat + r) % n for r in range(n)] + [SEATS] * (SEATS - n)
    index = [k * 6 * N_CATS + a * N_CATS + c for k in range(3) for a in rel for c in range(N_CATS)]
    index += [576 + 3 * a + c for a in rel for c in range(3)]
    index += [594 + 3 * a + c for a in rel for c in range(3)]
    return np.array(index, dtype=np.intp)


_SEAT_BLOCK_INDEX = {(n, seat): _seat_block_index(n, seat) for n in (3, 4, 5) for seat in range(n)}
_SEAT_BLOCK_SCALE = np.array([1.0] * (3 * SEATS * N_CATS) + [0.1] * 15 + [0.5] * 15, dtype=np.float32)


_STATIC: dict[tuple[int, int], tuple[object, np.ndarray]] = {}


def _static_part(layout: Layout, view: PlayerView) -> np.ndarray:
    """A fresh vector holding the pieces that are fixed for a game (seats, player count, rules)."""
    cfg = view.config
    key = (id(layout), id(cfg))
    entry = _STATIC.get(key)
    if entry is None or entry[0] is not cfg:  # the entry keeps cfg alive, so its id is not reused
        if len(_STATIC) > 256:
            _STATIC.clear()
        n, o = cfg.num_players, layout.offsets
        base = np.zeros(layout.size, dtype=np.float32)
        base[o["seat_present"] : o["seat_present"] + n] = 1.0
        base[o["num_players"] + n - 3] = 1.0
        flags = (cfg.stasi, cfg.cafe_adler, cfg.clue_face == "choose", cfg.non_accuser_white == "chief_uncaught")
        base[o["rules"] : o["rules"] + 4] = flags
        entry = _STATIC[key] = (cfg, base)
    return entry[1].copy()


_P = {name: OBSERVATION.offsets[name] for name in (p.name for p in _PUBLIC)}
assert all(STATE.offsets[name] == offset for name, offset in _P.items())  # one public prefix for both
_ROWS, _TARGETS, _ROUND, _FIRST, _DRAWER = _P["rows"], _P["targets"], _P["round"], _P["first_player"], _P["drawer"]
_LAST_CARD, _LAST_DRAWER, _STASI, _PUBLIC_CLUES = (
    _P["last_card"],
    _P["last_drawer"],
    _P["stasi_card"],
    _P["public_clues"],
)
_EXPOSED, _ORDER, _DECK, _INVESTIGATORS = (
    _P["exposed_clues"],
    _P["accusation_order"],
    _P["deck_size"],
    _P["investigators_left"],
)
_SUPPLY = _P["supply"]


def _public(layout: Layout, view: PlayerView) -> tuple[np.ndarray, memoryview]:
    """A vector with the public pieces seen from ``view.seat`` (everything here is known at the table).

    Tables are copied in blocks; single entries go through a memoryview, which writes faster
    than NumPy's scalar indexing (this runs at every step).
    """
    seat, n = view.seat, view.num_players
    out = _static_part(layout, view)
    block = out[_ROWS : _ROWS + _SEAT_BLOCK_SIZE]
    view.seat_tables.take(_SEAT_BLOCK_INDEX[n, seat], out=block, mode="clip")  # indices are in range
    block *= _SEAT_BLOCK_SCALE
    targets = view.targets
    out[_TARGETS : _TARGETS + 16] = _BITS16[targets & 0xFFFF]
    out[_TARGETS + 16 : _TARGETS + 32] = _BITS16[targets >> 16]

    mv = memoryview(out)
    mv[_ROUND + view.round_index] = 1.0
    mv[_FIRST + (view.first_player - seat) % n] = 1.0
    mv[_DRAWER + (view.drawer - seat) % n] = 1.0
    last_card = view.last_card
    if last_card >= 0:
        mv[_LAST_CARD + last_card] = 1.0
        mv[_LAST_DRAWER + (view.last_drawer - seat) % n] = 1.0
    stasi_card = view.stasi_card
    if stasi_card >= 0:
        mv[_STASI + (stasi_card - seat) % n] = 1.0
    for clue in view.public_clues:
        mv[_PUBLIC_CLUES + clue] = 1.0
    for holder, clue in view.exposed_clues.items():
        mv[_EXPOSED + ((holder - seat) % n) * N_CLUES + clue] = 1.0
    for position, (who, _) in enumerate(view.accusations):
        mv[_ORDER + ((who - seat) % n) * MAX_ACCUSATIONS + position] = 1.0
    mv[_DECK] = view.deck_size / MAX_DECK
    mv[_INVESTIGATORS] = view.investigators_left / 2
    supply = view.supply_counts
    mv[_SUPPLY] = supply[0] / MAX_CHIPS_PER_COLOUR
    mv[_SUPPLY + 1] = supply[1] / MAX_CHIPS_PER_COLOUR
    mv[_SUPPLY + 2] = supply[2] / MAX_CHIPS_PER_COLOUR
    return out, mv


def _value_counts(mv: memoryview, start: int, values: list[int]) -> None:
    for value in values:
        mv[start + value - STASI_KEPT_VALUE] += 0.1


def encode_observation(game: Game, seat: int, layout: Layout = OBSERVATION) -> np.ndarray:
    """The observation vector of ``seat``: ``OBSERVATION`` or ``OBSERVATION_WITH_BELIEFS`` (float32)."""
    view = PlayerView(game, seat)
    o = layout.offsets
    out, mv = _public(layout, view)
    kind = view.decision_kind
    if kind >= 0:
        mv[o["decision"] + kind] = 1.0
        if kind == CAFE_ADLER:
            mv[o["adler_decision"] + view.decision_chip_colour] = 1.0
    mv[o["own_tile"] + view.own_tile] = 1.0
    clue = view.own_clue
    if clue >= 0:
        mv[o["own_clue"] + clue] = 1.0
    values = view.own_chip_values
    if values:
        _value_counts(mv, o["own_chip_values"], values)
        mv[o["own_points"]] = sum(values) / 10
        if view.config.cafe_adler:
            for c, count in enumerate(view.own_hidden_adler_counts()):
                mv[o["own_hidden_adler"] + c] = count / 2
    if layout is OBSERVATION_WITH_BELIEFS:
        _fill_beliefs(out, o, view)
    return out


def _fill_beliefs(out: np.ndarray, o: dict[str, int], view: PlayerView) -> None:
    from .beliefs import beliefs

    b = beliefs(view)
    out[o["belief_chief"] : o["belief_chief"] + N_CATS] = b.chief
    out[o["belief_assistant"] : o["belief_assistant"] + N_CATS] = b.assistant
    n = view.num_players
    clues = out[o["belief_clues"] : o["belief_clues"] + n * N_CLUES].reshape(n, N_CLUES)
    clues[:] = np.roll(b.clue, -view.seat, axis=0)  # relative seats


def encode_state(game: Game) -> np.ndarray:
    """The full state (hidden clues, chip values, deck contents), seats absolute (seat 0 first)."""
    from .engine import scoring
    from .engine.round_setup import chief

    layout = STATE
    o = layout.offsets
    out, mv = _public(layout, PlayerView(game, 0))
    if game.current_seat >= 0:
        mv[o["acting_seat"] + game.current_seat] = 1.0
        mv[o["decision"] + game.pending_kind] = 1.0
    for s, clue in enumerate(game.clues):
        if clue >= 0:
            mv[o["clues"] + s * N_CLUES + clue] = 1.0
    for clue in game.bag:
        mv[o["bag"] + clue] = 1.0
    if min(game.clues) >= 0:
        mv[o["chief"] + chief(game)] = 1.0
    for card in game.deck[game.deck_pos :]:
        if card != INVESTIGATOR:
            mv[o["deck_cats"] + card] = 1.0
    for s in range(game.n):
        values = [scoring.chip_value(game, chip) for chip in game.holdings[s]]
        _value_counts(mv, o["chip_values"] + s * len(CHIP_VALUES), values)
        mv[o["points"] + s] = sum(values) / 10
        for chip in scoring.hidden_adler_chips(game, s):
            mv[o["hidden_adler"] + 3 * s + game.pool.colour[chip]] += 0.5
    return out
