"""The suspicion phase (RULES.md 4): drawing and placing cards, accusations, windows, round end."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CLUE_CATS, INVESTIGATOR

if TYPE_CHECKING:
    from .game import Game


def draw_card(game: Game) -> int:
    """The drawer takes the top card and resolves it in front of everyone.

    A cat showing the drawer's clue goes to the drawer's row, any other cat to the drawer's
    discard pile; an investigator card reveals a bag tile (tossed at set-up) as a public clue.
    """
    card = game.deck[game.deck_pos]
    game.deck_pos += 1
    drawer = game.drawer
    if card == INVESTIGATOR:
        game.public_clues.append(game.bag[len(game.public_clues)])
    else:
        bit = 1 << card
        if CLUE_CATS[game.clues[drawer]] & bit:
            game.rows[drawer] |= bit
            game.row_cats |= bit
            game.table_bits[0, drawer, card] = 1.0
        else:
            game.discards[drawer] |= bit
            game.table_bits[1, drawer, card] = 1.0
    game.card_order.append((drawer, card))
    game.last_card = card
    game.last_drawer = drawer
    return card


def targets(game: Game) -> int:
    """Bitmask of the cats anyone may accuse now: in a row and not accused this round."""
    return game.row_cats & ~game.accused_cats


def accuse(game: Game, seat: int, cat: int) -> None:
    """A final accusation; the round ends at once when all players but one have accused."""
    game.accused_by[seat] = cat
    game.accused_cats |= 1 << cat
    game.accusations.append((seat, cat))
    game.table_bits[2, seat, cat] = 1.0
    if len(game.accusations) >= game.n - 1:
        game.round_over = True


def window_order(game: Game) -> list[int]:
    """[decision] the order in which players decide in the window after a card is resolved."""
    n, drawer = game.n, game.last_drawer
    order = game.config.window_order
    if order == "random":
        return game.random_seat_order()
    if order == "clockwise_from_drawer":
        return [(drawer + i) % n for i in range(n)]
    return [(drawer + 1 + i) % n for i in range(n)]


def forced_order(game: Game) -> list[int]:
    """Empty deck: who still has to accuse, clockwise from the player after the last drawer."""
    n, drawer = game.n, game.last_drawer
    return [(drawer + 1 + i) % n for i in range(n) if game.accused_by[(drawer + 1 + i) % n] < 0]
