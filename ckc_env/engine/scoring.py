"""The scoring phase (RULES.md 5) with the Stasi chip (7), Cafe Adler swaps (8) and game end (6)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..config import BLACK, GOLD, WHITE
from .cards import matches
from .chips import ADLER, STASI, STASI_KEPT_VALUE

if TYPE_CHECKING:
    from .game import Game


def chip_colour_for(matched: int) -> int:
    """Gold for the chief (5 clue values), white for an assistant (4), black for an innocent."""
    return GOLD if matched == 5 else WHITE if matched == 4 else BLACK


def non_accuser_colour(game: Game, chief: int) -> int:
    """White instead of black for a player who did not accuse, when the rule option says so."""
    if game.config.non_accuser_white == "chief_in_deck":
        white = chief in game.deck[game.deck_pos :]
    else:  # "chief_uncaught": the German edition
        white = not (game.accused_cats >> chief) & 1
    return WHITE if white else BLACK


def take_chip(game: Game, seat: int, colour: int) -> int | None:
    """Take a random chip of a colour from the supply; nothing if the colour has run out."""
    supply = game.supply[colour]
    if not supply:
        return None
    chip = supply.pop()
    game.give_chip(seat, chip)
    if game.pool.kind[chip] != STASI:  # the Stasi chip is worth nothing while it goes back
        game.gain(seat, game.pool.value[chip])
    return chip


def hand_out(game: Game, chief: int) -> list[dict]:
    """Chips in the order the accusations were made, the non-accusers last (RULES.md 5).

    Returns one record per player served: seat, accused cat (or None), colour, chip id (or None).
    """
    served = []
    for seat, cat in game.accusations:
        served.append({"seat": seat, "cat": cat, "colour": chip_colour_for(matches(cat, chief))})
    # [decision] several non-accusers (only possible when targets ran out on an empty deck)
    # are served in the order of the forced accusations: clockwise after the last drawer.
    n, drawer = game.n, game.last_drawer
    colour = non_accuser_colour(game, chief)
    for i in range(n):
        seat = (drawer + 1 + i) % n
        if game.accused_by[seat] < 0:
            served.append({"seat": seat, "cat": None, "colour": colour})
    for record in served:
        record["chip"] = take_chip(game, record["seat"], record["colour"])
    return served


def return_stasi_chip(game: Game) -> int:
    """7: whoever took the Stasi chip takes the Stasi card; the chip goes back among the black chips.

    Returns the seat that took it (-1 if nobody did).
    """
    for seat, chips in enumerate(game.holdings):
        for chip in chips:
            if game.pool.kind[chip] == STASI:
                game.drop_chip(seat, chip)
                supply = game.supply[BLACK]
                supply.insert(int(game.rng.integers(len(supply) + 1)), chip)
                return seat
    return -1


def keep_stasi_chip(game: Game, seat: int) -> None:
    """7: the Stasi chip taken in the game's last scoring phase stays with its holder, worth -2."""
    supply = game.supply[BLACK]
    chip = next(c for c in supply if game.pool.kind[c] == STASI)
    supply.remove(chip)
    game.give_chip(seat, chip)
    game.gain(seat, STASI_KEPT_VALUE)


def chip_value(game: Game, chip: int) -> int:
    """What a held chip counts: its printed value, -2 for the Stasi chip (held only when kept)."""
    return game.chip_points[chip]


def total(game: Game, seat: int) -> int:
    points = game.chip_points
    return sum(points[chip] for chip in game.holdings[seat])


def hidden_adler_chips(game: Game, seat: int) -> list[int]:
    return [c for c in game.holdings[seat] if game.pool.kind[c] == ADLER and c not in game.face_up]


def swappable(game: Game, seat: int, colour: int) -> list[int]:
    """8: the chips of a colour another player can take from this seat (not face-up Adler chips)."""
    return [c for c in game.holdings[seat] if game.pool.colour[c] == colour and c not in game.face_up]


def swap_targets(game: Game, seat: int, chip: int) -> list[int]:
    """Seats the holder of a hidden Adler chip could swap it with."""
    colour = game.pool.colour[chip]
    return [other for other in range(game.n) if other != seat and swappable(game, other, colour)]


def adler_swap(game: Game, seat: int, chip: int, other: int) -> int:
    """8: swap blind; the swapper takes a random chip of that colour, the other gets the Adler chip face-up."""
    candidates = swappable(game, other, game.pool.colour[chip])
    taken = candidates[int(game.rng.integers(len(candidates)))]
    game.drop_chip(other, taken)
    game.drop_chip(seat, chip)
    game.give_chip(seat, taken)
    game.face_up.add(chip)
    game.give_chip(other, chip)
    delta = game.pool.value[taken] - game.pool.value[chip]
    game.gain(seat, delta)
    game.gain(other, -delta)
    return taken


def game_end_reasons(game: Game) -> list[str]:
    """6: the conditions that end the game after this round's scoring and swaps."""
    reasons = []
    if any(total(game, seat) >= game.config.target_points for seat in range(game.n)):
        reasons.append("points")
    if any(not supply for supply in game.supply):
        reasons.append("colour_used_up")
    if game.round_index + 1 >= game.config.max_rounds:
        reasons.append("last_round")
    return reasons


def gold_count(game: Game, seat: int) -> int:
    return sum(1 for chip in game.holdings[seat] if game.pool.colour[chip] == GOLD)


def winners(game: Game) -> list[int]:
    """6: highest total, then most gold chips; a remaining tie is a shared win."""
    keys = [(total(game, seat), gold_count(game, seat)) for seat in range(game.n)]
    best = max(keys)
    return [seat for seat in range(game.n) if keys[seat] == best]
