"""Scoring for B games at once (RULES.md 5-8): ``engine/scoring.py`` on arrays.

The chief revealed and the chips handed out (accusers in order, then the non-accusers), the Stasi
chip (7), the Cafe Adler decisions and swaps (8), the end of the game and its winners (6).
"""

from __future__ import annotations

import numpy as np

from ..config import BLACK, GOLD, WHITE
from ..engine.actions import CAFE_ADLER
from ..engine.chips import STASI_KEPT_VALUE
from ..engine.state import SWAPPING
from .state import CLOCKWISE, SEAT_RANGE, SEATS, BatchState, ask, compact

_ONE32 = np.uint32(1)
_U64 = np.uint64


def scoring(state: BatchState, games: np.ndarray) -> None:
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
    idle_seats, idle_count = compact(around, idle)
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


def swapping(state: BatchState, games: np.ndarray) -> np.ndarray:
    """8: each holder of a hidden Adler chip decides keep or swap, once per chip, seat by seat from
    the first player. Asks the next such decision; returns the games whose round is through."""
    rules = state.rules
    if not rules.config.cafe_adler:
        return games
    through = state.queue_pos[games] >= state.queue_len[games]
    done = games[through]
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
    ask(state, asked, CAFE_ADLER, seats[can_swap])
    state.pending_chip[asked] = chips[can_swap]
    return done


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


def settle_winners(state: BatchState, games: np.ndarray) -> None:
    """6: highest total, then most gold chips; a remaining tie is a shared win (``scoring.winners``)."""
    n = state.n[games]
    present = n[:, None] > SEAT_RANGE
    key = state.points[games].astype(np.int64) * 64 + state.chip_table[games, :, GOLD]
    key = np.where(present, key, np.iinfo(np.int64).min)
    winners = key == key.max(1, keepdims=True)
    state.winners[games] = winners


def game_end_reasons(state: BatchState, games: np.ndarray) -> np.ndarray:
    """6: (k,) uint8 bits of ``REASONS``: a player at the target points, a colour used up, the last round."""
    config = state.rules.config
    present = state.n[games][:, None] > SEAT_RANGE
    return (
        ((state.points[games] >= config.target_points) & present).any(1) * 1
        + (state.supply_len[games] == 0).any(1) * 2
        + (state.round_index[games] + 1 >= config.max_rounds) * 4
    ).astype(np.uint8)
