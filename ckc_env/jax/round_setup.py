"""Dealing games and rounds for one game in JAX (RULES.md 2 and 3): ``batch/round_setup.py`` and
the deal of ``batch/game.py`` on one game's arrays.

The chance outcomes are ``engine.chance``'s, drawn from the game's stream at the same points and
turned into outcomes the same way (``jax.chance``): a seed deals the same game on every engine.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..batch.state import CLOCKWISE, MAX_DECK, SEATS
from ..engine.actions import CLUE_FACE
from ..engine.cards import INVESTIGATOR, N_CATS, N_FEATURES
from ..engine.chance import DEAL_WORDS
from ..engine.state import CHOOSING_FACES, DRAWING
from . import chance
from .state import Rules, State, ask, choose, cleared, put

_SEATS = np.arange(SEATS)


def draw(state: State, count: int) -> tuple[tuple[jax.Array, jax.Array], State]:
    """The next ``count`` words of the game's stream ((count,) hi and lo), and the state past them."""
    hi_lo = chance.words(state.key, state.counter, count)
    return hi_lo, put(state, counter=state.counter + count)


def deal(state: State) -> tuple[State, tuple[jax.Array, jax.Array, jax.Array, jax.Array]]:
    """A round's tiles, clues, bag and deck (``chance.deal``'s table: 56 words)."""
    (hi, lo), state = draw(state, DEAL_WORDS)
    n = state.n.astype(jnp.int32)
    features = chance.ordered(hi[:N_FEATURES], lo[:N_FEATURES])
    faces = (lo[N_FEATURES] >> jnp.arange(N_FEATURES, dtype=jnp.uint32)) & 1
    clues = 2 * features + faces.astype(jnp.int32)
    seated = n > _SEATS
    tiles = jnp.where(seated, features, -1)
    bag_pos = n + jnp.arange(2)
    bag = jnp.where(bag_pos < SEATS, clues[jnp.minimum(bag_pos, SEATS - 1)], -1)
    clues = jnp.where(seated, clues, -1)
    first = N_FEATURES + 1
    cats = chance.ordered(hi[first : first + N_CATS], lo[first : first + N_CATS])
    deck = jnp.full(MAX_DECK, -1, dtype=jnp.int32).at[:N_CATS].set(cats)
    top_at = first + N_CATS
    for extra in (1, 2):  # 3.2: the 5 - n investigator cards shuffled into the top half
        top = jnp.concatenate([cats[:16], jnp.full(extra, INVESTIGATOR, dtype=jnp.int32)])
        order = chance.ordered(hi[top_at : top_at + 16 + extra], lo[top_at : top_at + 16 + extra])
        mixed = deck.at[: 16 + extra].set(top[order]).at[16 + extra : N_CATS + extra].set(cats[16:])
        deck = jnp.where(SEATS - n == extra, mixed, deck)
    return state, (tiles, clues, bag, deck)


def start_round(rules: Rules, state: State) -> State:
    """``round_setup.start_round``: deal and clear the table."""
    state, (tiles, clues, bag, deck) = deal(state)
    n = state.n.astype(jnp.int32)
    first = state.next_first_player
    choosing = state.options.choose_faces
    state = put(
        state,
        tiles=tiles,
        clues=jnp.where(choosing, -1, clues),
        bag=bag,
        deck=deck,
        deck_len=N_CATS + SEATS - n,
        first_player=first,
        drawer=first,
        stasi_exposed=state.stasi_taker,  # 7: the taker's clue lies face-up
        stasi_taker=-1,
    )
    state = cleared(state, "new_round", rules)
    return put(
        state,  # 3.1 [option] clue_face="choose": the seats choose their faces in turn from the first player
        phase=jnp.where(choosing, CHOOSING_FACES, DRAWING),
        queue=jnp.where(choosing, jnp.asarray(CLOCKWISE)[n, first], state.queue),
        queue_len=jnp.where(choosing, n, 0),
    )


def choosing_faces(rules: Rules, state: State) -> State:
    """3.1 [option] ``clue_face="choose"``: each seat in turn from the first player."""
    pos = state.queue_pos.astype(jnp.int32)
    asking = pos < state.queue_len
    asked = ask(state, CLUE_FACE, state.queue[jnp.minimum(pos, SEATS - 1)])
    return choose(asking, asked, put(state, phase=DRAWING))


def new_game(rules: Rules, state: State) -> State:
    """A new game (its key set): the chips shuffled face-down and the first player; its first
    round is dealt next (``start_round``)."""
    state = cleared(state, "new_game", rules)
    supply = jnp.full((3, rules.supply_size), -1, dtype=jnp.int32)
    lengths = []
    for colour, ids in enumerate(rules.colour_ids):
        (hi, lo), state = draw(state, len(ids))
        supply = supply.at[colour, : len(ids)].set(jnp.asarray(ids)[chance.ordered(hi, lo)])
        lengths.append(len(ids))
    (hi, lo), drawn = draw(state, 1)
    random_first = state.first_player_option < 0
    first = jnp.where(random_first, chance.below(hi[0], lo[0], state.n), state.first_player_option)
    return put(
        state,
        supply=supply,
        supply_len=jnp.asarray(lengths),
        counter=jnp.where(random_first, drawn.counter, state.counter),
        first_player=first,
        next_first_player=first,
    )
