"""The state of B games in lockstep, declared once: the fields of ``engine/state.py`` as arrays.

Every field of :class:`~ckc_env.engine.state.GameState` that the rules read has an array here with
the same name and a leading batch axis; lists of the scalar state become fixed-size arrays with a
count or -1 padding, sets of cats stay 32-bit masks, and a seat's chips become a 64-bit mask over
chip ids (a pool has at most 60 chips). Seats are absolute (0..4; seats a game does not have hold
-1 or 0). What is fixed for the whole batch (the rule options, the chip pool) is a
:class:`BatchRules`, built once per configuration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import permutations
from typing import Any

import numpy as np

from ..config import BLACK, GOLD, WHITE, GameConfig
from ..engine.cards import CLUE_CATS, N_CATS
from ..engine.chips import ADLER, STASI, build_pool
from ..engine.state import GAME_OVER

SEATS = 5
MAX_DECK = N_CATS + 2
MAX_BAG = 2
MAX_ACCUSATIONS = SEATS - 1
MAX_SWAPS = 4
"""Cafe Adler swaps in one scoring phase: each of the 4 Adler chips is swapped at most once (it
then lies face-up and can never be swapped again)."""
N_VALUES = 8
"""Chip values -2..5 (a held Stasi chip counts -2), the index of a value is ``value + 2``."""
REASONS = ("points", "colour_used_up", "last_round")
"""Game-end reasons (RULES.md 6) as bits 1, 2, 4 of ``end_reasons``, in the scalar engine's order."""

CLUE_CAT_MASKS = np.array([*CLUE_CATS, 0], dtype=np.uint32)
"""``CLUE_CAT_MASKS[clue]``: the cats showing a clue's value; index -1 (no clue) gives 0."""
CAT_BITS = np.array([1 << c for c in range(N_CATS)] + [0], dtype=np.uint32)
"""``CAT_BITS[cat]``: the cat's bit; index 32 (an investigator card) and -1 (no cat) give 0."""
SEAT_ORDERS = np.full((SEATS + 1, 120, SEATS), -1, dtype=np.int8)
"""``SEAT_ORDERS[n, i]``: the i-th order of n seats in ``engine.suspicion.SEAT_ORDERS[n]`` (padded)."""
N_ORDERS = np.zeros(SEATS + 1, dtype=np.int64)
CLOCKWISE = np.full((SEATS + 1, SEATS, SEATS), -1, dtype=np.int8)
"""``CLOCKWISE[n, s]``: seats s, s+1, ... clockwise in an n-player game (padded)."""
for _n in (3, 4, 5):
    _orders = list(permutations(range(_n)))
    SEAT_ORDERS[_n, : len(_orders), :_n] = _orders
    N_ORDERS[_n] = len(_orders)
    for _s in range(_n):
        CLOCKWISE[_n, _s, :_n] = [(_s + i) % _n for i in range(_n)]
SEAT_RANGE = np.arange(SEATS)


@dataclass(frozen=True, eq=False)
class BatchRules:
    """What is fixed for a whole batch: the rule options and the chip pool as lookup tables."""

    config: GameConfig  # the options (its num_players is that of the batch's first game)
    chip_colour: np.ndarray  # (chips,) colour of each chip id (ids as ``engine.chips.build_pool``)
    chip_value: np.ndarray  # (chips,) printed value
    chip_points: np.ndarray  # (chips,) what it counts in a total (-2 for the Stasi chip)
    chip_value_index: np.ndarray  # (chips,) index of its points among the values -2..5
    chip_bits: np.ndarray  # (chips + 1,) uint64 bit of each chip id; index -1 gives 0
    colour_bits: np.ndarray  # (3,) uint64 chips of each colour
    adler_ids: np.ndarray  # (4,) ids of the Cafe Adler chips (-1 without the variant)
    adler_index: np.ndarray  # (chips + 1,) position of a chip in adler_ids, -1 for other chips
    adler_colour_bits: np.ndarray  # (3,) uint64 the Cafe Adler chips of each colour
    stasi_id: int  # the Stasi chip's id (-1 without the variant)
    not_swappable: np.uint64  # the Stasi chip: never taken in a swap (RULES.md 7 [decision])
    supply_size: int  # the most chips of one colour (the supply arrays' width)

    @property
    def n_chips(self) -> int:
        return len(self.chip_colour)


_SAME_FOR_A_BATCH = tuple(f for f in GameConfig.fields() if f not in ("num_players", "first_player"))


@lru_cache(maxsize=64)
def batch_rules(config: GameConfig) -> BatchRules:
    """The tables of one configuration, built once."""
    pool = build_pool(config)
    colour = np.array(pool.colour, dtype=np.int64)
    points = np.array(pool.points, dtype=np.int64)
    kind = np.array(pool.kind)
    chip_bits = np.array([1 << i for i in range(len(pool))] + [0], dtype=np.uint64)
    adler = np.flatnonzero(kind == ADLER)
    adler_ids = np.full(4, -1, dtype=np.int64)
    adler_ids[: len(adler)] = adler
    adler_index = np.full(len(pool) + 1, -1, dtype=np.int64)
    adler_index[adler] = np.arange(len(adler))
    stasi = np.flatnonzero(kind == STASI)
    stasi_id = int(stasi[0]) if len(stasi) else -1
    colour_bits = np.array([chip_bits[:-1][colour == c].sum() for c in range(3)], dtype=np.uint64)
    adler_colour_bits = np.array([chip_bits[adler][colour[adler] == c].sum() for c in range(3)], dtype=np.uint64)
    return BatchRules(
        config=config,
        chip_colour=colour,
        chip_value=np.array(pool.value, dtype=np.int64),
        chip_points=points,
        chip_value_index=points + 2,
        chip_bits=chip_bits,
        colour_bits=colour_bits,
        adler_ids=adler_ids,
        adler_index=adler_index,
        adler_colour_bits=adler_colour_bits,
        stasi_id=stasi_id,
        not_swappable=np.uint64(chip_bits[stasi_id] if stasi_id >= 0 else 0),
        supply_size=max(len(pool.ids_of(c)) for c in (GOLD, WHITE, BLACK)),
    )


def rules_for(configs: Sequence[GameConfig]) -> BatchRules:
    """The rules of a batch whose games may differ in ``num_players`` (and a fixed ``first_player``
    valid for each count) but in no other option: anything else is refused, naming the option."""
    first = configs[0]
    for other in configs[1:]:
        for name in _SAME_FOR_A_BATCH:
            if getattr(other, name) != getattr(first, name):
                raise ValueError(
                    f"the games of a batch share every rule option but num_players: {name}="
                    f"{getattr(first, name)!r} and {name}={getattr(other, name)!r} differ (run one batch per value)"
                )
        if (other.first_player == "random") != (first.first_player == "random"):
            raise ValueError(
                f"the games of a batch share first_player: {first.first_player!r} and {other.first_player!r} differ"
            )
    return batch_rules(first)


@dataclass(slots=True, eq=False)
class BatchState:
    """B games of Checkpoint Charlie; see the package docstring for the table of fields."""

    rules: BatchRules
    chance: Any  # where chance outcomes come from: ``chance.RandomChance`` or ``chance.ReplayChance``
    first_player_option: np.ndarray  # (B,) a fixed first player of round 1, or -1 for a random one

    # --- the batched random stream (``chance.RandomChance``)
    key: np.ndarray  # (B,) uint64 the game's key
    counter: np.ndarray  # (B,) uint64 draws taken from it

    # --- the game's set-up and progress
    n: np.ndarray  # (B,) players
    round_index: np.ndarray
    phase: np.ndarray
    game_over: np.ndarray
    first_player: np.ndarray
    next_first_player: np.ndarray

    # --- clues
    tiles: np.ndarray  # (B, 5) feature of each seat's tile
    clues: np.ndarray  # (B, 5) each seat's clue (-1 while its face is to be chosen)
    bag: np.ndarray  # (B, 2) clues of the bag tiles in reveal order (-1 beyond 5 - n)
    public_count: np.ndarray  # (B,) bag clues revealed so far: ``public_clues`` is ``bag[:public_count]``
    stasi_exposed: np.ndarray

    # --- cards
    deck: np.ndarray  # (B, 34) top first (-1 beyond 37 - n cards)
    deck_len: np.ndarray
    deck_pos: np.ndarray
    drawer: np.ndarray
    last_card: np.ndarray
    last_drawer: np.ndarray
    rows: np.ndarray  # (B, 5) uint32
    discards: np.ndarray  # (B, 5) uint32
    row_cats: np.ndarray  # (B,) uint32
    card_drawer: np.ndarray  # (B, 34) who drew each card of the deck: ``card_order`` with ``deck``

    # --- accusations
    accusation_seat: np.ndarray  # (B, 4) ``accusations`` in the order made: the seats
    accusation_cat: np.ndarray  # (B, 4) and the cats
    accusation_count: np.ndarray
    accused_by: np.ndarray  # (B, 5)
    accused_at: np.ndarray  # (B, 5)
    accused_cats: np.ndarray  # (B,) uint32
    round_over: np.ndarray

    # --- the pending decision
    pending_kind: np.ndarray
    pending_seat: np.ndarray
    pending_chip: np.ndarray
    queue: np.ndarray  # (B, 5) seats to ask in this phase, in order (-1 padded)
    queue_len: np.ndarray
    queue_pos: np.ndarray
    window_order: np.ndarray  # (B, 5)
    window_passed: np.ndarray  # (B,) bit s: seat s passed in the open window since the last accusation
    window_owed: np.ndarray
    adler_offered: np.ndarray  # (B,) bit 4 * seat + i: Adler chip ``rules.adler_ids[i]`` offered to seat

    # --- chips
    supply: np.ndarray  # (B, 3, supply_size) chip ids per colour; the last of the first supply_len is taken next
    supply_len: np.ndarray  # (B, 3)
    holdings: np.ndarray  # (B, 5) uint64 each seat's chips (bit = chip id)
    chip_table: np.ndarray  # (B, 5, 6) by colour, then face-up Cafe Adler chips by colour
    value_counts: np.ndarray  # (B, 5, 8) each seat's chips by points -2..5
    points: np.ndarray  # (B, 5) each seat's total (``scoring.total``)
    face_up: np.ndarray  # (B,) uint64 Cafe Adler chips received in a swap
    adler_stamp: np.ndarray  # (B, 4) when each Adler chip was last received: a seat's Adler
    adler_clock: np.ndarray  # chips are offered in the order it received them (its holdings' order)
    stasi_taker: np.ndarray

    # --- this round's scoring
    round_chief: np.ndarray
    served_seat: np.ndarray  # (B, 5) ``served``: seat, accused cat (-1), colour, chip (-1)
    served_cat: np.ndarray
    served_colour: np.ndarray
    served_chip: np.ndarray
    served_count: np.ndarray
    swap_seat: np.ndarray  # (B, 4) ``swaps``: seat, other, colour
    swap_other: np.ndarray
    swap_colour: np.ndarray
    swap_count: np.ndarray

    # --- what the last step reports
    rewards: np.ndarray  # (B, 5) float64 points won in the last step (the scalar ``pop_rewards``)
    win_rewards: np.ndarray  # (B, 5) float64 the "win" reward of a game that ended in the last step
    terminated: np.ndarray  # (B,) the game ended in the last step
    round_ended: np.ndarray  # (B,) a round ended in the last step: ``record`` holds it
    end_reasons: np.ndarray  # (B,) bits of ``REASONS`` once the game is over
    winners: np.ndarray  # (B, 5) bool once the game is over
    record: RoundRecord

    @property
    def batch_size(self) -> int:
        return len(self.n)

    @property
    def current_seat(self) -> np.ndarray:
        """(B,) the seat that has to decide (-1 where the game is over)."""
        return np.where(self.pending_kind >= 0, self.pending_seat, -1)

    @property
    def stasi_card(self) -> np.ndarray:
        """(B,) the seat holding the Stasi card (as ``GameState.stasi_card``)."""
        return np.where(self.phase < 4, self.stasi_exposed, self.stasi_taker)

    def copy(self) -> BatchState:
        """A snapshot: every array copied (the rules and the chance source are shared)."""
        values = {}
        for f in fields(self):
            value = getattr(self, f.name)
            values[f.name] = value.copy() if isinstance(value, (np.ndarray, RoundRecord)) else value
        return BatchState(**values)


@dataclass(slots=True, eq=False)
class RoundRecord:
    """The last finished round of each game, kept through the next round's deal (and an automatic
    reset) so that its summary can be read after the step that ended it (``summary.round_summaries``)."""

    round_index: np.ndarray
    clues: np.ndarray
    bag: np.ndarray
    public_count: np.ndarray
    stasi_exposed: np.ndarray
    round_chief: np.ndarray
    deck: np.ndarray
    deck_len: np.ndarray
    deck_pos: np.ndarray
    card_drawer: np.ndarray
    accused_at: np.ndarray
    served_seat: np.ndarray
    served_cat: np.ndarray
    served_colour: np.ndarray
    served_chip: np.ndarray
    served_count: np.ndarray
    stasi_taker: np.ndarray
    swap_seat: np.ndarray
    swap_other: np.ndarray
    swap_colour: np.ndarray
    swap_count: np.ndarray
    chip_colours: np.ndarray  # (B, 5, 3) after the round (the Stasi chip back, if the game goes on)
    supply_len: np.ndarray  # (B, 3) likewise
    next_first_player: np.ndarray
    game_over: np.ndarray
    end_reasons: np.ndarray
    totals: np.ndarray  # (B, 5) at game end
    gold: np.ndarray
    winners: np.ndarray
    n: np.ndarray

    SAME_NAME = (
        "round_index", "clues", "bag", "public_count", "stasi_exposed", "round_chief", "deck", "deck_len", "deck_pos",
        "card_drawer", "accused_at", "served_seat", "served_cat", "served_colour", "served_chip", "served_count",
        "stasi_taker", "swap_seat", "swap_other", "swap_colour", "swap_count", "supply_len", "next_first_player",
        "game_over", "end_reasons", "winners", "n",
    )  # fmt: skip
    """Fields copied from the state's field of the same name when a round ends."""

    def copy(self) -> RoundRecord:
        return RoundRecord(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def keep(self, state: BatchState, games: np.ndarray) -> None:
        """Record the round that just ended in ``games``."""
        for name in self.SAME_NAME:
            getattr(self, name)[games] = getattr(state, name)[games]
        self.chip_colours[games] = state.chip_table[games, :, :3]
        self.totals[games] = state.points[games]
        self.gold[games] = state.chip_table[games, :, GOLD]


def empty_state(rules: BatchRules, n: np.ndarray, chance: Any, first_player_option: np.ndarray) -> BatchState:
    """Arrays for len(n) games, all over (``game.start_games`` deals them)."""
    size = len(n)

    def full(shape: tuple[int, ...] | int, value: int, dtype: Any = np.int8) -> np.ndarray:
        return np.full(shape, value, dtype=dtype)

    k = rules.supply_size
    record = RoundRecord(
        round_index=full(size, 0),
        clues=full((size, SEATS), -1),
        bag=full((size, MAX_BAG), -1),
        public_count=full(size, 0),
        stasi_exposed=full(size, -1),
        round_chief=full(size, -1),
        deck=full((size, MAX_DECK), -1),
        deck_len=full(size, 0),
        deck_pos=full(size, 0),
        card_drawer=full((size, MAX_DECK), -1),
        accused_at=full((size, SEATS), 0),
        served_seat=full((size, SEATS), -1),
        served_cat=full((size, SEATS), -1),
        served_colour=full((size, SEATS), -1),
        served_chip=full((size, SEATS), -1),
        served_count=full(size, 0),
        stasi_taker=full(size, -1),
        swap_seat=full((size, MAX_SWAPS), -1),
        swap_other=full((size, MAX_SWAPS), -1),
        swap_colour=full((size, MAX_SWAPS), -1),
        swap_count=full(size, 0),
        chip_colours=full((size, SEATS, 3), 0),
        supply_len=full((size, 3), 0),
        next_first_player=full(size, 0),
        game_over=full(size, False, bool),
        end_reasons=full(size, 0, np.uint8),
        totals=full((size, SEATS), 0, np.int16),
        gold=full((size, SEATS), 0),
        winners=full((size, SEATS), False, bool),
        n=np.array(n, dtype=np.int8),
    )
    return BatchState(
        rules=rules,
        chance=chance,
        first_player_option=np.asarray(first_player_option, dtype=np.int8),
        key=np.zeros(size, dtype=np.uint64),
        counter=np.zeros(size, dtype=np.uint64),
        n=np.array(n, dtype=np.int8),
        round_index=full(size, 0),
        phase=full(size, GAME_OVER),
        game_over=full(size, True, bool),
        first_player=full(size, 0),
        next_first_player=full(size, 0),
        tiles=full((size, SEATS), -1),
        clues=full((size, SEATS), -1),
        bag=full((size, MAX_BAG), -1),
        public_count=full(size, 0),
        stasi_exposed=full(size, -1),
        deck=full((size, MAX_DECK), -1),
        deck_len=full(size, 0),
        deck_pos=full(size, 0),
        drawer=full(size, 0),
        last_card=full(size, -1),
        last_drawer=full(size, -1),
        rows=full((size, SEATS), 0, np.uint32),
        discards=full((size, SEATS), 0, np.uint32),
        row_cats=full(size, 0, np.uint32),
        card_drawer=full((size, MAX_DECK), -1),
        accusation_seat=full((size, MAX_ACCUSATIONS), -1),
        accusation_cat=full((size, MAX_ACCUSATIONS), -1),
        accusation_count=full(size, 0),
        accused_by=full((size, SEATS), -1),
        accused_at=full((size, SEATS), 0),
        accused_cats=full(size, 0, np.uint32),
        round_over=full(size, False, bool),
        pending_kind=full(size, -1),
        pending_seat=full(size, -1),
        pending_chip=full(size, -1),
        queue=full((size, SEATS), -1),
        queue_len=full(size, 0),
        queue_pos=full(size, 0),
        window_order=full((size, SEATS), -1),
        window_passed=full(size, 0, np.uint8),
        window_owed=full(size, 0, np.uint8),
        adler_offered=full(size, 0, np.uint32),
        supply=full((size, 3, k), -1),
        supply_len=full((size, 3), 0),
        holdings=full((size, SEATS), 0, np.uint64),
        chip_table=full((size, SEATS, 6), 0),
        value_counts=full((size, SEATS, N_VALUES), 0),
        points=full((size, SEATS), 0, np.int16),
        face_up=full(size, 0, np.uint64),
        adler_stamp=full((size, 4), 0, np.int16),
        adler_clock=full(size, 0, np.int16),
        stasi_taker=full(size, -1),
        round_chief=full(size, -1),
        served_seat=full((size, SEATS), -1),
        served_cat=full((size, SEATS), -1),
        served_colour=full((size, SEATS), -1),
        served_chip=full((size, SEATS), -1),
        served_count=full(size, 0),
        swap_seat=full((size, MAX_SWAPS), -1),
        swap_other=full((size, MAX_SWAPS), -1),
        swap_colour=full((size, MAX_SWAPS), -1),
        swap_count=full(size, 0),
        rewards=np.zeros((size, SEATS)),
        win_rewards=np.zeros((size, SEATS)),
        terminated=full(size, False, bool),
        round_ended=full(size, False, bool),
        end_reasons=full(size, 0, np.uint8),
        winners=full((size, SEATS), False, bool),
        record=record,
    )


def subset(state: BatchState, games: np.ndarray) -> BatchState:
    """The games ``games`` of a batch as a batch of their own (copies of their rows), for players
    that compute something over whole batches (a network's observation) but act in a few games."""
    size = state.batch_size
    values = {}
    for f in fields(state):
        value = getattr(state, f.name)
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == size:
            value = value[games]
        values[f.name] = value
    return BatchState(**values)
