"""The scoring phase (RULES.md 5) with the Stasi chip (7), Cafe Adler swaps (8) and game end (6).

The order within a scoring phase ([decision] RULES.md 7): chips are handed out; the Cafe Adler
decisions follow; then the end of the game is checked; only if the game goes on does the Stasi
chip go back into the black supply, and if it ends, whoever took it keeps it (worth -2).
"""

from __future__ import annotations

from ..config import BLACK, GOLD, WHITE
from .cards import matches
from .chips import ADLER, STASI, STASI_KEPT_VALUE
from .state import NOBODY, GameState


def chip_colour_for(matched: int) -> int:
    """Gold for the chief (5 clue values), white for an assistant (4), black for an innocent."""
    return GOLD if matched == 5 else WHITE if matched == 4 else BLACK


def non_accuser_colour(state: GameState, chief: int) -> int:
    """White instead of black for a player who did not accuse, when the rule option says so."""
    if state.config.non_accuser_white == "chief_in_deck":
        white = chief in state.deck[state.deck_pos :]
    else:  # "chief_uncaught": the German edition
        white = not (state.accused_cats >> chief) & 1
    return WHITE if white else BLACK


def give_chip(state: GameState, seat: int, chip: int) -> None:
    state.holdings[seat].append(chip)
    colour = state.pool.colour[chip]
    table = state.chip_table[seat]
    table[colour] += 1
    if chip in state.face_up:
        table[3 + colour] += 1


def drop_chip(state: GameState, seat: int, chip: int) -> None:
    state.holdings[seat].remove(chip)
    colour = state.pool.colour[chip]
    table = state.chip_table[seat]
    table[colour] -= 1
    if chip in state.face_up:
        table[3 + colour] -= 1


def gain(state: GameState, seat: int, points: float) -> None:
    """Record points won (chip values) for the environment's reward."""
    state.rewards[seat] += points


def take_chip(state: GameState, seat: int, colour: int) -> int:
    """Take a random chip of a colour from the supply; -1 (nothing) if the colour has run out.

    Points follow the chips held: the Stasi chip counts -2 while held (RULES.md 7) and gives the 2
    back if it returns to the supply.
    """
    supply = state.supply[colour]
    if not supply:
        return -1
    chip = supply.pop()
    give_chip(state, seat, chip)
    if state.pool.kind[chip] == STASI:  # 7: shown, face-up; its taker takes the Stasi card
        state.stasi_taker = seat
    gain(state, seat, state.pool.points[chip])
    return chip


def hand_out(state: GameState, chief: int) -> None:
    """Chips in the order the accusations were made, the non-accusers last (RULES.md 5).

    Records ``(seat, accused cat or -1, colour, chip or -1)`` for each player served in ``state.served``.
    """
    due = [(seat, cat, chip_colour_for(matches(cat, chief))) for seat, cat in state.accusations]
    # [decision] several non-accusers (only possible when targets ran out on an empty deck)
    # are served in the order of the forced accusations: clockwise after the last drawer.
    n, drawer = state.n, state.last_drawer
    colour = non_accuser_colour(state, chief)
    for i in range(n):
        seat = (drawer + 1 + i) % n
        if state.accused_by[seat] < 0:
            due.append((seat, -1, colour))
    state.served = [(seat, cat, colour, take_chip(state, seat, colour)) for seat, cat, colour in due]


def return_stasi_chip(state: GameState) -> None:
    """7: after the round (the game goes on) the Stasi chip goes back among the black chips, at a
    random place of the face-down supply; its taker keeps the Stasi card."""
    seat = state.stasi_taker
    chip = next(c for c in state.holdings[seat] if state.pool.kind[c] == STASI)
    drop_chip(state, seat, chip)
    gain(state, seat, -STASI_KEPT_VALUE)
    supply = state.supply[BLACK]
    supply.insert(state.chance.stasi_place(len(supply)), chip)


def total(state: GameState, seat: int) -> int:
    """A seat's points: its chips' values, -2 for a held Stasi chip (RULES.md 6, 7)."""
    points = state.pool.points
    return sum(points[chip] for chip in state.holdings[seat])


def gold_count(state: GameState, seat: int) -> int:
    return sum(1 for chip in state.holdings[seat] if state.pool.colour[chip] == GOLD)


def hidden_adler_chips(state: GameState, seat: int) -> list[int]:
    return [c for c in state.holdings[seat] if state.pool.kind[c] == ADLER and c not in state.face_up]


def swappable(state: GameState, seat: int, colour: int) -> list[int]:
    """8: the chips of a colour another player can take from this seat: not face-up Cafe Adler
    chips, and not the Stasi chip, which lies face-up while held (RULES.md 7 [decision])."""
    pool = state.pool
    return [
        c for c in state.holdings[seat] if pool.colour[c] == colour and c not in state.face_up and pool.kind[c] != STASI
    ]


def swap_targets(state: GameState, seat: int, chip: int) -> list[int]:
    """Seats the holder of a hidden Cafe Adler chip could swap it with."""
    colour = state.pool.colour[chip]
    return [other for other in range(state.n) if other != seat and swappable(state, other, colour)]


def adler_swap(state: GameState, seat: int, chip: int, other: int) -> int:
    """8: swap blind; the swapper takes a random chip of that colour, the other gets the Adler chip face-up."""
    colour = state.pool.colour[chip]
    candidates = swappable(state, other, colour)
    taken = state.chance.adler_pick(candidates)
    drop_chip(state, other, taken)
    drop_chip(state, seat, chip)
    give_chip(state, seat, taken)
    state.face_up.add(chip)
    give_chip(state, other, chip)
    delta = state.pool.value[taken] - state.pool.value[chip]
    gain(state, seat, delta)
    gain(state, other, -delta)
    state.swaps.append((seat, other, colour))
    return taken


def game_end_reasons(state: GameState) -> list[str]:
    """6: every condition that ends the game, checked after the hand-out and the Cafe Adler swaps
    and before the Stasi chip goes back (a held Stasi chip counts -2; a black supply emptied by
    the hand-out is used up even though the Stasi chip would return to it)."""
    reasons = []
    if any(total(state, seat) >= state.config.target_points for seat in range(state.n)):
        reasons.append("points")
    if any(not supply for supply in state.supply):
        reasons.append("colour_used_up")
    if state.round_index + 1 >= state.config.max_rounds:
        reasons.append("last_round")
    return reasons


def finish_round(state: GameState) -> list[str]:
    """6 and 7: check the end; the Stasi chip goes back if the game goes on, else its taker keeps it.
    Returns the reasons the game ends (empty if it goes on)."""
    reasons = game_end_reasons(state)
    if state.stasi_taker != NOBODY and not reasons:
        return_stasi_chip(state)  # if the game ends, its taker keeps it (-2)
    return reasons


def winners(state: GameState) -> list[int]:
    """6: highest total, then most gold chips; a remaining tie is a shared win."""
    keys = [(total(state, seat), gold_count(state, seat)) for seat in range(state.n)]
    best = max(keys)
    return [seat for seat in range(state.n) if keys[seat] == best]
