"""Observation and state encoding, declared once as named pieces (see ``OBSERVATION`` and ``STATE``).

Seats in the observation are relative to the observer: relative seat r is the player r places
clockwise (r = 0 is the observer). Five seats are always encoded; seats a 3- or 4-player game
does not have are zero and flagged in ``seat_present``, so one network can play every count.
Counts are scaled into small ranges (the scale is in each piece's meaning).

Every layout an environment version has used stays declared (``LAYOUTS``), so a policy trained on
an older one still gets its observations: the encoder fills the pieces a layout has, by name.
"""

from __future__ import annotations

import struct
from operator import itemgetter

import numpy as np

from .config import MAX_CHIPS_PER_COLOUR, MAX_PLAYERS, PLAYER_COUNTS, GameConfig
from .engine.actions import CAFE_ADLER
from .engine.cards import INVESTIGATOR, N_CATS, N_CLUES
from .engine.chips import STASI_KEPT_VALUE
from .engine.round_setup import chief
from .engine.scoring import hidden_adler_chips
from .engine.state import SCORING, GameState
from .engine.view import PlayerView
from .layout import Layout, Piece

SEATS = MAX_PLAYERS
MAX_DECK = N_CATS + 2
MAX_ACCUSATIONS = SEATS - 1
CHIP_VALUES = tuple(range(STASI_KEPT_VALUE, 6))  # -2..5
POINTS_LOW = (STASI_KEPT_VALUE - MAX_CHIPS_PER_COLOUR) / 10
POINTS_HIGH = MAX_CHIPS_PER_COLOUR * (5 + 2) / 10
COUNT_HIGH = MAX_CHIPS_PER_COLOUR / 10

_TABLE = [
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
        "one-hot relative seat holding the Stasi card: the seat whose clue is face-up during the "
        "suspicion phase; from the hand-out on, the taker of the Stasi chip",
    ),
    Piece(
        "accusation_order",
        (SEATS, MAX_ACCUSATIONS),
        "one-hot position of each relative seat's accusation in this round's order",
    ),
]
_ACCUSATION_TIME = Piece(
    "accusation_cards",
    (SEATS,),
    f"cards drawn this round when each relative seat accused / {MAX_DECK} (0: has not accused): how early "
    "each accusation came (v1)",
)
_SEATS_AND_CHIPS = [
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
    Piece(
        "own_chip_values",
        (len(CHIP_VALUES),),
        "observer's chips by value -2..5 / 10 (a held Stasi chip counts -2)",
        high=COUNT_HIGH,
    ),
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
_BELIEFS = [
    Piece("belief_chief", (N_CATS,), "exact posterior P(cat is the chief spy) from the observer's information set"),
    Piece("belief_assistant", (N_CATS,), "exact posterior P(cat is an assistant)"),
    Piece("belief_clues", (SEATS, N_CLUES), "exact posterior of each relative seat's clue"),
]

_PLAYER_BELIEFS = [
    Piece(
        "players_chief",
        (N_CATS,),
        "P(cat is the chief spy) when what the other players' accusations and passes this round reveal is "
        "weighed too, each player modelled as bayes_v1 (ckc_env.agents.bayes_v2); while clue faces are chosen "
        "and once the round is scored, the exact posterior above",
    ),
    Piece("players_assistant", (N_CATS,), "the same for P(cat is an assistant)"),
    Piece("players_clues", (SEATS, N_CLUES), "the same for each relative seat's clue"),
]

_SECOND_ORDER = [
    Piece(
        "second_order_chief",
        (N_CATS,),
        "P(cat is the chief spy) when the other players' accusations and passes are read as bayes_v2's, players "
        "who read each other's decisions too (ckc_env.agents.bayes_v3); while clue faces are chosen and once the "
        "round is scored, the exact posterior above",
    ),
    Piece("second_order_assistant", (N_CATS,), "the same for P(cat is an assistant)"),
    Piece("second_order_clues", (SEATS, N_CLUES), "the same for each relative seat's clue"),
]

_PUBLIC = [*_TABLE, _ACCUSATION_TIME, *_SEATS_AND_CHIPS]
OBSERVATION = Layout(_PUBLIC + _OWN)
"""The observation vector of one player (``checkpoint_charlie_v1`` and ``v2``)."""
OBSERVATION_WITH_BELIEFS = Layout(_PUBLIC + _OWN + _BELIEFS)
"""The observation with ``belief_features=True``: the same pieces, then the exact beliefs."""
OBSERVATION_WITH_PLAYER_BELIEFS = Layout(_PUBLIC + _OWN + _BELIEFS + _PLAYER_BELIEFS)
"""The observation with ``belief_features="players"``: the exact beliefs, then the posterior that
also reads the other players' decisions."""
OBSERVATION_WITH_SECOND_ORDER = Layout(_PUBLIC + _OWN + _BELIEFS + _PLAYER_BELIEFS + _SECOND_ORDER)
"""The observation with ``belief_features="second_order"``: the pieces of ``"players"``, then the
posterior that reads the other players as bayes_v3 does (each of them reading the others too)."""
STATE = Layout(_PUBLIC + _HIDDEN)
"""The full state (seats absolute: relative to seat 0; ``decision`` is the acting seat's), for
centralised critics."""
CRITIC_STATE = Layout(
    [
        Piece("state_acting_seat", (SEATS,), "one-hot relative seat that has to decide (zeros at game end)"),
        Piece("state_clues", (SEATS, N_CLUES), "each relative seat's clue (zeros while its face is to be chosen)"),
        Piece("state_bag", (N_CLUES,), "faces of the tiles in the bag, revealed or not"),
        Piece("state_chief", (N_CATS,), "one-hot chief spy (zeros while a clue face is still to be chosen)"),
        Piece("state_deck_cats", (N_CATS,), "cats still in the deck"),
        Piece(
            "state_chip_values",
            (SEATS, len(CHIP_VALUES)),
            "each relative seat's chips by value -2..5 / 10",
            high=COUNT_HIGH,
        ),
        Piece("state_points", (SEATS,), "each relative seat's points / 10", low=POINTS_LOW, high=POINTS_HIGH),
        Piece("state_hidden_adler", (SEATS, 3), "each relative seat's hidden Cafe Adler chips by colour / 2"),
    ]
)
"""The hidden pieces of ``STATE`` with seats relative to one player, for an asymmetric critic: the
vector environment's ``critic_state`` appends them to the learner's observation, for a value
network to read and the policy never to (``training/trainers/sb3/state_critic.py``)."""

_PUBLIC_V0 = [*_TABLE, *_SEATS_AND_CHIPS]
OBSERVATION_V0 = Layout(_PUBLIC_V0 + _OWN)
"""``checkpoint_charlie_v0``'s observation: v1 without ``accusation_cards`` (731 numbers)."""
OBSERVATION_V0_WITH_BELIEFS = Layout(_PUBLIC_V0 + _OWN + _BELIEFS)
"""``checkpoint_charlie_v0``'s observation with beliefs (845 numbers)."""

_V1 = {
    False: OBSERVATION,
    True: OBSERVATION_WITH_BELIEFS,
    "players": OBSERVATION_WITH_PLAYER_BELIEFS,
    "second_order": OBSERVATION_WITH_SECOND_ORDER,
}
LAYOUTS: dict[str, dict[bool | str, Layout]] = {
    "v0": {False: OBSERVATION_V0, True: OBSERVATION_V0_WITH_BELIEFS},
    "v1": _V1,
    "v2": _V1,  # v2 deals other games for a seed (one chance model for both engines); the same observations
}
"""Every observation layout by environment version and ``belief_features`` (an agent card names the
version it was trained under; a policy is given observations in that version's layout)."""
BELIEF_FEATURES = (False, True, "players", "second_order")
"""The accepted values of the ``belief_features`` option."""
ENV_VERSION = "v2"


def layout_by_size(size: int) -> tuple[str, bool | str, Layout] | None:
    """(version, belief_features, layout) of the observation layout with ``size`` numbers, if any
    (the newest version that has it)."""
    for version in reversed(LAYOUTS):
        for beliefs, layout in LAYOUTS[version].items():
            if layout.size == size:
                return version, beliefs, layout
    return None


class _Offsets:
    """The start of every piece in one layout (None for a piece the layout does not have)."""

    def __init__(self, layout: Layout) -> None:
        for p in (*_PUBLIC, *_OWN, *_HIDDEN, *_BELIEFS, *_PLAYER_BELIEFS, *_SECOND_ORDER):
            setattr(self, p.name, layout.offsets.get(p.name))
        names = [p.name for p in layout.pieces]
        # rows, discards and accused are filled in one stroke; face_up_adler follows chip_colours
        assert names[names.index("rows") :][:5] == ["rows", "discards", "accused", "chip_colours", "face_up_adler"]


_RELATIVE = {(n, seat): [(seat + r) % n for r in range(n)] for n in PLAYER_COUNTS for seat in range(n)}
"""Absolute seats in the order of relative seats 0, 1, ... seen from ``seat``."""
_IN_RELATIVE_ORDER = {key: itemgetter(*seats) for key, seats in _RELATIVE.items()}
_FACE_UP = 3 * SEATS
"""From a seat's entry in ``chip_colours`` to its entry in ``face_up_adler`` (the next piece)."""
_PACK_TABLES = struct.Struct(f"<{3 * SEATS}I")
_PADDING = {n: (0,) * (SEATS - n) for n in PLAYER_COUNTS}
_CAT_BIT = [1 << cat for cat in range(N_CATS)] + [0]
"""``_CAT_BIT[cat]``: the cat's bit in a mask; ``_CAT_BIT[-1]`` (no cat) is 0."""
TENTHS = [float(np.float32(k) * np.float32(0.1)) for k in range(4 * MAX_CHIPS_PER_COLOUR + 1)]
"""``TENTHS[k]``: a count k scaled by 1/10 as float32 computes it (the batched engine computes the same)."""
_BITS16 = np.unpackbits(
    np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1, bitorder="little"
).astype(np.float32)
"""_BITS16[m] = the 16 bits of m as floats, lowest first."""


class Encoder:
    """Fills vectors of one layout for games of one configuration. What is fixed for a game (the
    seats present, the player count, the rule flags) is filled once; everything else is read from
    a seat's :class:`PlayerView`, so it holds only what that seat can know."""

    def __init__(self, layout: Layout, config: GameConfig) -> None:
        self.layout = layout
        self.o = o = _Offsets(layout)
        n = config.num_players
        base = np.zeros(layout.size, dtype=np.float32)
        base[o.seat_present : o.seat_present + n] = 1.0
        base[o.num_players + n - 3] = 1.0
        flags = (
            config.stasi,
            config.cafe_adler,
            config.clue_face == "choose",
            config.non_accuser_white == "chief_uncaught",
        )
        base[o.rules : o.rules + 4] = flags
        self.static = base

    def public(self, view: PlayerView) -> tuple[np.ndarray, memoryview]:
        """A vector with the public pieces seen from ``view.seat`` (everything here is known at the table).

        The three card tables come from the seats' cat masks in one bit unpacking; single entries
        go through a memoryview, which writes faster than NumPy's scalar indexing (this runs at
        every step).
        """
        o = self.o
        seat, n = view.seat, view.num_players
        out = self.static.copy()
        in_order = _IN_RELATIVE_ORDER[n, seat]
        pad = _PADDING[n]
        accused = map(_CAT_BIT.__getitem__, in_order(view.accused_by))
        packed = _PACK_TABLES.pack(*in_order(view.rows), *pad, *in_order(view.discards), *pad, *accused, *pad)
        out[o.rows : o.rows + 3 * SEATS * N_CATS] = np.unpackbits(np.frombuffer(packed, np.uint8), bitorder="little")
        targets = view.targets
        out[o.targets : o.targets + 16] = _BITS16[targets & 0xFFFF]
        out[o.targets + 16 : o.targets + N_CATS] = _BITS16[targets >> 16]

        mv = memoryview(out)
        at = o.chip_colours
        for gold, white, black, up_gold, up_white, up_black in in_order(view.chip_table):
            mv[at] = TENTHS[gold]
            mv[at + 1] = TENTHS[white]
            mv[at + 2] = TENTHS[black]
            if up_gold or up_white or up_black:
                mv[at + _FACE_UP] = up_gold / 2
                mv[at + _FACE_UP + 1] = up_white / 2
                mv[at + _FACE_UP + 2] = up_black / 2
            at += 3
        mv[o.round + view.round_index] = 1.0
        mv[o.first_player + (view.first_player - seat) % n] = 1.0
        mv[o.drawer + (view.drawer - seat) % n] = 1.0
        last_card = view.last_card
        if last_card >= 0:
            mv[o.last_card + last_card] = 1.0
            mv[o.last_drawer + (view.last_drawer - seat) % n] = 1.0
        stasi_card = view.stasi_card
        if stasi_card >= 0:
            mv[o.stasi_card + (stasi_card - seat) % n] = 1.0
        for clue in view.public_clues:
            mv[o.public_clues + clue] = 1.0
        for holder, clue in view.exposed_clues.items():
            mv[o.exposed_clues + ((holder - seat) % n) * N_CLUES + clue] = 1.0
        accusations = view.accusations
        if accusations:
            for position, (who, _) in enumerate(accusations):
                mv[o.accusation_order + ((who - seat) % n) * MAX_ACCUSATIONS + position] = 1.0
            if o.accusation_cards is not None:
                for r, cards in enumerate(in_order(view.accused_at)):
                    if cards:
                        mv[o.accusation_cards + r] = cards / MAX_DECK
        mv[o.deck_size] = view.deck_size / MAX_DECK
        mv[o.investigators_left] = view.investigators_left / 2
        gold, white, black = view.supply_counts
        mv[o.supply] = gold / MAX_CHIPS_PER_COLOUR
        mv[o.supply + 1] = white / MAX_CHIPS_PER_COLOUR
        mv[o.supply + 2] = black / MAX_CHIPS_PER_COLOUR
        return out, mv

    def observation(self, view: PlayerView, reader=None) -> np.ndarray:
        """The observation vector of ``view.seat`` (float32). A layout with the players' posterior
        reads the table with ``reader`` (a ``PlayersReader`` of the seat, or a :class:`TableReading`
        for a layout with the second-order posterior too, brought up to date here, as a player that
        keeps one reads at its own decisions), or with fresh ones if None, which makes the vector a
        function of the state: the two differ only in how a window before a forced accusation is
        read (see ``reading.players_posterior.PlayersReader``)."""
        o = self.o
        out, mv = self.public(view)
        kind = view.decision_kind
        if kind >= 0:
            mv[o.decision + kind] = 1.0
            if kind == CAFE_ADLER:
                mv[o.adler_decision + view.decision_chip_colour] = 1.0
        mv[o.own_tile + view.own_tile] = 1.0
        clue = view.own_clue
        if clue >= 0:
            mv[o.own_clue + clue] = 1.0
        values = view.own_chip_values
        if values:
            _value_counts(mv, o.own_chip_values, values)
            mv[o.own_points] = sum(values) / 10
            if view.config.cafe_adler:
                for c, count in enumerate(view.own_hidden_adler_counts()):
                    mv[o.own_hidden_adler + c] = count / 2
        if o.belief_chief is not None:
            _fill_beliefs(out, o, view, reader)
        return out


_ENCODERS: dict[tuple[int, int], tuple[GameConfig, Encoder]] = {}


def encoder(layout: Layout, config: GameConfig) -> Encoder:
    """The :class:`Encoder` of a layout and configuration, built once."""
    entry = _ENCODERS.get((id(layout), id(config)))
    if entry is None or entry[0] is not config:  # the entry keeps config alive: its id is not reused
        if len(_ENCODERS) > 256:
            _ENCODERS.clear()
        entry = _ENCODERS[id(layout), id(config)] = (config, Encoder(layout, config))
    return entry[1]


def _value_counts(mv: memoryview, start: int, values: list[int]) -> None:
    """Chips by value -2..5, each count / 10."""
    for value in set(values):
        mv[start + value - STASI_KEPT_VALUE] = TENTHS[values.count(value)]


def encode_view(view: PlayerView, layout: Layout = OBSERVATION) -> np.ndarray:
    """The observation vector of ``view.seat`` in ``layout`` (float32): one of ``LAYOUTS``."""
    return encoder(layout, view.config).observation(view)


def encode_observation(state: GameState, seat: int, layout: Layout = OBSERVATION) -> np.ndarray:
    """The observation vector of ``seat`` (float32): ``OBSERVATION`` or ``OBSERVATION_WITH_BELIEFS``."""
    return encoder(layout, state.config).observation(PlayerView(state, seat))


def _fill_beliefs(out: np.ndarray, o: _Offsets, view: PlayerView, reader=None) -> None:
    from .reading.beliefs import beliefs

    exact = beliefs(view)
    _write_posterior(out, o.belief_chief, o.belief_assistant, o.belief_clues, exact, view)
    if o.players_chief is None:
        return
    reading = reader if isinstance(reader, TableReading) else TableReading(view.seat, reader)
    for name in ("players", "second_order"):
        start = getattr(o, f"{name}_chief")
        if start is None:
            continue
        b = exact
        if view.own_clue >= 0 and view.phase < SCORING:  # the decisions of this round's suspicion phase
            from .reading.beliefs import weighted_beliefs
            from .reading.chip_values import expected_chip_values

            b = weighted_beliefs(view, getattr(reading, name).update(view, expected_chip_values(view)))
        _write_posterior(out, start, getattr(o, f"{name}_assistant"), getattr(o, f"{name}_clues"), b, view)


def _write_posterior(out: np.ndarray, chief: int, assistant: int, clues: int, b, view: PlayerView) -> None:
    n = view.num_players
    out[chief : chief + N_CATS] = b.chief
    out[assistant : assistant + N_CATS] = b.assistant
    out[clues : clues + n * N_CLUES].reshape(n, N_CLUES)[:] = np.roll(b.clue, -view.seat, axis=0)


class TableReading:
    """The readers of one seat that a layout's posterior pieces need, kept across a game (as a
    player keeps its own): bayes_v2's ``PlayersReader`` for the ``players_*`` pieces and bayes_v3's
    ``SecondOrderReader`` for the ``second_order_*`` pieces, each made when first used (a fresh
    reading reads the whole round at once)."""

    def __init__(self, seat: int, players=None, second_order=None) -> None:
        self.seat = seat
        self._players, self._second_order = players, second_order

    @property
    def players(self):
        if self._players is None:
            from .reading.bayes_rule import BayesParams
            from .reading.players_posterior import PlayersReader

            self._players = PlayersReader(self.seat, BayesParams(), PLAYERS_FOLLOW)
        return self._players

    @property
    def second_order(self):
        if self._second_order is None:
            from .reading.bayes_rule import BayesParams
            from .reading.second_order import SecondOrderReader

            self._second_order = SecondOrderReader(self.seat, BayesParams(), PLAYERS_FOLLOW, PLAYERS_FOLLOW)
        return self._second_order


PLAYERS_FOLLOW = 0.8
"""How often the modelled players follow bayes_v1's rule, in the players' posterior (bayes_v2's default)."""


def encode_state(state: GameState) -> np.ndarray:
    """The full state (hidden clues, chip values, deck contents), seats absolute (seat 0 first)."""
    o = encoder(STATE, state.config).o
    out, mv = encoder(STATE, state.config).public(PlayerView(state, 0))
    if state.current_seat >= 0:
        mv[o.acting_seat + state.current_seat] = 1.0
        mv[o.decision + state.pending_kind] = 1.0
    for s, clue in enumerate(state.clues):
        if clue >= 0:
            mv[o.clues + s * N_CLUES + clue] = 1.0
    for clue in state.bag:
        mv[o.bag + clue] = 1.0
    if min(state.clues) >= 0:
        mv[o.chief + chief(state)] = 1.0
    for card in state.deck[state.deck_pos :]:
        if card != INVESTIGATOR:
            mv[o.deck_cats + card] = 1.0
    points = state.pool.points
    for s in range(state.n):
        values = [points[chip] for chip in state.holdings[s]]
        _value_counts(mv, o.chip_values + s * len(CHIP_VALUES), values)
        mv[o.points + s] = sum(values) / 10
        for chip in hidden_adler_chips(state, s):
            mv[o.hidden_adler + 3 * s + state.pool.colour[chip]] += 0.5
    return out
