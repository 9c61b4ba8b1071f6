"""Scalar positions in a batch and back: any :class:`~ckc_env.engine.state.GameState` as a game of
a :class:`~ckc_env.batch.state.BatchState`, and any game of a batch as a ``GameState``.

A batch is dealt from seeds (``batch.init``) or from reset options (``replay.Lockstep``); a search
needs more: worlds drawn mid-round from a seat's information set (``ckc_env.resample``, on scalar
states) played on as one batch, and a batch's game read as a scalar state to draw them from.

    batch_state = from_games([world_1, world_2, ...])     # one batch game per scalar state
    world = to_game(batch_state, b)                        # game b as a scalar state

Each game keeps its random stream (the scalar ``stream.key`` and ``stream.counter`` are the batch's
``key`` and ``counter``), so a position played on in either engine is the same game: what both
engines compute from it is equal bit for bit (``tests/test_batch_positions.py``). What a batch does
not hold is not carried over: the scalar record of finished rounds (``summaries``; the batch keeps
only the last round's, for the step that ended it), the reset options (a position's future comes
from its stream) and the order in which a seat received its chips, except among its Cafe Adler
chips, the only order the rules read (RULES.md 8: a holder decides about them in that order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..config import GOLD, GameConfig
from ..engine.chance import Stream, StreamChance
from ..engine.chips import build_pool
from ..engine.options import ResetOptions
from ..engine.state import GameState
from .chance import RandomChance
from .state import REASONS, BatchState, empty_state, rules_for

__all__ = ["from_games", "to_game"]


def from_games(games: Sequence[GameState]) -> BatchState:
    """The positions ``games`` as one batch, game b at row b (copies: the scalar states are not
    changed). They may differ in their number of players but not in any other rule option
    (``state.rules_for`` names the one that differs); each must draw its chance outcomes from its
    stream (a position whose reset options fix a round not dealt yet, or with a chance source of its own,
    is refused, naming the game)."""
    games = list(games)
    if not games:
        raise ValueError("from_games needs at least one position")
    for b, game in enumerate(games):
        if not isinstance(game, GameState):
            raise ValueError(f"position {b} is a {type(game).__name__}, not an engine.state.GameState")
        if not isinstance(game.chance, StreamChance) or game.chance.stream is not game.stream:
            raise ValueError(
                f"position {b} draws its chance outcomes from {type(game.chance).__name__}, not its stream: "
                "a batch plays on from each game's stream (resample a position to give it one)"
            )
        if len(game.options.rounds) > game.round_index + 1:
            raise ValueError(
                f"position {b} has reset options fixing round {len(game.options.rounds)}, not dealt yet: a batch "
                "deals later rounds from each game's stream (replay.Lockstep plays such games)"
            )
    rules = rules_for([game.config for game in games])
    first = np.array([-1 if g.config.first_player == "random" else int(g.config.first_player) for g in games])
    state = empty_state(rules, np.array([game.n for game in games]), RandomChance(), first)
    for b, game in enumerate(games):
        _write(state, b, game)
    return state


def _write(state: BatchState, b: int, game: GameState) -> None:
    rules, n = state.rules, game.n
    state.key[b], state.counter[b] = game.stream.key, game.stream.counter
    for name in ("round_index", "phase", "game_over", "first_player", "next_first_player", "stasi_exposed"):
        getattr(state, name)[b] = getattr(game, name)
    state.tiles[b, :n], state.clues[b, :n] = game.tiles, game.clues
    state.bag[b, : len(game.bag)] = game.bag
    state.public_count[b] = len(game.public_clues)
    # cards
    state.deck[b, : len(game.deck)] = game.deck
    state.deck_len[b] = len(game.deck)
    for name in ("deck_pos", "drawer", "last_card", "last_drawer", "row_cats"):
        getattr(state, name)[b] = getattr(game, name)
    state.rows[b, :n], state.discards[b, :n] = game.rows, game.discards
    for i, (drawer, _card) in enumerate(game.card_order):
        state.card_drawer[b, i] = drawer
    # accusations
    for i, (seat, cat) in enumerate(game.accusations):
        state.accusation_seat[b, i], state.accusation_cat[b, i] = seat, cat
    state.accusation_count[b] = len(game.accusations)
    state.accused_by[b, :n], state.accused_at[b, :n] = game.accused_by, game.accused_at
    state.accused_cats[b], state.round_over[b] = game.accused_cats, game.round_over
    # the pending decision
    for name in ("pending_kind", "pending_seat", "pending_chip", "queue_pos", "window_passed", "window_owed"):
        getattr(state, name)[b] = getattr(game, name)
    state.queue[b, : len(game.queue)] = game.queue
    state.queue_len[b] = len(game.queue)
    state.window_order[b, : len(game.window_order)] = game.window_order
    offered = 0
    for seat, chip in game.adler_offered:
        offered |= 1 << (4 * seat + int(rules.adler_index[chip]))
    state.adler_offered[b] = offered
    # chips
    for colour, chips in enumerate(game.supply):
        state.supply[b, colour, : len(chips)] = chips
        state.supply_len[b, colour] = len(chips)
    clock = 0
    for seat, chips in enumerate(game.holdings):
        ids = np.array(chips, dtype=np.int64)
        state.holdings[b, seat] = np.bitwise_or.reduce(rules.chip_bits[ids]) if len(ids) else 0
        np.add.at(state.value_counts[b, seat], rules.chip_value_index[ids], 1)
        state.points[b, seat] = rules.chip_points[ids].sum()
        for chip in chips:  # the order each seat received its Adler chips in
            if rules.adler_index[chip] >= 0:
                state.adler_stamp[b, rules.adler_index[chip]] = clock
                clock += 1
    state.adler_clock[b] = clock
    state.chip_table[b, :n] = game.chip_table
    state.face_up[b] = sum(1 << chip for chip in game.face_up)
    state.stasi_taker[b], state.round_chief[b] = game.stasi_taker, game.round_chief
    # this round's scoring
    for i, (seat, cat, colour, chip) in enumerate(game.served):
        state.served_seat[b, i], state.served_cat[b, i] = seat, cat
        state.served_colour[b, i], state.served_chip[b, i] = colour, chip
    state.served_count[b] = len(game.served)
    for i, (seat, other, colour) in enumerate(game.swaps):
        state.swap_seat[b, i], state.swap_other[b, i], state.swap_colour[b, i] = seat, other, colour
    state.swap_count[b] = len(game.swaps)
    # what the game reports
    state.rewards[b, :n] = game.rewards
    if game.final is not None:
        state.end_reasons[b] = sum(1 << REASONS.index(reason) for reason in game.final["reasons"])
        state.winners[b, game.final["winners"]] = True


def to_game(state: BatchState, b: int) -> GameState:
    """Game ``b`` of a batch as a scalar state (copies: the batch is not changed), with a stream at
    the batch game's key and counter. Its ``summaries`` are empty (the batch does not keep the
    record of finished rounds) and each seat lists its chips by id, its Cafe Adler chips last in
    the order it received them."""
    b = int(b)
    if not 0 <= b < state.batch_size:
        raise ValueError(f"game {b} is not in a batch of {state.batch_size}")
    rules, n = state.rules, int(state.n[b])
    option = int(state.first_player_option[b])
    config = GameConfig(
        **{**rules.config.to_dict(), "num_players": n, "first_player": "random" if option < 0 else option}
    )
    stream = Stream(int(state.key[b]))
    stream.counter = int(state.counter[b])
    game = GameState(config=config, n=n, pool=build_pool(config), stream=stream, options=ResetOptions())
    ints = lambda array: [int(x) for x in array]  # noqa: E731
    for name in ("round_index", "phase", "first_player", "next_first_player", "stasi_exposed", "deck_pos", "drawer"):
        setattr(game, name, int(getattr(state, name)[b]))
    for name in ("last_card", "last_drawer", "row_cats", "accused_cats", "pending_kind", "pending_seat"):
        setattr(game, name, int(getattr(state, name)[b]))
    for name in ("pending_chip", "queue_pos", "window_passed", "window_owed", "stasi_taker", "round_chief"):
        setattr(game, name, int(getattr(state, name)[b]))
    game.game_over, game.round_over = bool(state.game_over[b]), bool(state.round_over[b])
    game.tiles, game.clues = ints(state.tiles[b, :n]), ints(state.clues[b, :n])
    game.bag = [int(c) for c in state.bag[b] if c >= 0]
    game.public_clues = game.bag[: int(state.public_count[b])]
    game.deck = ints(state.deck[b, : int(state.deck_len[b])])
    game.rows, game.discards = ints(state.rows[b, :n]), ints(state.discards[b, :n])
    game.card_order = [(int(state.card_drawer[b, i]), game.deck[i]) for i in range(game.deck_pos)]
    count = int(state.accusation_count[b])
    game.accusations = list(
        zip(ints(state.accusation_seat[b, :count]), ints(state.accusation_cat[b, :count]), strict=True)
    )
    game.accused_by, game.accused_at = ints(state.accused_by[b, :n]), ints(state.accused_at[b, :n])
    game.queue = ints(state.queue[b, : int(state.queue_len[b])])
    game.window_order = [int(s) for s in state.window_order[b] if s >= 0]
    offered, adler = int(state.adler_offered[b]), rules.adler_ids
    game.adler_offered = {(bit // 4, int(adler[bit % 4])) for bit in range(4 * n) if offered >> bit & 1}
    game.supply = [ints(state.supply[b, colour, : int(state.supply_len[b, colour])]) for colour in range(3)]
    game.holdings = [_chips(state, b, seat) for seat in range(n)]
    game.chip_table = [ints(row) for row in state.chip_table[b, :n]]
    face_up = int(state.face_up[b])
    game.face_up = {chip for chip in range(rules.n_chips) if face_up >> chip & 1}
    served = range(int(state.served_count[b]))
    game.served = [
        tuple(int(a[b, i]) for a in (state.served_seat, state.served_cat, state.served_colour, state.served_chip))
        for i in served
    ]
    swaps = range(int(state.swap_count[b]))
    game.swaps = [tuple(int(a[b, i]) for a in (state.swap_seat, state.swap_other, state.swap_colour)) for i in swaps]
    game.rewards = [float(x) for x in state.rewards[b, :n]]
    if game.game_over:
        game.final = {
            "reasons": [reason for i, reason in enumerate(REASONS) if int(state.end_reasons[b]) >> i & 1],
            "totals": ints(state.points[b, :n]),
            "gold": ints(state.chip_table[b, :n, GOLD]),
            "winners": [int(s) for s in np.flatnonzero(state.winners[b, :n])],
        }
    return game


def _chips(state: BatchState, b: int, seat: int) -> list[int]:
    """A seat's chips by id, its Cafe Adler chips last in the order it received them."""
    rules, held = state.rules, int(state.holdings[b, seat])
    chips = [chip for chip in range(rules.n_chips) if held >> chip & 1]
    plain = [chip for chip in chips if rules.adler_index[chip] < 0]
    adler = sorted(
        (chip for chip in chips if rules.adler_index[chip] >= 0),
        key=lambda c: state.adler_stamp[b, rules.adler_index[c]],
    )
    return plain + adler
