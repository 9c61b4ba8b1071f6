"""The batched state machine: ``engine/game.py`` for B games at once.

``init`` deals B games and ``step`` applies one action per game to its pending decision; both then
play by themselves, in every game, everything that needs no decision (draws, placements,
single-option accusations, hand-outs, the next round's deal) until each game has a decision with at
least two legal actions or is over, exactly as the scalar ``engine.game._advance`` does. The work
is done phase by phase over the games in that phase (numpy on index arrays); a game that needs
several transitions is carried through repeated passes, so no Python loop runs over games.

The functions of the scalar rules modules appear here under their names (``draw_card``,
``accuse``, ``open_window``, ``hand_out``, ``take_chips``, ``adler_swap``, ``finish_round``...),
each taking the state and an index array of games instead of one game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..config import BLACK, GOLD, WHITE, GameConfig
from ..engine.actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    DECISION_KINDS,
    FORCED_ACCUSATION,
    KEEP,
    N_ACTIONS,
    PASS,
    SWAP,
    WINDOW,
    action_to_string,
)
from ..engine.cards import INVESTIGATOR, N_CATS
from ..engine.chips import STASI_KEPT_VALUE
from ..engine.state import CHOOSING_FACES, DRAWING, FORCED, GAME_OVER, IN_WINDOW, SCORING, SWAPPING
from .chance import RandomChance, game_keys, next_keys, slot_seeds
from .state import (
    CAT_BITS,
    CLOCKWISE,
    CLUE_CAT_MASKS,
    MAX_DECK,
    SEAT_RANGE,
    SEATS,
    BatchState,
    empty_state,
    rules_for,
)

_ONE32 = np.uint32(1)
_U64 = np.uint64


# ---------------------------------------------------------------------- set-up (RULES.md 2)
def init(
    config: GameConfig,
    batch_size: int | None = None,
    seed: int | None = None,
    *,
    seeds: Sequence[int] | None = None,
    num_players: Sequence[int] | None = None,
    chance: object | None = None,
    options: Mapping[str, Any] | None = None,
) -> BatchState:
    """B new games, each run to its first decision.

    ``seed`` seeds game b with ``derive_seed(seed, "batch", b)``; ``seeds`` gives each game's seed
    instead (game b with seed s is the same game in any batch). ``num_players`` (one count per
    game) mixes player counts in one batch; every other option comes from ``config``. ``chance``
    is where chance outcomes come from (default: :class:`~ckc_env.batch.chance.RandomChance`).
    Reset ``options`` (the scalar engine's) are refused: ``replay.Lockstep`` plays them.
    """
    if not isinstance(config, GameConfig):
        raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
    if options:
        raise ValueError(
            f"the batched engine takes no reset options ({sorted(options)}): to play a deal fixed by hand, "
            "give the options to batch.replay.Lockstep, which replays the scalar game's deal into the batch"
        )
    if seeds is not None:
        if batch_size is not None and batch_size != len(seeds):
            raise ValueError(f"batch_size={batch_size} disagrees with the {len(seeds)} seeds given")
        if seed is not None:
            raise ValueError("give seed (one per batch) or seeds (one per game), not both")
        seeds = [int(s) for s in seeds]
        if any(s < 0 for s in seeds):
            raise ValueError(f"seeds must be non-negative integers, got {seeds}")
    else:
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"invalid batch_size={batch_size!r}: accepted values are integers >= 1")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (1 << 63))
        seeds = slot_seeds(seed, int(batch_size))
    size = len(seeds)
    if size < 1:
        raise ValueError("a batch needs at least one game")
    if num_players is None:
        configs = [config] * size
    else:
        counts = list(num_players)
        if len(counts) != size:
            raise ValueError(f"num_players has {len(counts)} entries for a batch of {size} games")
        by_count = {k: dataclasses.replace(config, num_players=k) for k in set(counts)}  # validates each count
        configs = [by_count[k] for k in counts]
    rules = rules_for(configs)
    first = np.array([-1 if c.first_player == "random" else c.first_player for c in configs])
    state = empty_state(rules, np.array([c.num_players for c in configs]), chance or RandomChance(), first)
    state.key[:] = game_keys(seeds)
    start_games(state, np.arange(size))
    return state


def reset(state: BatchState, games: np.ndarray) -> BatchState:
    """Start the next game in each slot of ``games`` (a bool mask or indices): its key follows
    from the finished game's (``chance.next_keys``), so a slot's sequence of games is fixed by its
    first seed."""
    games = _indices(state, games)
    state.key[games] = next_keys(state.key[games])
    start_games(state, games)
    return state


def start_games(state: BatchState, games: np.ndarray) -> None:
    """A new game in each of ``games`` (their keys set), run to its first decision."""
    deal_games(state, games)
    _advance(state, games)


def deal_games(state: BatchState, games: np.ndarray) -> None:
    """A new game in each of ``games`` (their keys set): chips shuffled, first player, round 1."""
    chance = state.chance
    state.counter[games] = 0
    state.supply[games] = chance.supply(state, games)
    state.supply_len[games] = (state.supply[games] >= 0).sum(2)
    state.holdings[games] = 0
    state.chip_table[games] = 0
    state.value_counts[games] = 0
    state.points[games] = 0
    state.face_up[games] = 0
    state.adler_stamp[games] = 0
    state.adler_clock[games] = 0
    state.stasi_taker[games] = -1
    state.round_index[games] = 0
    state.game_over[games] = False
    state.end_reasons[games] = 0
    state.winners[games] = False
    first = state.first_player_option[games].astype(np.int64)
    drawn = first < 0
    if drawn.any():
        first[drawn] = chance.first_players(state, games[drawn])
    state.first_player[games] = first
    state.next_first_player[games] = first
    start_round(state, games)


# ---------------------------------------------------------------------- round set-up (RULES.md 3)
def start_round(state: BatchState, games: np.ndarray) -> None:
    """``round_setup.start_round``: deal and clear the table."""
    tiles, clues, bag, deck = state.chance.deal(state, games)
    config = state.rules.config
    n = state.n[games]
    state.tiles[games] = tiles
    state.clues[games] = clues if config.clue_face == "random" else -1
    state.bag[games] = bag
    state.deck[games] = deck
    state.deck_len[games] = N_CATS + SEATS - n
    state.deck_pos[games] = 0
    state.public_count[games] = 0
    state.rows[games] = 0
    state.discards[games] = 0
    state.row_cats[games] = 0
    state.card_drawer[games] = -1
    state.accusation_seat[games] = -1
    state.accusation_cat[games] = -1
    state.accusation_count[games] = 0
    state.accused_cats[games] = 0
    state.accused_by[games] = -1
    state.accused_at[games] = 0
    state.round_over[games] = False
    state.last_card[games] = -1
    state.last_drawer[games] = -1
    first = state.next_first_player[games]
    state.first_player[games] = first
    state.drawer[games] = first
    state.stasi_exposed[games] = state.stasi_taker[games]  # 7: the taker's clue lies face-up
    state.stasi_taker[games] = -1
    state.pending_kind[games] = -1
    state.pending_seat[games] = -1
    state.pending_chip[games] = -1
    state.adler_offered[games] = 0
    state.served_count[games] = 0
    state.swap_count[games] = 0
    state.round_chief[games] = -1
    state.queue_pos[games] = 0
    if config.clue_face == "choose":
        state.phase[games] = CHOOSING_FACES
        state.queue[games] = CLOCKWISE[n, first]
        state.queue_len[games] = n
    else:
        state.phase[games] = DRAWING
        state.queue_len[games] = 0


# ---------------------------------------------------------------------- running until a decision
def _advance(state: BatchState, games: np.ndarray, autoreset: bool = False) -> None:
    """Play everything that needs no decision in ``games``, up to each one's next decision or end.

    Each pass hands every game to the handler of its phase, which moves it on by one transition
    (a closed window goes on to the draws at once) or asks it a decision; passes repeat until every
    game is settled. With ``autoreset`` a game that ends is dealt its slot's next game in the same
    loop (``reset``), so new games share the passes of the others.
    """
    state.pending_kind[games] = -1
    todo = games
    while len(todo):
        phase = state.phase[todo]
        present = np.bincount(phase, minlength=GAME_OVER + 1)
        for index, handler in _HANDLERS:
            if present[index]:
                handler(state, todo[phase == index])
        waiting = state.pending_kind[todo] < 0
        over = state.phase[todo] == GAME_OVER
        if autoreset and over.any():
            ended = todo[over]
            state.key[ended] = next_keys(state.key[ended])
            deal_games(state, ended)
        else:
            waiting &= ~over
        todo = todo[waiting]


def _ask(state: BatchState, games: np.ndarray, kind: int, seats: np.ndarray) -> None:
    state.pending_kind[games] = kind
    state.pending_seat[games] = seats


def _in_window(state: BatchState, games: np.ndarray) -> None:
    """The open accusation window: ask the next seat in its order that has not accused, while a
    target exists; once through, reopen it for the owed players (``reopen_windows``) or close it."""
    over = state.round_over[games]
    if over.any():
        state.phase[games[over]] = SCORING
        games = games[~over]
    has_targets = (state.row_cats[games] & ~state.accused_cats[games]) != 0
    closing = [games[~has_targets]]
    open_ = games[has_targets]
    if len(open_):
        queue = state.queue[open_]
        accused = np.take(state.accused_by, open_[:, None] * SEATS + queue % SEATS)
        eligible = (
            (state.queue_pos[open_, None] <= SEAT_RANGE) & (state.queue_len[open_, None] > SEAT_RANGE) & (accused < 0)
        )
        found = eligible.any(1)
        first = eligible.argmax(1)
        asked = open_[found]
        state.queue_pos[asked] = first[found]
        _ask(state, asked, WINDOW, queue[found, first[found]])
        through = open_[~found]
        if state.rules.config.reopen_windows and len(through):
            owed = state.window_owed[through]
            reopened = through[owed != 0]
            if len(reopened):
                reopen_window(state, reopened)
            through = through[owed == 0]
        closing.append(through)
    closed = np.concatenate(closing)
    if len(closed):
        # an investigator card is followed by a redraw by the same player
        moves = closed[state.last_card[closed] != INVESTIGATOR]
        state.drawer[moves] = (state.drawer[moves] + 1) % state.n[moves]
        state.phase[closed] = DRAWING
        _drawing(state, closed)


def reopen_window(state: BatchState, games: np.ndarray) -> None:
    """``suspicion.reopen_window``: ask the owed players again, in the window's order."""
    order = state.window_order[games]
    owed = (state.window_owed[games, None].astype(np.int64) >> (order.astype(np.int64) % SEATS)) & 1
    owed &= order >= 0
    queue, count = _compact(order, owed.astype(bool))
    state.queue[games] = queue
    state.queue_len[games] = count
    state.queue_pos[games] = 0
    state.window_owed[games] = 0


def _compact(seats: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The kept entries of each row, in order, padded with -1; and their counts."""
    order = np.argsort(~keep, axis=1, kind="stable")
    out = np.where(np.take_along_axis(keep, order, 1), np.take_along_axis(seats, order, 1), -1)
    return out.astype(np.int8), keep.sum(1)


def _drawing(state: BatchState, games: np.ndarray) -> None:
    """Draw the next card and open its window, or, with the deck empty, start the forced
    accusations (RULES.md 4).

    While no cat can be accused, every window closes at once (nobody is eligible) and the next card
    follows: ``draw_until_target`` plays such a run of cards in one go, up to the first cat that
    lands in a row (its window has a target) or to the end of the deck.
    """
    while len(games):
        empty = state.deck_pos[games] >= state.deck_len[games]
        if empty.any():
            forced = games[empty]
            state.phase[forced] = FORCED
            # every seat clockwise after the last drawer; the handler skips those who accused
            state.queue[forced] = CLOCKWISE[state.n[forced], (state.last_drawer[forced] + 1) % state.n[forced]]
            state.queue_len[forced] = state.n[forced]
            state.queue_pos[forced] = 0
            games = games[~empty]
        quiet = targets(state, games) == 0
        open_ = games[~quiet]
        if len(open_):  # a target stays a target: this card's window asks someone
            draw_card(state, open_)
            state.phase[open_] = IN_WINDOW
            open_window(state, open_)
        games = games[quiet]
        if len(games):
            games = draw_until_target(state, games)  # those still without a target


def draw_until_target(state: BatchState, games: np.ndarray) -> np.ndarray:
    """Draw, in games where no cat can be accused, the next cards up to the first cat that lands in
    a row, whose window then opens; each card before it is resolved as ``draw_card`` does and its
    window closes at once (the drawer moves on, except after an investigator card). At most
    ``LOOKAHEAD`` cards are drawn per call; returns the games still without a target (their last
    window closed too)."""
    k = len(games)
    n = state.n[games].astype(np.int64)
    pos = state.deck_pos[games].astype(np.int64)
    ahead = np.arange(LOOKAHEAD)
    index = pos[:, None] + ahead
    valid = index < state.deck_len[games, None]
    rows = np.arange(k)
    cards = np.take(state.deck, games[:, None] * MAX_DECK + index.clip(max=MAX_DECK - 1))
    cards = np.where(valid, cards, -1)
    investigator = cards == INVESTIGATOR
    turns = ahead  # the drawer moves on after every card but an investigator card (a redraw)
    if investigator.any():
        turns = ahead - (np.cumsum(investigator, axis=1) - investigator)
    drawers = (state.drawer[games, None] + turns) % n[:, None]
    at = rows[:, None] * SEATS + drawers  # (game, drawer) in a (k, 5) table
    bits = CAT_BITS[cards]
    to_row = (CLUE_CAT_MASKS[np.take(state.clues[games], at)] & bits) != 0
    found = to_row.any(1)
    last = np.where(found, to_row.argmax(1), valid.sum(1) - 1)
    drawn = ahead <= last[:, None]
    last_card, last_drawer = cards[rows, last], drawers[rows, last]
    discarded = drawn & ~to_row
    # each cat is drawn once, so OR-ing a pile's bits is adding them (exact in float64 below 2**53)
    piles = np.bincount(at[discarded], weights=bits[discarded], minlength=k * SEATS)
    state.discards[games] |= piles.reshape(k, SEATS).astype(np.uint32)
    hit, hit_seat = games[found], last_drawer[found]
    state.rows[hit, hit_seat] |= CAT_BITS[last_card[found]]
    state.row_cats[hit] |= CAT_BITS[last_card[found]]
    state.public_count[games] += (drawn & investigator).sum(1)
    r, j = np.nonzero(drawn)
    state.card_drawer[games[r], index[r, j]] = drawers[r, j]
    state.deck_pos[games] = pos + last + 1
    state.last_card[games] = last_card
    state.last_drawer[games] = last_drawer
    state.drawer[games] = last_drawer
    if state.rules.config.window_order == "random":
        state.chance.skip_windows(state, games, last + ~found)  # the windows that closed at once
    state.phase[hit] = IN_WINDOW
    open_window(state, hit)
    rest = games[~found]  # the last card's window closed too
    moves = rest[last_card[~found] != INVESTIGATOR]
    state.drawer[moves] = (state.drawer[moves] + 1) % state.n[moves]
    return rest


LOOKAHEAD = 12
"""Cards ``draw_until_target`` looks at per call: a cat lands in a row with chance 1/2, so a run of
12 without one is rare (1 in 4096), and short arrays keep the call cheap."""


def draw_card(state: BatchState, games: np.ndarray) -> None:
    """``suspicion.draw_card``: the drawer takes the top card and resolves it in front of everyone."""
    pos = state.deck_pos[games].astype(np.int64)
    card = state.deck[games, pos]
    drawer = state.drawer[games]
    state.deck_pos[games] = pos + 1
    state.card_drawer[games, pos] = drawer
    state.last_card[games] = card
    state.last_drawer[games] = drawer
    investigator = card == INVESTIGATOR
    if investigator.any():
        state.public_count[games[investigator]] += 1
    cat_games = games[~investigator]
    seats = drawer[~investigator]
    bit = CAT_BITS[card[~investigator]]
    in_row = (CLUE_CAT_MASKS[state.clues[cat_games, seats]] & bit) != 0
    row_games, row_seats = cat_games[in_row], seats[in_row]
    state.rows[row_games, row_seats] |= bit[in_row]
    state.row_cats[row_games] |= bit[in_row]
    out = ~in_row
    state.discards[cat_games[out], seats[out]] |= bit[out]


def open_window(state: BatchState, games: np.ndarray) -> None:
    """[decision] after a resolved card every player gets one decision, in the window's order."""
    order_option = state.rules.config.window_order
    n, drawer = state.n[games], state.last_drawer[games]
    if order_option == "random":
        seats = state.chance.window_orders(state, games)
    elif order_option == "clockwise_from_drawer":
        seats = CLOCKWISE[n, drawer]
    else:
        seats = CLOCKWISE[n, (drawer + 1) % n]
    state.window_order[games] = seats
    state.queue[games] = seats
    state.queue_len[games] = n
    state.queue_pos[games] = 0
    state.window_passed[games] = 0
    state.window_owed[games] = 0


def targets(state: BatchState, games: np.ndarray | slice = slice(None)) -> np.ndarray:
    """Cats anyone may accuse now: in a row and not accused this round."""
    return state.row_cats[games] & ~state.accused_cats[games]


def accuse(state: BatchState, games: np.ndarray, seats: np.ndarray, cats: np.ndarray) -> None:
    """``suspicion.accuse``: final; the round ends once all players but one have accused."""
    state.accused_by[games, seats] = cats
    state.accused_at[games, seats] = state.deck_pos[games]
    state.accused_cats[games] |= CAT_BITS[cats]
    count = state.accusation_count[games].astype(np.int64)
    state.accusation_seat[games, count] = seats
    state.accusation_cat[games, count] = cats
    state.accusation_count[games] = count + 1
    state.round_over[games] = count + 1 >= state.n[games] - 1


def _forced(state: BatchState, games: np.ndarray) -> None:
    """Empty deck: the next seat that has not accused must, one at a time (RULES.md 4); a single
    target is accused without asking, a seat with none is skipped."""
    done = (state.queue_pos[games] >= state.queue_len[games]) | state.round_over[games]
    state.phase[games[done]] = SCORING
    games = games[~done]
    seats = state.queue[games, state.queue_pos[games]].astype(np.int64)
    options = targets(state, games)
    skip = (state.accused_by[games, seats] >= 0) | (options == 0)
    single = ~skip & (np.bitwise_count(options) == 1)
    if single.any():
        lone = options[single]
        accuse(state, games[single], seats[single], np.bitwise_count(lone - _ONE32).astype(np.int64))
    moving = games[skip | single]
    state.queue_pos[moving] += 1
    choose = ~(skip | single)
    _ask(state, games[choose], FORCED_ACCUSATION, seats[choose])


def _choosing_faces(state: BatchState, games: np.ndarray) -> None:
    """3.1 [option] ``clue_face="choose"``: each seat in turn from the first player."""
    pos = state.queue_pos[games]
    asking = pos < state.queue_len[games]
    asked = games[asking]
    _ask(state, asked, CLUE_FACE, state.queue[asked, pos[asking]])
    state.phase[games[~asking]] = DRAWING


# ---------------------------------------------------------------------- scoring (RULES.md 5-8)
def _scoring(state: BatchState, games: np.ndarray) -> None:
    """5: every clue revealed, chips handed out; 3.3: the chief's catcher starts the next round."""
    chief = chief_of(state.clues[games], state.bag[games])
    state.round_chief[games] = chief
    hand_out(state, games, chief)
    count = state.accusation_count[games]
    caught = (state.accusation_cat[games] == chief[:, None]) & (SEAT_RANGE[:4] < count[:, None])
    catcher = np.take_along_axis(state.accusation_seat[games], caught.argmax(1)[:, None], 1)[:, 0]
    state.next_first_player[games] = np.where(caught.any(1), catcher, state.first_player[games])
    state.phase[games] = SWAPPING
    n = state.n[games]
    state.queue[games] = CLOCKWISE[n, state.first_player[games]]
    state.queue_len[games] = n
    state.queue_pos[games] = 0


def chief_of(clues: np.ndarray, bag: np.ndarray) -> np.ndarray:
    """(k,) the chief spy of each game: the cat with every clue value (``cards.chief_of``)."""
    every = np.concatenate([clues, bag], axis=1).astype(np.int64)
    value_a = (every >= 0) & (every & 1 == 0)
    return (value_a << (every >> 1).clip(0)).sum(1)


def matches(cats: np.ndarray, chief: np.ndarray) -> np.ndarray:
    """How many of the five clue values each cat shows."""
    return 5 - np.bitwise_count((cats ^ chief).astype(np.uint8)).astype(np.int64)


def chip_colour_for(matched: np.ndarray) -> np.ndarray:
    return np.where(matched == 5, GOLD, np.where(matched == 4, WHITE, BLACK))


def hand_out(state: BatchState, games: np.ndarray, chief: np.ndarray) -> None:
    """``scoring.hand_out``: chips in the order the accusations were made, the non-accusers last
    ([decision] clockwise after the last drawer); ``served`` records each."""
    k = len(games)
    n = state.n[games]
    count = state.accusation_count[games].astype(np.int64)
    cats = state.accusation_cat[games].astype(np.int64)
    made = SEAT_RANGE[:4] < count[:, None]
    seat = np.full((k, SEATS), -1, dtype=np.int64)
    cat = np.full((k, SEATS), -1, dtype=np.int64)
    colour = np.full((k, SEATS), -1, dtype=np.int64)
    seat[:, :4] = np.where(made, state.accusation_seat[games], -1)
    cat[:, :4] = np.where(made, cats, -1)
    colour[:, :4] = np.where(made, chip_colour_for(matches(cats.clip(0), chief[:, None])), -1)
    # the non-accusers, clockwise after the last drawer, with the colour of RULES.md 5
    around = CLOCKWISE[n, (state.last_drawer[games] + 1) % n].astype(np.int64)
    idle = (around >= 0) & (np.take_along_axis(state.accused_by[games], around % SEATS, 1) < 0)
    idle_seats, idle_count = _compact(around, idle)
    if state.rules.config.non_accuser_white == "chief_in_deck":
        drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
        white = (drawn >> chief.astype(np.uint32)) & _ONE32 == 0
    else:  # "chief_uncaught": the German edition
        white = (state.accused_cats[games] >> chief.astype(np.uint32)) & _ONE32 == 0
    idle_colour = np.where(white, WHITE, BLACK)
    r, i = np.nonzero(idle_count[:, None] > SEAT_RANGE)  # at most n - 1 non-accusers follow the accusers
    seat[r, count[r] + i] = idle_seats[r, i]
    colour[r, count[r] + i] = idle_colour[r]
    total = count + idle_count
    state.served_seat[games] = seat
    state.served_cat[games] = cat
    state.served_colour[games] = colour
    state.served_chip[games] = take_chips(state, games, seat, colour, total[:, None] > SEAT_RANGE)
    state.served_count[games] = total


def take_chips(
    state: BatchState, games: np.ndarray, seats: np.ndarray, colours: np.ndarray, due: np.ndarray
) -> np.ndarray:
    """``scoring.take_chip`` for every chip due in a hand-out (``seats``, ``colours``: (k, 5) in
    order, ``due`` marking them): the i-th chip due of a colour is the i-th from the top of that
    colour's supply, nothing once it has run out. Returns the chips (-1: none)."""
    rank = np.zeros(seats.shape, dtype=np.int64)
    for colour in range(3):
        of_colour = due & (colours == colour)
        rank = np.where(of_colour, np.cumsum(of_colour, axis=1) - 1, rank)
    left = np.take_along_axis(state.supply_len[games].astype(np.int64), colours.clip(0), 1)
    has = due & (rank < left)
    r, j = np.nonzero(has)
    g, s, c = games[r], seats[r, j], colours[r, j]
    taken = state.supply[g, c, left[r, j] - 1 - rank[r, j]].astype(np.int64)
    chips = np.full(seats.shape, -1, dtype=np.int64)
    chips[r, j] = taken
    for colour in range(3):
        state.supply_len[games, colour] -= (has & (colours == colour)).sum(1)
    give_chip(state, g, s, taken)  # every seat is served at most once
    rules = state.rules
    if rules.stasi_id >= 0:
        stasi = taken == rules.stasi_id  # 7: shown, face-up; its taker takes the Stasi card
        state.stasi_taker[g[stasi]] = s[stasi]
    state.rewards[g, s] += rules.chip_points[taken]
    return chips


def give_chip(state: BatchState, games: np.ndarray, seats: np.ndarray, chips: np.ndarray) -> None:
    rules = state.rules
    bits = rules.chip_bits[chips]
    colour = rules.chip_colour[chips]
    state.holdings[games, seats] |= bits
    state.chip_table[games, seats, colour] += 1
    up = (state.face_up[games] & bits) != 0
    if up.any():
        state.chip_table[games[up], seats[up], 3 + colour[up]] += 1
    state.value_counts[games, seats, rules.chip_value_index[chips]] += 1
    state.points[games, seats] += rules.chip_points[chips]
    adler = rules.adler_index[chips]
    stamped = adler >= 0
    if stamped.any():  # the order a seat received its Adler chips in is the order they are offered
        g = games[stamped]
        state.adler_stamp[g, adler[stamped]] = state.adler_clock[g]
        state.adler_clock[g] += 1


def drop_chip(state: BatchState, games: np.ndarray, seats: np.ndarray, chips: np.ndarray) -> None:
    rules = state.rules
    bits = rules.chip_bits[chips]
    colour = rules.chip_colour[chips]
    state.holdings[games, seats] &= ~bits
    state.chip_table[games, seats, colour] -= 1
    up = (state.face_up[games] & bits) != 0
    if up.any():
        state.chip_table[games[up], seats[up], 3 + colour[up]] -= 1
    state.value_counts[games, seats, rules.chip_value_index[chips]] -= 1
    state.points[games, seats] -= rules.chip_points[chips]


def _swapping(state: BatchState, games: np.ndarray) -> None:
    """8: each holder of a hidden Adler chip decides keep or swap, once per chip, seat by seat from
    the first player; then the round ends."""
    rules = state.rules
    if not rules.config.cafe_adler:
        finish_round(state, games)
        return
    through = state.queue_pos[games] >= state.queue_len[games]
    if through.any():
        finish_round(state, games[through])
        games = games[~through]
    seats = state.queue[games, state.queue_pos[games]].astype(np.int64)
    ids = rules.adler_ids
    held = (state.holdings[games, seats][:, None] >> ids.clip(0).astype(_U64)) & _U64(1) == 1
    hidden = (state.face_up[games][:, None] >> ids.clip(0).astype(_U64)) & _U64(1) == 0
    offer_bit = seats[:, None] * 4 + np.arange(4)
    offered = (state.adler_offered[games, None].astype(np.int64) >> offer_bit) & 1 == 1
    waiting = held & hidden & ~offered & (ids >= 0)
    has = waiting.any(1)
    state.queue_pos[games[~has]] += 1
    games, seats, waiting = games[has], seats[has], waiting[has]
    index = np.where(waiting, state.adler_stamp[games], np.iinfo(np.int16).max).argmin(1)
    state.adler_offered[games] |= (1 << (seats * 4 + index)).astype(np.uint32)
    chips = ids[index]
    can_swap = swap_targets(state, games, seats, chips).any(1)
    asked = games[can_swap]
    _ask(state, asked, CAFE_ADLER, seats[can_swap])
    state.pending_chip[asked] = chips[can_swap]


def swappable(state: BatchState, games: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """(k, 5) uint64: each seat's chips of a colour another player can take (not face-up Adler
    chips, not the Stasi chip)."""
    rules = state.rules
    allowed = rules.colour_bits[colours] & ~state.face_up[games] & ~rules.not_swappable
    return state.holdings[games] & allowed[:, None]


def swap_targets(state: BatchState, games: np.ndarray, seats: np.ndarray, chips: np.ndarray) -> np.ndarray:
    """(k, 5) bool: the seats the holder of a hidden Adler chip could swap it with."""
    colour = state.rules.chip_colour[chips]
    return (swappable(state, games, colour) != 0) & (seats[:, None] != SEAT_RANGE)


def adler_swap(state: BatchState, games: np.ndarray, seats: np.ndarray, others: np.ndarray) -> None:
    """8: swap blind; the swapper takes a random chip of that colour, the other gets the Adler chip face-up."""
    rules = state.rules
    chips = state.pending_chip[games].astype(np.int64)
    colour = rules.chip_colour[chips]
    candidates = swappable(state, games, colour)[np.arange(len(games)), others]
    taken = state.chance.adler_picks(state, games, candidates).astype(np.int64)
    drop_chip(state, games, others, taken)
    drop_chip(state, games, seats, chips)
    give_chip(state, games, seats, taken)
    state.face_up[games] |= rules.chip_bits[chips]
    give_chip(state, games, others, chips)
    delta = rules.chip_value[taken] - rules.chip_value[chips]
    state.rewards[games, seats] += delta
    state.rewards[games, others] -= delta
    count = state.swap_count[games].astype(np.int64)
    state.swap_seat[games, count] = seats
    state.swap_other[games, count] = others
    state.swap_colour[games, count] = colour
    state.swap_count[games] = count + 1


def finish_round(state: BatchState, games: np.ndarray) -> None:
    """6 and 7: end the game, or return the Stasi chip and deal the next round."""
    rules = state.rules
    config = rules.config
    n = state.n[games]
    present = n[:, None] > SEAT_RANGE
    reasons = (
        ((state.points[games] >= config.target_points) & present).any(1) * 1
        + (state.supply_len[games] == 0).any(1) * 2
        + (state.round_index[games] + 1 >= config.max_rounds) * 4
    ).astype(np.uint8)
    if rules.stasi_id >= 0:
        taker = state.stasi_taker[games].astype(np.int64)
        back = (taker >= 0) & (reasons == 0)  # if the game ends, its taker keeps it (-2)
        if back.any():
            return_stasi_chip(state, games[back], taker[back])
    over = reasons != 0
    ended = games[over]
    state.end_reasons[ended] = reasons[over]
    if len(ended):
        state.phase[ended] = GAME_OVER
        state.game_over[ended] = True
        state.terminated[ended] = True
        _final(state, ended)
    state.round_ended[games] = True
    state.record.keep(state, games)
    going_on = games[~over]
    if len(going_on):
        state.round_index[going_on] += 1
        start_round(state, going_on)


def return_stasi_chip(state: BatchState, games: np.ndarray, seats: np.ndarray) -> None:
    """7: after the round (the game goes on) the Stasi chip goes back among the black chips, at a
    random place of the face-down supply."""
    chip = np.full(len(games), state.rules.stasi_id, dtype=np.int64)
    drop_chip(state, games, seats, chip)
    state.rewards[games, seats] -= STASI_KEPT_VALUE
    place = state.chance.stasi_places(state, games)
    black = state.supply[games, BLACK].astype(np.int64)
    length = state.supply_len[games, BLACK].astype(np.int64)
    col = np.arange(black.shape[1])
    shifted = np.concatenate([np.full((len(games), 1), -1), black[:, :-1]], axis=1)
    inserted = np.where(col < place[:, None], black, np.where(col == place[:, None], chip[:, None], shifted))
    state.supply[games, BLACK] = np.where(col <= length[:, None], inserted, -1)
    state.supply_len[games, BLACK] = length + 1


def _final(state: BatchState, games: np.ndarray) -> None:
    """6: highest total, then most gold chips; a remaining tie is a shared win. Sets the "win"
    rewards: the winners share +1, the others -1 (as the environment's ``reward="win"``)."""
    n = state.n[games]
    present = n[:, None] > SEAT_RANGE
    key = state.points[games].astype(np.int64) * 64 + state.chip_table[games, :, GOLD]
    key = np.where(present, key, np.iinfo(np.int64).min)
    winners = key == key.max(1, keepdims=True)
    state.winners[games] = winners
    count = winners.sum(1)
    win = np.where(winners, 1.0 / count[:, None], -1.0 / np.maximum(n - count, 1)[:, None])
    state.win_rewards[games] = np.where(present, win, 0.0)


_HANDLERS = (  # in this order within a pass
    (IN_WINDOW, _in_window),
    (DRAWING, _drawing),
    (FORCED, _forced),
    (SCORING, _scoring),
    (SWAPPING, _swapping),
    (CHOOSING_FACES, _choosing_faces),
)


# ---------------------------------------------------------------------- decisions
def legal_action_mask(state: BatchState) -> np.ndarray:
    """(B, 40) int8: 1 at the legal actions of each game's pending decision (zeros once over)."""
    size = state.batch_size
    kind = state.pending_kind
    mask = np.zeros((size, N_ACTIONS), dtype=np.int8)
    accusing = (kind == WINDOW) | (kind == FORCED_ACCUSATION)
    t = np.where(accusing, targets(state), 0).astype("<u4")
    mask[:, ACCUSE : ACCUSE + N_CATS] = np.unpackbits(t.view(np.uint8).reshape(size, 4), axis=1, bitorder="little")
    mask[:, PASS] = kind == WINDOW
    choosing = kind == CLUE_FACE
    mask[:, CLUE_FACE_A] = choosing
    mask[:, CLUE_FACE_A + 1] = choosing
    adler = np.flatnonzero(kind == CAFE_ADLER)
    if len(adler):
        seats = state.pending_seat[adler].astype(np.int64)
        n = state.n[adler].astype(np.int64)
        possible = swap_targets(state, adler, seats, state.pending_chip[adler].astype(np.int64))
        offset = (SEAT_RANGE - seats[:, None]) % n[:, None]  # seat k places clockwise: SWAP + k - 1
        rows, others = np.nonzero(possible)
        mask[adler, KEEP] = 1
        mask[adler[rows], SWAP + offset[rows, others] - 1] = 1
    return mask


def step(
    state: BatchState, actions: np.ndarray, autoreset: bool = False, games: np.ndarray | None = None
) -> BatchState:
    """Apply each game's action to its pending decision and advance every game to its next one.

    Games that are over ignore their action. ``games`` (a bool mask or indices) steps only those
    games, leaving the others as they are (their actions are ignored): a caller can play some
    seats' decisions while others wait. An illegal action raises ``ValueError`` naming the games,
    their actions and the legal ones, and changes nothing. With ``autoreset``, games that end in
    this step are replaced by the next game of their slot (see ``reset``) before returning:
    ``terminated``, ``rewards``, ``win_rewards`` and ``record`` still describe the finished game.
    """
    actions = np.asarray(actions)
    if actions.shape != (state.batch_size,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"actions must be an integer array of shape ({state.batch_size},), got {actions.dtype} {actions.shape}"
        )
    live = _live(state, games)
    chosen = actions[live]
    mask = legal_action_mask(state)
    inside = (chosen >= 0) & (chosen < N_ACTIONS)
    legal = inside & (mask[live, np.where(inside, chosen, 0)] == 1)
    if not legal.all():
        bad = live[~legal][:5]
        details = "; ".join(
            f"game {g}: {int(actions[g])!r} for seat {int(state.pending_seat[g])} "
            f"({DECISION_KINDS[state.pending_kind[g]]}), legal: "
            + ", ".join(f"{a} ({action_to_string(a)})" for a in np.flatnonzero(mask[g]))
            for g in bad
        )
        raise ValueError(f"illegal action(s) in {int((~legal).sum())} game(s): {details}")
    return apply(state, actions, autoreset, games)


def _live(state: BatchState, games: np.ndarray | None) -> np.ndarray:
    """The games to step: those with a pending decision, among ``games`` if given."""
    waiting = state.pending_kind >= 0
    if games is None:
        return np.flatnonzero(waiting)
    chosen = _indices(state, games)
    return chosen[waiting[chosen]]


def apply(
    state: BatchState, actions: np.ndarray, autoreset: bool = False, games: np.ndarray | None = None
) -> BatchState:
    """``step`` without the legality check, for callers that have made it."""
    state.rewards[:] = 0.0
    state.win_rewards[:] = 0.0
    state.terminated[:] = False
    state.round_ended[:] = False
    live = _live(state, games)
    action = np.asarray(actions)[live].astype(np.int64)
    kind = state.pending_kind[live]
    seat = state.pending_seat[live].astype(np.int64)

    window = kind == WINDOW
    if window.any():
        g, s, a = live[window], seat[window], action[window]
        state.queue_pos[g] += 1
        passing = a == PASS
        state.window_passed[g[passing]] |= (1 << s[passing]).astype(np.uint8)
        accusing = ~passing
        ga = g[accusing]
        accuse(state, ga, s[accusing], a[accusing] - ACCUSE)
        if state.rules.config.reopen_windows:
            state.window_owed[ga] |= state.window_passed[ga]
            state.window_passed[ga] = 0
    forced = kind == FORCED_ACCUSATION
    if forced.any():
        g = live[forced]
        accuse(state, g, seat[forced], action[forced] - ACCUSE)
        state.queue_pos[g] += 1
    choosing = kind == CLUE_FACE
    if choosing.any():
        g, s = live[choosing], seat[choosing]
        state.clues[g, s] = 2 * state.tiles[g, s] + (action[choosing] - CLUE_FACE_A)
        state.queue_pos[g] += 1
    swapping = (kind == CAFE_ADLER) & (action != KEEP)
    if swapping.any():
        g, s = live[swapping], seat[swapping]
        adler_swap(state, g, s, (s + action[swapping] - SWAP + 1) % state.n[g])
    _advance(state, live, autoreset)
    return state


def rewards(state: BatchState, scheme: str = "points") -> np.ndarray:
    """(B, 5) float64 rewards of the last step by absolute seat: ``"points"`` (chip points won, as
    the environment's default) or ``"win"`` (at the game's end the winners share +1, the others -1)."""
    if scheme == "points":
        return state.rewards
    if scheme == "win":
        return state.win_rewards
    raise ValueError(f"invalid reward scheme {scheme!r}: accepted values are 'points', 'win'")


def _indices(state: BatchState, games: np.ndarray) -> np.ndarray:
    games = np.asarray(games)
    if games.dtype == bool:
        if games.shape != (state.batch_size,):
            raise ValueError(f"a game mask must have shape ({state.batch_size},), got {games.shape}")
        return np.flatnonzero(games)
    games = games.astype(np.int64).reshape(-1)
    if len(games) and (games.min() < 0 or games.max() >= state.batch_size):
        raise ValueError(f"game indices must lie in 0..{state.batch_size - 1}, got {games}")
    return games
