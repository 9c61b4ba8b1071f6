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
from dataclasses import dataclass, field, fields
from functools import lru_cache
from itertools import permutations
from typing import Any, ClassVar

import numpy as np

from ..config import BLACK, GOLD, MAX_PLAYERS, PLAYER_COUNTS, WHITE, GameConfig
from ..engine.cards import CLUE_CATS, N_CATS
from ..engine.chips import ADLER, STASI, build_pool
from ..engine.state import GAME_OVER

SEATS = MAX_PLAYERS
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
for _n in PLAYER_COUNTS:
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


def array(
    shape: tuple[int | str, ...],
    dtype: Any,
    empty: Any,
    doc: str,
    new_game: Any = None,
    new_round: Any = None,
) -> Any:
    """A field of :class:`BatchState`: its shape after the batch axis (``"k"``: the chip pool's
    ``supply_size``), dtype, value in the empty state, meaning, and the value it is cleared to when
    a game is dealt (``new_game``) or a round starts (``new_round``). The empty state, the resets
    and the table of fields in the package docstring are derived from these declarations."""
    return field(
        metadata={
            "shape": shape,
            "dtype": np.dtype(dtype),
            "empty": empty,
            "doc": doc,
            "new_game": new_game,
            "new_round": new_round,
        }
    )


I8, U8, I16, U32, U64, F64 = np.int8, np.uint8, np.int16, np.uint32, np.uint64, np.float64
S, D, A = (SEATS,), (MAX_DECK,), (MAX_ACCUSATIONS,)


@dataclass(slots=True, eq=False)
class BatchState:
    """B games of Checkpoint Charlie: every field below is an array with a leading batch axis,
    mirroring the :class:`~ckc_env.engine.state.GameState` field of the same name."""

    rules: BatchRules = field(metadata={"doc": "the rule options and chip pool shared by the batch"})
    chance: Any = field(metadata={"doc": "where chance outcomes come from (``batch.chance``)"})
    first_player_option: np.ndarray = array(
        (), I8, -1, "a fixed first player of round 1 (``config.first_player``), -1 for a random one"
    )

    # --- the random stream of each game (``chance.RandomChance``)
    key: np.ndarray = array((), U64, 0, "the game's key: its random stream")
    counter: np.ndarray = array((), U64, 0, "draws taken from the stream", new_game=0)

    # --- the game's set-up and progress
    n: np.ndarray = array((), I8, 0, "players of the game")
    round_index: np.ndarray = array((), I8, 0, "the round (0-based)", new_game=0)
    phase: np.ndarray = array((), I8, GAME_OVER, "the phase, as ``engine.state``")
    game_over: np.ndarray = array((), bool, True, "the game has ended", new_game=False)
    first_player: np.ndarray = array((), I8, 0, "this round's first player")
    next_first_player: np.ndarray = array((), I8, 0, "the next round's first player (3.3)")

    # --- clues
    tiles: np.ndarray = array(S, I8, -1, "each seat's tile feature")
    clues: np.ndarray = array(S, I8, -1, "each seat's clue (-1 while its face is to be chosen)")
    bag: np.ndarray = array((MAX_BAG,), I8, -1, "clues of the bag tiles in reveal order (-1 beyond 5 - n)")
    public_count: np.ndarray = array(
        (), I8, 0, "bag clues revealed: ``public_clues`` is ``bag[:public_count]``", new_round=0
    )
    stasi_exposed: np.ndarray = array((), I8, -1, "the seat whose clue lies face-up (7)")

    # --- cards
    deck: np.ndarray = array(D, I8, -1, "the round's deck, top first (32: an investigator card; -1 beyond 37 - n)")
    deck_len: np.ndarray = array((), I8, 0, "cards in the deck")
    deck_pos: np.ndarray = array((), I8, 0, "cards drawn", new_round=0)
    drawer: np.ndarray = array((), I8, 0, "whose turn it is to draw")
    last_card: np.ndarray = array((), I8, -1, "the last card drawn", new_round=-1)
    last_drawer: np.ndarray = array((), I8, -1, "who drew it", new_round=-1)
    rows: np.ndarray = array(S, U32, 0, "cats in each seat's row (bit c: cat c)", new_round=0)
    discards: np.ndarray = array(S, U32, 0, "cats in each seat's discard pile", new_round=0)
    row_cats: np.ndarray = array((), U32, 0, "every cat in a row", new_round=0)
    card_drawer: np.ndarray = array(D, I8, -1, "who drew each card (with ``deck``: ``card_order``)", new_round=-1)

    # --- accusations
    accusation_seat: np.ndarray = array(A, I8, -1, "``accusations`` in the order made: the seats", new_round=-1)
    accusation_cat: np.ndarray = array(A, I8, -1, "and the cats", new_round=-1)
    accusation_count: np.ndarray = array((), I8, 0, "accusations made this round", new_round=0)
    accused_by: np.ndarray = array(S, I8, -1, "each seat's accused cat (-1: none yet)", new_round=-1)
    accused_at: np.ndarray = array(S, I8, 0, "cards drawn when each seat accused", new_round=0)
    accused_cats: np.ndarray = array((), U32, 0, "every cat accused this round", new_round=0)
    round_over: np.ndarray = array((), bool, False, "all players but one have accused", new_round=False)

    # --- the pending decision
    pending_kind: np.ndarray = array((), I8, -1, "the decision asked (``DECISION_KINDS``; -1: none)", new_round=-1)
    pending_seat: np.ndarray = array((), I8, -1, "of whom", new_round=-1)
    pending_chip: np.ndarray = array((), I8, -1, "about which Cafe Adler chip", new_round=-1)
    queue: np.ndarray = array(S, I8, -1, "seats to ask in this phase, in order (-1 padded)")
    queue_len: np.ndarray = array((), I8, 0, "seats in the queue")
    queue_pos: np.ndarray = array((), I8, 0, "the next seat to ask", new_round=0)
    window_order: np.ndarray = array(S, I8, -1, "the open window's order")
    window_passed: np.ndarray = array((), U8, 0, "bit s: seat s passed in the open window since the last accusation")
    window_owed: np.ndarray = array((), U8, 0, "bit s: seat s is owed a decision (``reopen_windows``)")
    adler_offered: np.ndarray = array(
        (), U32, 0, "bit 4 * seat + i: Adler chip ``rules.adler_ids[i]`` offered to seat this scoring", new_round=0
    )

    # --- chips
    supply: np.ndarray = array(
        (3, "k"), I8, -1, "chip ids per colour face-down; the last of ``supply_len`` is taken next"
    )
    supply_len: np.ndarray = array((3,), I8, 0, "chips left of each colour")
    holdings: np.ndarray = array(
        S, U64, 0, "each seat's chips (bit: chip id, as ``engine.chips.build_pool``)", new_game=0
    )
    chip_table: np.ndarray = array(
        (SEATS, 6), I8, 0, "chips by colour, then face-up Cafe Adler chips by colour", new_game=0
    )
    value_counts: np.ndarray = array((SEATS, N_VALUES), I8, 0, "each seat's chips by points -2..5", new_game=0)
    points: np.ndarray = array(S, I16, 0, "each seat's total (a held Stasi chip counts -2)", new_game=0)
    face_up: np.ndarray = array((), U64, 0, "Cafe Adler chips received in a swap", new_game=0)
    adler_stamp: np.ndarray = array(
        (4,), I16, 0, "when each Adler chip was received: the order a seat holds them in", new_game=0
    )
    adler_clock: np.ndarray = array((), I16, 0, "the stamp's clock", new_game=0)
    stasi_taker: np.ndarray = array((), I8, -1, "who took the Stasi chip this round", new_game=-1)

    # --- this round's scoring
    round_chief: np.ndarray = array((), I8, -1, "the chief spy of the round being scored", new_round=-1)
    served_seat: np.ndarray = array(S, I8, -1, "``served``, the hand-out in order: the seats")
    served_cat: np.ndarray = array(S, I8, -1, "their accused cats (-1: a non-accuser)")
    served_colour: np.ndarray = array(S, I8, -1, "the colours due")
    served_chip: np.ndarray = array(S, I8, -1, "the chips taken (-1: none left)")
    served_count: np.ndarray = array((), I8, 0, "seats served", new_round=0)
    swap_seat: np.ndarray = array((MAX_SWAPS,), I8, -1, "``swaps``, this scoring phase's Cafe Adler swaps: the swapper")
    swap_other: np.ndarray = array((MAX_SWAPS,), I8, -1, "the other seat")
    swap_colour: np.ndarray = array((MAX_SWAPS,), I8, -1, "the chips' colour")
    swap_count: np.ndarray = array((), I8, 0, "swaps made", new_round=0)

    # --- what the last call reports
    rewards: np.ndarray = array(S, F64, 0.0, "points won in the last call (the scalar ``pop_rewards``)")
    terminated: np.ndarray = array((), bool, False, "the game ended in the last call")
    round_ended: np.ndarray = array((), bool, False, "a round ended in the last call: ``record`` holds it")
    end_reasons: np.ndarray = array((), U8, 0, "bits of ``REASONS`` once the game is over", new_game=0)
    winners: np.ndarray = array(S, bool, False, "the winners, once the game is over", new_game=False)
    record: RoundRecord = field(metadata={"doc": "the last finished round of each game (``summary.round_summaries``)"})

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


ARRAYS = tuple(f for f in fields(BatchState) if "shape" in f.metadata)
"""The array fields of :class:`BatchState`, with their declarations."""
CLEARED = {
    stage: tuple((f.name, f.metadata[stage]) for f in ARRAYS if f.metadata[stage] is not None)
    for stage in ("new_game", "new_round")
}
"""The fields cleared when a game is dealt and when a round starts, with the value they get."""


def clear(state: BatchState, games: np.ndarray, stage: str) -> None:
    """Clear the fields declared as cleared at ``stage`` (``"new_game"``, ``"new_round"``) in ``games``."""
    for name, value in CLEARED[stage]:
        getattr(state, name)[games] = value


def fields_table() -> str:
    """The Markdown table of the state's fields, from their declarations (the package docstring's)."""
    rows = ["| field | shape, dtype | meaning | cleared |", "|---|---|---|---|"]
    for f in fields(BatchState):
        meta = f.metadata
        if "shape" not in meta:
            rows.append(f"| ``{f.name}`` | | {meta['doc']} | |")
            continue
        shape = ", ".join(["B", *(str(d) for d in meta["shape"])])
        shape = f"({shape},)" if len(meta["shape"]) == 0 else f"({shape})"
        when = "game" if meta["new_game"] is not None else "round" if meta["new_round"] is not None else ""
        rows.append(f"| ``{f.name}`` | {shape} {meta['dtype'].name} | {meta['doc']} | {when} |")
    return "\n".join(rows)


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

    OWN: ClassVar[dict[str, tuple[tuple[int, ...], Any]]] = {
        "chip_colours": ((SEATS, 3), np.int8),
        "totals": ((SEATS,), np.int16),
        "gold": ((SEATS,), np.int8),
    }
    """The record's own fields (the others are declared by the state field of the same name)."""

    @classmethod
    def empty(cls, rules: BatchRules, size: int, n: np.ndarray) -> RoundRecord:
        """The record of ``size`` games before any round ended, shaped as the state's declarations say."""
        declared = {f.name: f.metadata for f in ARRAYS}
        values = {}
        for name in cls.SAME_NAME:
            meta = declared[name]
            shape = (size, *(rules.supply_size if d == "k" else d for d in meta["shape"]))
            values[name] = np.full(shape, meta["empty"], dtype=meta["dtype"])
        for name, (shape, dtype) in cls.OWN.items():
            values[name] = np.zeros((size, *shape), dtype=dtype)
        values["n"][:] = n
        return cls(**values)

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
    """Arrays for len(n) games, all over (``game.start_games`` deals them), from the declarations."""
    size = len(n)
    values: dict[str, Any] = {}
    for f in ARRAYS:
        meta = f.metadata
        shape = (size, *(rules.supply_size if d == "k" else d for d in meta["shape"]))
        values[f.name] = np.full(shape, meta["empty"], dtype=meta["dtype"])
    values["n"][:] = n
    values["first_player_option"][:] = first_player_option
    return BatchState(rules=rules, chance=chance, record=RoundRecord.empty(rules, size, n), **values)


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


def stack(parts: Sequence[tuple[BatchState, np.ndarray]]) -> BatchState:
    """The games ``games`` of each batch of ``parts``, in order, as one batch of their own to be
    played on: copies of their rows and of their rounds' records (the rules and the chance source
    are the first batch's; every game's draws come from its own key and counter)."""
    first = parts[0][0]
    values = {}
    for f in fields(first):
        value = getattr(first, f.name)
        if isinstance(value, RoundRecord):
            value = RoundRecord(
                **{r.name: np.concatenate([getattr(s.record, r.name)[g] for s, g in parts]) for r in fields(value)}
            )
        elif isinstance(value, np.ndarray) and value.ndim and value.shape[0] == first.batch_size:
            value = np.concatenate([getattr(s, f.name)[g] for s, g in parts])
        values[f.name] = value
    return BatchState(**values)


def ask(state: BatchState, games: np.ndarray, kind: int, seats: np.ndarray) -> None:
    """Ask ``seats`` (one per game) a decision of ``kind`` (``engine.game._ask``)."""
    state.pending_kind[games] = kind
    state.pending_seat[games] = seats


def compact(seats: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kept entries of each row, in order, padded with -1; and their counts."""
    order = np.argsort(~keep, axis=1, kind="stable")
    out = np.where(np.take_along_axis(keep, order, 1), np.take_along_axis(seats, order, 1), -1)
    return out.astype(np.int8), keep.sum(1)
