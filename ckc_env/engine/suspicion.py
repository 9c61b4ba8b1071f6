"""The suspicion phase (RULES.md 4): drawing and placing cards, accusations, windows, round end."""

from __future__ import annotations

from itertools import permutations

from ..config import PLAYER_COUNTS
from .cards import CLUE_CATS, INVESTIGATOR
from .state import GameState


def draw_card(state: GameState) -> int:
    """The drawer takes the top card and resolves it in front of everyone.

    A cat showing the drawer's clue goes to the drawer's row, any other cat to the drawer's
    discard pile; an investigator card reveals a bag tile (tossed at set-up) as a public clue.
    """
    card = state.deck[state.deck_pos]
    state.deck_pos += 1
    drawer = state.drawer
    if card == INVESTIGATOR:
        state.public_clues.append(state.bag[len(state.public_clues)])
    else:
        bit = 1 << card
        if CLUE_CATS[state.clues[drawer]] & bit:
            state.rows[drawer] |= bit
            state.row_cats |= bit
        else:
            state.discards[drawer] |= bit
    state.card_order.append((drawer, card))
    state.last_card = card
    state.last_drawer = drawer
    return card


def targets(state: GameState) -> int:
    """Bitmask of the cats anyone may accuse now: in a row and not accused this round."""
    return state.row_cats & ~state.accused_cats


def accuse(state: GameState, seat: int, cat: int) -> None:
    """A final accusation; the round ends at once when all players but one have accused."""
    state.accused_by[seat] = cat
    state.accused_at[seat] = state.deck_pos
    state.accused_cats |= 1 << cat
    state.accusations.append((seat, cat))
    if len(state.accusations) >= state.n - 1:
        state.round_over = True


def open_window(state: GameState) -> None:
    """[decision] after a resolved card every player gets one decision, in the window's order."""
    n, drawer = state.n, state.last_drawer
    order = state.config.window_order
    if order == "random":  # a window nobody can act in needs no order: nothing is drawn
        seats = state.chance.window_order(SEAT_ORDERS[n]) if targets(state) else []
    elif order == "clockwise_from_drawer":
        seats = [(drawer + i) % n for i in range(n)]
    else:
        seats = [(drawer + 1 + i) % n for i in range(n)]
    state.window_order = seats
    state.queue = seats
    state.queue_pos = 0
    state.window_passed = 0
    state.window_owed = 0


def answer_in_window(state: GameState, seat: int, cat: int | None) -> None:
    """A window decision: accuse ``cat``, or pass (``None``).

    With the ``reopen_windows`` option, an accusation owes every player who passed before it in this
    window one more decision; several accusations before that decision are answered by it.
    """
    state.queue_pos += 1
    if cat is None:
        state.window_passed |= 1 << seat
        return
    accuse(state, seat, cat)
    if state.config.reopen_windows:
        state.window_owed |= state.window_passed
        state.window_passed = 0


def reopen_window(state: GameState) -> bool:
    """``reopen_windows``: once the window's order is through, ask the owed players again, in the
    window's order. Returns False when nobody is owed (the window closes)."""
    owed = state.window_owed
    if not owed:
        return False
    state.queue = [seat for seat in state.window_order if (owed >> seat) & 1]
    state.queue_pos = 0
    state.window_owed = 0
    return True


def forced_order(state: GameState) -> list[int]:
    """Empty deck ([decision] RULES.md 4): who still has to accuse, clockwise from the player after
    the last drawer."""
    n, drawer = state.n, state.last_drawer
    return [(drawer + 1 + i) % n for i in range(n) if state.accused_by[(drawer + 1 + i) % n] < 0]


SEAT_ORDERS = {n: [list(order) for order in permutations(range(n))] for n in PLAYER_COUNTS}
"""Every order of the seats, for random accusation windows (shared lists: never changed in place)."""
