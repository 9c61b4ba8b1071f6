"""Suspicion for B games at once (RULES.md 4): ``engine/suspicion.py`` on arrays.

Drawing cards into rows and discard piles, the accusation windows after each resolved card (their
order, their reopening with ``reopen_windows``), accusations, and the forced accusations once the
deck is empty. ``draw_until_target`` plays a run of cards whose windows close at once (no cat to
accuse) in one call.
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import FORCED_ACCUSATION, WINDOW
from ..engine.cards import INVESTIGATOR
from ..engine.state import DRAWING, FORCED, IN_WINDOW, SCORING
from .state import (
    CAT_BITS,
    CLOCKWISE,
    CLUE_CAT_MASKS,
    MAX_DECK,
    SEAT_RANGE,
    SEATS,
    BatchState,
    ask,
    compact,
)

_ONE32 = np.uint32(1)


def in_window(state: BatchState, games: np.ndarray) -> None:
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
        ask(state, asked, WINDOW, queue[found, first[found]])
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
        drawing(state, closed)


def reopen_window(state: BatchState, games: np.ndarray) -> None:
    """``suspicion.reopen_window``: ask the owed players again, in the window's order."""
    order = state.window_order[games]
    owed = (state.window_owed[games, None].astype(np.int64) >> (order.astype(np.int64) % SEATS)) & 1
    owed &= order >= 0
    queue, count = compact(order, owed.astype(bool))
    state.queue[games] = queue
    state.queue_len[games] = count
    state.queue_pos[games] = 0
    state.window_owed[games] = 0


def drawing(state: BatchState, games: np.ndarray) -> None:
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


def forced(state: BatchState, games: np.ndarray) -> None:
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
    ask(state, games[choose], FORCED_ACCUSATION, seats[choose])
