"""Round summaries of a batch: the scalar ``engine.summary`` dicts, built from ``state.record``.

A step that ends a round in some games (``state.round_ended``) leaves each such round in
``state.record``, which keeps it through the next round's deal and an automatic reset; these dicts
are equal to the ``GameState.summaries`` entries the scalar engine writes for the same game.
Building dicts is for reports and tests: a Python loop over the games asked for, off the hot path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..config import COLOURS
from ..engine.cards import ASSISTANTS, CLUE_CATS, INVESTIGATOR
from .state import REASONS, SEATS, BatchState

_PLACES = ("discard", "row")


def round_summaries(state: BatchState, games: np.ndarray | None = None) -> list[dict[str, Any]]:
    """The summary of the last finished round of each of ``games`` (default: those whose round
    ended in the last step), in ``games`` order."""
    if games is None:
        games = np.flatnonzero(state.round_ended)
    return [_summary(state, int(g)) for g in np.asarray(games).reshape(-1)]


def _summary(state: BatchState, b: int) -> dict[str, Any]:
    r = state.record
    n = int(r.n[b])
    clues = r.clues[b, :n].tolist()
    revealed = int(r.public_count[b])
    bag = r.bag[b, : SEATS - n].tolist()
    chief = int(r.round_chief[b])
    deck = r.deck[b, : int(r.deck_len[b])].tolist()
    drawn = int(r.deck_pos[b])
    cards = []
    for i in range(drawn):
        seat, card = int(r.card_drawer[b, i]), deck[i]
        cards.append(
            (seat, card, "public_clues" if card == INVESTIGATOR else _PLACES[(CLUE_CATS[clues[seat]] >> card) & 1])
        )
    served = [
        (int(r.served_seat[b, j]), int(r.served_cat[b, j]), int(r.served_colour[b, j]), int(r.served_chip[b, j]))
        for j in range(int(r.served_count[b]))
    ]
    summary: dict[str, Any] = {
        "round": int(r.round_index[b]) + 1,
        "clues": clues,
        "public_clues": bag[:revealed],
        "bag_clues": bag[revealed:],
        "stasi_exposed": None if r.stasi_exposed[b] < 0 else int(r.stasi_exposed[b]),
        "chief": chief,
        "chief_drawn": chief not in deck[drawn:],
        "assistants": list(ASSISTANTS[chief]),
        "cards": cards,
        "accusations": [
            {
                "seat": seat,
                "cat": cat,
                "colour": COLOURS[colour],
                "received": chip >= 0,
                "cards_drawn": int(r.accused_at[b, seat]),
            }
            for seat, cat, colour, chip in served
            if cat >= 0
        ],
        "non_accusers": [
            {"seat": seat, "colour": COLOURS[colour], "received": chip >= 0}
            for seat, cat, colour, chip in served
            if cat < 0
        ],
        "stasi_taken_by": None if r.stasi_taker[b] < 0 else int(r.stasi_taker[b]),
        "swaps": [
            {"seat": int(r.swap_seat[b, j]), "with": int(r.swap_other[b, j]), "colour": COLOURS[r.swap_colour[b, j]]}
            for j in range(int(r.swap_count[b]))
        ],
        "chip_colours": r.chip_colours[b, :n].tolist(),
        "supply": r.supply_len[b].tolist(),
        "next_first_player": int(r.next_first_player[b]),
        "game_over": bool(r.game_over[b]),
    }
    if r.game_over[b]:
        summary.update(
            {
                "reasons": [reason for i, reason in enumerate(REASONS) if (int(r.end_reasons[b]) >> i) & 1],
                "totals": r.totals[b, :n].tolist(),
                "gold": r.gold[b, :n].tolist(),
                "winners": np.flatnonzero(r.winners[b, :n]).tolist(),
            }
        )
    return summary
