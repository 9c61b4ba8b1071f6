"""Scoring for one game in JAX (RULES.md 5-8): ``batch/scoring.py`` on one game's arrays.

The chief revealed and the chips handed out (accusers in order, then the non-accusers), the Stasi
chip (7), the Cafe Adler decisions and swaps (8), the end of the game and its winners (6).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ..batch.state import CLOCKWISE, MAX_ACCUSATIONS, N_VALUES, SEATS
from ..config import BLACK, GOLD, WHITE
from ..engine.actions import CAFE_ADLER
from ..engine.chips import STASI_KEPT_VALUE
from ..engine.state import SWAPPING
from . import chance
from .round_setup import draw
from .state import Rules, State, add_at, ask, choose, compact, put, set_at, wide

_SEATS = np.arange(SEATS)
_ACCUSATIONS = np.arange(MAX_ACCUSATIONS)
_NOWHERE = SEATS
"""A seat index that scatters drop (``mode="drop"``): where nothing is written."""


def chief_of(clues: jax.Array, bag: jax.Array) -> jax.Array:
    """The chief spy: the cat with every clue value (``cards.chief_of``)."""
    every = jnp.concatenate([clues, bag]).astype(jnp.int32)
    value_a = (every >= 0) & (every & 1 == 0)
    return (value_a.astype(jnp.int32) << jnp.maximum(every >> 1, 0)).sum()


def matches(cats: jax.Array, chief: jax.Array) -> jax.Array:
    """How many of the five clue values each cat shows."""
    return 5 - jax.lax.population_count((cats ^ chief) & 31)


def chip_colour_for(matched: jax.Array) -> jax.Array:
    return jnp.where(matched == 5, GOLD, jnp.where(matched == 4, WHITE, BLACK))


def scoring(rules: Rules, state: State) -> State:
    """5: every clue revealed, chips handed out; 3.3: the chief's catcher starts the next round."""
    chief = chief_of(state.clues, state.bag)
    state = hand_out(rules, put(state, round_chief=chief), chief)
    caught = (state.accusation_cat == chief) & (state.accusation_count > _ACCUSATIONS)
    catcher = state.accusation_seat[jnp.argmax(caught)]
    n = state.n.astype(jnp.int32)
    return put(
        state,
        next_first_player=jnp.where(caught.any(), catcher, state.first_player),
        phase=SWAPPING,
        queue=jnp.asarray(CLOCKWISE)[n, state.first_player],
        queue_len=n,
        queue_pos=0,
    )


def hand_out(rules: Rules, state: State, chief: jax.Array) -> State:
    """``scoring.hand_out``: chips in the order the accusations were made, the non-accusers last
    ([decision] clockwise after the last drawer); ``served`` records each."""
    n = state.n.astype(jnp.int32)
    count = state.accusation_count.astype(jnp.int32)
    made_at = jnp.minimum(_SEATS, MAX_ACCUSATIONS - 1)
    accused = count > _SEATS
    cats = state.accusation_cat.astype(jnp.int32)[made_at]
    around = jnp.asarray(CLOCKWISE)[n, (state.last_drawer + 1) % n].astype(jnp.int32)
    idle = (around >= 0) & (state.accused_by[around % SEATS] < 0)
    idle_seats, idle_count = compact(around, idle)
    drawn = jax.lax.reduce(state.rows | state.discards, jnp.uint32(0), jax.lax.bitwise_or, (0,))
    in_deck = (drawn >> chief.astype(jnp.uint32)) & 1 == 0  # "chief_in_deck"
    uncaught = (state.accused_cats >> chief.astype(jnp.uint32)) & 1 == 0  # "chief_uncaught": the German edition
    white = jnp.where(state.options.chief_uncaught, uncaught, in_deck)
    total = count + idle_count
    idle_part = ~accused & (total > _SEATS)
    after = jnp.clip(_SEATS - count, 0, SEATS - 1)
    seats = jnp.where(
        accused, state.accusation_seat.astype(jnp.int32)[made_at], jnp.where(idle_part, idle_seats[after], -1)
    )
    colours = jnp.where(
        accused,
        chip_colour_for(matches(jnp.maximum(cats, 0), chief)),
        jnp.where(idle_part, jnp.where(white, WHITE, BLACK), -1),
    )
    state, chips = take_chips(rules, state, seats, colours, total > _SEATS)
    return put(
        state,
        served_seat=seats,
        served_cat=jnp.where(accused, cats, -1),
        served_colour=colours,
        served_chip=chips,
        served_count=total,
    )


def take_chips(
    rules: Rules, state: State, seats: jax.Array, colours: jax.Array, due: jax.Array
) -> tuple[State, jax.Array]:
    """``scoring.take_chip`` for every chip due in a hand-out, in order: the i-th chip due of a
    colour is the i-th from the top of that colour's supply, nothing once it has run out. Returns
    the chips taken (-1: none); every seat is served at most once."""
    rank = jnp.zeros(SEATS, dtype=jnp.int32)
    taken_of = []
    for colour in range(3):
        of_colour = due & (colours == colour)
        rank = jnp.where(of_colour, jnp.cumsum(of_colour) - 1, rank)
    left = state.supply_len.astype(jnp.int32)[jnp.maximum(colours, 0)]
    has = due & (rank < left)
    top = jnp.clip(left - 1 - rank, 0, rules.supply_size - 1)
    chips = jnp.where(has, state.supply[jnp.maximum(colours, 0), top], -1).astype(jnp.int32)
    for colour in range(3):
        taken_of.append((has & (colours == colour)).sum())
    state = put(state, supply_len=state.supply_len - jnp.stack(taken_of))
    state = give_chips(rules, state, jnp.where(has, seats, _NOWHERE), chips)
    points = jnp.asarray(rules.chip_points)[jnp.maximum(chips, 0)]
    rewards = state.rewards + jnp.where((seats[:, None] == _SEATS) & has[:, None], points[:, None], 0).sum(0)
    state = put(state, rewards=rewards)
    if rules.stasi_id >= 0:  # 7: shown, face-up; its taker takes the Stasi card
        stasi = has & (chips == rules.stasi_id)
        state = put(state, stasi_taker=jnp.where(stasi.any(), seats[jnp.argmax(stasi)], state.stasi_taker))
    return state, chips


def give_chips(rules: Rules, state: State, seats: jax.Array, chips: jax.Array, sign: int = 1) -> State:
    """Seat ``seats[i]`` receives (``sign`` -1: gives up) chip ``chips[i]``; seats out of range
    (``_NOWHERE``) are skipped. The chips received in one call share their Cafe Adler stamp, and
    the stamp's clock moves once, as the batched engine's vectorised ``give_chip`` does."""
    chips = jnp.maximum(chips, 0)
    colour = jnp.asarray(rules.chip_colour)[chips]
    up = state.face_up[chips]
    at_seat = seats[:, None] == _SEATS  # (k, 5): one-hot sums instead of scatters
    at_chip = chips[:, None] == jnp.arange(rules.n_chips)
    moved = (at_seat[:, :, None] & at_chip[:, None, :]).any(0)
    holdings = state.holdings | moved if sign > 0 else state.holdings & ~moved
    by_colour = (colour[:, None] == jnp.arange(3)).astype(jnp.int32)
    per_seat = at_seat.astype(jnp.int32)[:, :, None]  # (k, 5, 1)

    def added(per_chip: jax.Array) -> jax.Array:  # (k, m) per chip -> (5, m) per seat
        return (per_seat * per_chip[:, None, :]).sum(0)

    table = wide(state.chip_table) + sign * added(jnp.concatenate([by_colour, by_colour * up[:, None]], axis=1))
    by_value = (jnp.asarray(rules.chip_value_index)[chips][:, None] == jnp.arange(N_VALUES)).astype(jnp.int32)
    values = wide(state.value_counts) + sign * added(by_value)
    points = wide(state.points) + sign * added(jnp.asarray(rules.chip_points)[chips][:, None])[:, 0]
    state = put(state, holdings=holdings, chip_table=table, value_counts=values, points=points)
    if sign > 0 and rules.is_adler.any():  # the order a seat received its Adler chips in is the order they are offered
        adler = jnp.asarray(rules.adler_index)[chips]
        stamped = (seats < SEATS) & (adler >= 0)
        hit = (stamped[:, None] & (adler[:, None] == jnp.arange(4))).any(0)
        state = put(
            state,
            adler_stamp=jnp.where(hit, state.adler_clock, state.adler_stamp),
            adler_clock=state.adler_clock + stamped.any(),
        )
    return state


def swappable(rules: Rules, state: State, colour: jax.Array) -> jax.Array:
    """(5, chips) bool: each seat's chips of a colour another player can take (not face-up Adler
    chips, not the Stasi chip)."""
    allowed = (jnp.asarray(rules.chip_colour) == colour) & ~state.face_up & ~jnp.asarray(rules.not_swappable)
    return state.holdings & allowed


def swap_targets(rules: Rules, state: State, seat: jax.Array, chip: jax.Array) -> jax.Array:
    """(5,) bool: the seats the holder of a hidden Adler chip could swap it with."""
    colour = jnp.asarray(rules.chip_colour)[jnp.maximum(chip, 0)]
    return swappable(rules, state, colour).any(1) & (seat != _SEATS)


def swapping(rules: Rules, state: State) -> tuple[State, jax.Array]:
    """8: each holder of a hidden Adler chip decides keep or swap, once per chip, seat by seat from
    the first player. Asks the next such decision; returns the state and whether the round is
    through (no decision left)."""
    through = state.queue_pos >= state.queue_len
    if not rules.config.cafe_adler:
        return state, jnp.asarray(True)
    seat = state.queue[jnp.minimum(state.queue_pos, SEATS - 1)].astype(jnp.int32)
    ids = jnp.asarray(rules.adler_ids)
    at = jnp.maximum(ids, 0)
    held = state.holdings[seat, at]
    hidden = ~state.face_up[at]
    offer_bit = seat * 4 + jnp.arange(4)
    offered = (state.adler_offered.astype(jnp.int32) >> offer_bit) & 1 == 1
    waiting = held & hidden & ~offered & (ids >= 0)
    index = jnp.argmin(jnp.where(waiting, state.adler_stamp, jnp.iinfo(jnp.int16).max))
    chip = ids[index]
    offered_now = put(
        state, adler_offered=state.adler_offered | (jnp.uint32(1) << (seat * 4 + index).astype(jnp.uint32))
    )
    asked = put(ask(offered_now, CAFE_ADLER, seat), pending_chip=chip)
    offered_now = choose(swap_targets(rules, state, seat, chip).any(), asked, offered_now)
    moved = put(state, queue_pos=state.queue_pos + 1)
    return choose(through, state, choose(waiting.any(), offered_now, moved)), through


def adler_swap(rules: Rules, state: State, seat: jax.Array, other: jax.Array) -> State:
    """8: swap blind; the swapper takes a random chip of that colour, the other gets the Adler
    chip face-up."""
    chip = state.pending_chip.astype(jnp.int32)
    colour = jnp.asarray(rules.chip_colour)[jnp.maximum(chip, 0)]
    candidates = swappable(rules, state, colour)[other]
    (hi, lo), state = draw(state, 1)
    pick = chance.below(hi[0], lo[0], candidates.sum())  # the pick-th candidate by ascending id
    taken = jnp.argmax(candidates & (jnp.cumsum(candidates) - 1 == pick)).astype(jnp.int32)
    state = give_chips(rules, state, other[None], taken[None], -1)
    state = give_chips(rules, state, seat[None], chip[None], -1)
    state = give_chips(rules, state, seat[None], taken[None])
    state = put(state, face_up=set_at(state.face_up, chip, True))
    state = give_chips(rules, state, other[None], chip[None])
    value = jnp.asarray(rules.chip_value)
    delta = (value[taken] - value[jnp.maximum(chip, 0)]).astype(jnp.float32)
    count = state.swap_count.astype(jnp.int32)
    return put(
        state,
        rewards=add_at(add_at(state.rewards, seat, delta), other, -delta),
        swap_seat=set_at(state.swap_seat, count, seat),
        swap_other=set_at(state.swap_other, count, other),
        swap_colour=set_at(state.swap_colour, count, colour),
        swap_count=count + 1,
    )


def return_stasi_chip(rules: Rules, state: State, seat: jax.Array) -> State:
    """7: after the round (the game goes on) the Stasi chip goes back among the black chips, at a
    random place of the face-down supply."""
    chip = jnp.int32(rules.stasi_id)
    state = give_chips(rules, state, seat[None], chip[None], -1)
    state = put(state, rewards=add_at(state.rewards, seat, -STASI_KEPT_VALUE))
    (hi, lo), state = draw(state, 1)
    length = state.supply_len[BLACK].astype(jnp.int32)
    place = chance.below(hi[0], lo[0], length + 1)
    black = state.supply[BLACK].astype(jnp.int32)
    col = jnp.arange(rules.supply_size)
    shifted = jnp.concatenate([jnp.full(1, -1, dtype=jnp.int32), black[:-1]])
    inserted = jnp.where(col < place, black, jnp.where(col == place, chip, shifted))
    return put(
        state,
        supply=set_at(state.supply, BLACK, jnp.where(col <= length, inserted, -1)),
        supply_len=set_at(state.supply_len, BLACK, length + 1),
    )


def settle_winners(state: State) -> State:
    """6: highest total, then most gold chips; a remaining tie is a shared win (``scoring.winners``)."""
    present = state.n > _SEATS
    key = state.points.astype(jnp.int32) * 64 + state.chip_table[:, GOLD]
    key = jnp.where(present, key, jnp.iinfo(jnp.int32).min)
    return put(state, winners=key == key.max())


def game_end_reasons(rules: Rules, state: State) -> jax.Array:
    """6: bits of ``REASONS``: a player at the target points, a colour used up, the last round."""
    options = state.options
    present = state.n > _SEATS
    return (
        ((state.points >= options.target_points) & present).any() * 1
        + (state.supply_len == 0).any() * 2
        + (state.round_index + 1 >= options.max_rounds) * 4
    ).astype(jnp.int32)
