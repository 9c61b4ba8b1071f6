"""Suspicion for one game in JAX (RULES.md 4): ``batch/suspicion.py`` on one game's arrays.

Drawing cards into rows and discard piles, the accusation windows after each resolved card (their
order, their reopening with ``reopen_windows``), accusations, and the forced accusations once the
deck is empty. Branch-free: each handler computes its cases and selects (``lax.cond`` becomes a
select under ``vmap``). ``draw_until_target`` resolves every card up to the next one whose window
has a target in one pass over the whole deck.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..batch.state import CLOCKWISE, CLUE_CAT_MASKS, MAX_DECK, N_ORDERS, SEAT_ORDERS, SEATS
from ..engine.actions import FORCED_ACCUSATION, WINDOW
from ..engine.cards import INVESTIGATOR
from ..engine.state import DRAWING, FORCED, IN_WINDOW, SCORING
from . import chance
from .round_setup import draw
from .state import Rules, State, ask, cat_bit, choose, compact, put, set_at

_SEATS = np.arange(SEATS)
LOOKAHEAD = 8
"""Cards ``draw_until_target`` looks at per pass: a cat lands in a row with chance 1/2, so a run of
8 without one is rare (1 in 256, and the next pass goes on), and short arrays keep every pass
cheap (a vmapped ``lax.switch`` computes this handler in every pass of every game)."""
_AHEAD = np.arange(LOOKAHEAD)


def clue_cats(clue: jax.Array) -> jax.Array:
    """uint32 mask of the cats showing a clue's value (0 for no clue, -1)."""
    return jnp.asarray(CLUE_CAT_MASKS)[jnp.where(clue < 0, len(CLUE_CAT_MASKS) - 1, clue)]


def targets(state: State) -> jax.Array:
    """uint32 mask of the cats anyone may accuse now: in a row and not accused this round."""
    return state.row_cats & ~state.accused_cats


def accuse(state: State, seat: jax.Array, cat: jax.Array) -> State:
    """``suspicion.accuse``: final; the round ends once all players but one have accused."""
    count = state.accusation_count.astype(jnp.int32)
    return put(
        state,
        accused_by=set_at(state.accused_by, seat, cat),
        accused_at=set_at(state.accused_at, seat, state.deck_pos),
        accused_cats=state.accused_cats | cat_bit(cat),
        accusation_seat=set_at(state.accusation_seat, count, seat),
        accusation_cat=set_at(state.accusation_cat, count, cat),
        accusation_count=count + 1,
        round_over=count + 1 >= state.n - 1,
    )


def open_window(rules: Rules, state: State) -> State:
    """[decision] after a resolved card every player gets one decision, in the window's order."""
    n = state.n.astype(jnp.int32)
    drawer = state.last_drawer.astype(jnp.int32)
    option = state.options.window_order  # WINDOW_ORDER_CHOICES: random, from the drawer, after the drawer
    (hi, lo), drawn = draw(state, 1)
    random = jnp.asarray(SEAT_ORDERS)[n, chance.below(hi[0], lo[0], jnp.asarray(N_ORDERS)[n])]
    clockwise = jnp.asarray(CLOCKWISE)[n, (drawer + (option == 2)) % n]
    seats = jnp.where(option == 0, random, clockwise)
    return put(
        state,
        counter=jnp.where(option == 0, drawn.counter, state.counter),
        window_order=seats,
        queue=seats,
        queue_len=n,
        queue_pos=0,
        window_passed=0,
        window_owed=0,
    )


def in_window(rules: Rules, state: State) -> State:
    """The open accusation window: ask the next seat in its order that has not accused, while a
    target exists; once through, reopen it for the owed players (``reopen_windows``) or close it."""
    queue = state.queue.astype(jnp.int32)
    accused = state.accused_by[queue % SEATS]
    eligible = (state.queue_pos <= _SEATS) & (state.queue_len > _SEATS) & (accused < 0)
    first = jnp.argmax(eligible)
    asked = ask(put(state, queue_pos=first), WINDOW, queue[first])
    # closed: an investigator card is followed by a redraw by the same player
    moves = state.last_card != INVESTIGATOR
    closed = put(state, drawer=jnp.where(moves, (state.drawer + 1) % state.n, state.drawer), phase=DRAWING)
    out = choose(eligible.any(), asked, closed)
    reopening = state.options.reopen_windows & ~eligible.any() & (state.window_owed != 0)
    out = choose(reopening, reopen_window(state), out)
    out = choose(targets(state) != 0, out, closed)
    return choose(state.round_over, put(state, phase=SCORING), out)


def reopen_window(state: State) -> State:
    """``suspicion.reopen_window``: ask the owed players again, in the window's order."""
    order = state.window_order.astype(jnp.int32)
    owed = ((state.window_owed.astype(jnp.int32) >> (order % SEATS)) & 1 == 1) & (order >= 0)
    queue, count = compact(order, owed)
    return put(state, queue=queue, queue_len=count, queue_pos=0, window_owed=0)


def drawing(rules: Rules, state: State) -> State:
    """Draw the next card and open its window; while no cat can be accused, resolve the cards up
    to the next one whose window has a target (``draw_until_target``); with the deck empty, start
    the forced accusations (RULES.md 4)."""
    n = state.n.astype(jnp.int32)
    forced = put(
        state,
        phase=FORCED,  # every seat clockwise after the last drawer; the handler skips those who accused
        queue=jnp.asarray(CLOCKWISE)[n, (state.last_drawer + 1) % n],
        queue_len=n,
        queue_pos=0,
    )
    drawn = lax.cond(
        targets(state) != 0,
        lambda s: open_window(rules, put(draw_card(s), phase=IN_WINDOW)),
        lambda s: draw_until_target(rules, s),
        state,
    )
    return choose(state.deck_pos >= state.deck_len, forced, drawn)


def draw_card(state: State) -> State:
    """``suspicion.draw_card``: the drawer takes the top card and resolves it in front of everyone."""
    pos = state.deck_pos.astype(jnp.int32)
    card = state.deck[jnp.minimum(pos, MAX_DECK - 1)].astype(jnp.int32)
    drawer = state.drawer.astype(jnp.int32)
    bit = cat_bit(card)
    in_row = (clue_cats(state.clues[drawer]) & bit) != 0
    return put(
        state,
        deck_pos=pos + 1,
        card_drawer=set_at(state.card_drawer, pos, drawer),
        last_card=card,
        last_drawer=drawer,
        public_count=state.public_count + (card == INVESTIGATOR),
        rows=set_at(state.rows, drawer, state.rows[drawer] | jnp.where(in_row, bit, 0)),
        row_cats=state.row_cats | jnp.where(in_row, bit, 0),
        discards=set_at(state.discards, drawer, state.discards[drawer] | jnp.where(in_row, 0, bit)),
    )


def draw_until_target(rules: Rules, state: State) -> State:
    """Draw, while no cat can be accused, the cards up to the first cat that lands in a row, whose
    window then opens; each card before it is resolved as ``draw_card`` does and its window closes
    at once (the drawer moves on, except after an investigator card). At most :data:`LOOKAHEAD`
    cards per pass: without such a cat among them, the last window closes too and the next pass
    goes on drawing."""
    n = state.n.astype(jnp.int32)
    pos = state.deck_pos.astype(jnp.int32)
    index = pos + _AHEAD
    valid = index < state.deck_len
    cards = jnp.where(valid, state.deck[jnp.minimum(index, MAX_DECK - 1)], -1).astype(jnp.int32)
    investigator = cards == INVESTIGATOR
    turns = _AHEAD - (jnp.cumsum(investigator) - investigator)  # a redraw after an investigator card
    drawers = (state.drawer + turns) % n
    bits = cat_bit(cards)
    to_row = (clue_cats(state.clues[drawers]) & bits) != 0
    found = to_row.any()
    last = jnp.where(found, jnp.argmax(to_row), jnp.maximum(valid.sum() - 1, 0))
    drawn = last >= _AHEAD
    last_card, last_drawer = cards[last], drawers[last]
    discarded = drawn & ~to_row
    # each cat is drawn once: a pile's bits add up without carries
    piles = jnp.where(discarded[:, None] & (drawers[:, None] == _SEATS), bits[:, None], 0).sum(0, dtype=jnp.uint32)
    hit_bit = jnp.where(found, cat_bit(last_card), 0)
    since = jnp.arange(MAX_DECK) - pos  # a deck position's place in this run
    in_run = (since >= 0) & (since <= last)
    moves = ~found & (last_card != INVESTIGATOR)  # the last window closed too
    state = put(
        state,
        discards=state.discards | piles,
        rows=set_at(state.rows, last_drawer, state.rows[last_drawer] | hit_bit),
        row_cats=state.row_cats | hit_bit,
        public_count=state.public_count + (drawn & investigator).sum(),
        card_drawer=jnp.where(in_run, drawers[jnp.clip(since, 0, LOOKAHEAD - 1)], state.card_drawer),
        deck_pos=pos + last + 1,
        last_card=last_card,
        last_drawer=last_drawer,
        drawer=jnp.where(moves, (last_drawer + 1) % n, last_drawer),
    )
    return lax.cond(found, lambda s: open_window(rules, put(s, phase=IN_WINDOW)), lambda s: s, state)


def forced(rules: Rules, state: State) -> State:
    """Empty deck: the next seat that has not accused must, one at a time (RULES.md 4); a single
    target is accused without asking, a seat with none is skipped."""
    done = (state.queue_pos >= state.queue_len) | state.round_over
    seat = state.queue[jnp.minimum(state.queue_pos, SEATS - 1)].astype(jnp.int32)
    options = targets(state)
    skip = (state.accused_by[seat] >= 0) | (options == 0)
    single = ~skip & (lax.population_count(options) == 1)
    lone = lax.population_count(options - jnp.uint32(1)).astype(jnp.int32)  # the one target's cat
    moved = choose(single, accuse(state, seat, lone), state)
    moved = put(moved, queue_pos=moved.queue_pos + 1)
    out = choose(skip | single, moved, ask(state, FORCED_ACCUSATION, seat))
    return choose(done, put(state, phase=SCORING), out)
