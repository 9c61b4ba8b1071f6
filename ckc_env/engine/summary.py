"""What the end of a round reveals: the public record of the round (RULES.md 5, 6).

One plain dict per round, the same for every player (chip values are private and not in it):

| key | value |
|---|---|
| ``round`` | round number, 1-based |
| ``clues`` | each seat's clue |
| ``public_clues`` | bag clues revealed by investigator cards, in order |
| ``bag_clues`` | the other bag clues, revealed at scoring |
| ``stasi_exposed`` | seat whose clue lay face-up this round (Stasi variant), or None |
| ``chief``, ``chief_drawn``, ``assistants`` | the chief spy, whether he was drawn, his five assistants |
| ``cards`` | every card drawn, in order, as ``(seat, card, to)``: who drew it, the card (32: an investigator card), and where it went: ``"row"``, ``"discard"`` or ``"public_clues"`` (an investigator card reveals the next public clue) |
| ``accusations`` | in the order made: ``{"seat", "cat", "colour", "received", "cards_drawn"}`` (cards drawn this round when it was made) |
| ``non_accusers`` | ``{"seat", "colour", "received"}``, in the order served |
| ``stasi_taken_by`` | who took the Stasi chip (kept, worth -2, when the game ends here), or None |
| ``swaps`` | Cafe Adler swaps: ``{"seat", "with", "colour"}`` |
| ``chip_colours`` | each seat's chips by colour (gold, white, black) after the round |
| ``supply`` | chips left by colour after the round (the Stasi chip back in it if the game goes on) |
| ``next_first_player`` | first player of the next round |
| ``game_over`` | whether the game ended with this round |
| ``reasons`` | at game end: every condition of RULES.md 6 that holds: ``"points"``, ``"colour_used_up"``, ``"last_round"`` |
| ``totals``, ``gold``, ``winners`` | at game end: each seat's points and gold chips, the winning seats |
"""

from __future__ import annotations

from typing import Any

from ..config import COLOURS
from .cards import ASSISTANTS, CLUE_CATS, INVESTIGATOR
from .state import NOBODY, GameState


def drawn_cards(state: GameState) -> list[tuple[int, int, str]]:
    """Every card drawn this round, in order: (seat, card, where it went) (RULES.md 4)."""
    clues = state.clues
    return [
        (seat, card, "public_clues" if card == INVESTIGATOR else _PLACES[(CLUE_CATS[clues[seat]] >> card) & 1])
        for seat, card in state.card_order
    ]


_PLACES = ("discard", "row")


def round_summary(state: GameState, reasons: list[str]) -> dict[str, Any]:
    chief = state.round_chief
    served = state.served
    return {
        "round": state.round_index + 1,
        "clues": list(state.clues),
        "public_clues": list(state.public_clues),
        "bag_clues": state.bag[len(state.public_clues) :],
        "stasi_exposed": None if state.stasi_exposed == NOBODY else state.stasi_exposed,
        "chief": chief,
        "chief_drawn": chief not in state.deck[state.deck_pos :],
        "assistants": list(ASSISTANTS[chief]),
        "cards": drawn_cards(state),
        "accusations": [
            {
                "seat": seat,
                "cat": cat,
                "colour": COLOURS[colour],
                "received": chip >= 0,
                "cards_drawn": state.accused_at[seat],
            }
            for seat, cat, colour, chip in served
            if cat >= 0
        ],
        "non_accusers": [
            {"seat": seat, "colour": COLOURS[colour], "received": chip >= 0}
            for seat, cat, colour, chip in served
            if cat < 0
        ],
        "stasi_taken_by": None if state.stasi_taker == NOBODY else state.stasi_taker,
        "swaps": [{"seat": seat, "with": other, "colour": COLOURS[colour]} for seat, other, colour in state.swaps],
        "chip_colours": [state.chip_table[s][:3] for s in range(state.n)],
        "supply": [len(s) for s in state.supply],
        "next_first_player": state.next_first_player,
        "game_over": bool(reasons),
    }
