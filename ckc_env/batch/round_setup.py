"""Round set-up for B games at once (RULES.md 3): ``engine/round_setup.py`` on arrays.

``start_round`` deals each game's tiles, clues, bag and deck from its chance source and clears the
table; with ``clue_face="choose"`` the seats then choose their clue faces in turn (3.1).
"""

from __future__ import annotations

import numpy as np

from ..engine.actions import CLUE_FACE
from ..engine.cards import N_CATS
from ..engine.state import CHOOSING_FACES, DRAWING
from .state import CLOCKWISE, SEATS, BatchState, ask, clear


def start_round(state: BatchState, games: np.ndarray) -> None:
    """``round_setup.start_round``: deal and clear the table."""
    tiles, clues, bag, deck = state.chance.deal(state, games)
    config = state.rules.config
    n = state.n[games]
    state.tiles[games] = tiles
    state.clues[games] = clues if config.clue_face == "random" else -1
    state.bag[games] = bag
    state.deck[games] = deck
    state.deck_len[games] = N_CATS + SEATS - n
    first = state.next_first_player[games]
    state.first_player[games] = first
    state.drawer[games] = first
    state.stasi_exposed[games] = state.stasi_taker[games]  # 7: the taker's clue lies face-up
    state.stasi_taker[games] = -1
    clear(state, games, "new_round")
    if config.clue_face == "choose":
        state.phase[games] = CHOOSING_FACES
        state.queue[games] = CLOCKWISE[n, first]
        state.queue_len[games] = n
    else:
        state.phase[games] = DRAWING
        state.queue_len[games] = 0


def choosing_faces(state: BatchState, games: np.ndarray) -> None:
    """3.1 [option] ``clue_face="choose"``: each seat in turn from the first player."""
    pos = state.queue_pos[games]
    asking = pos < state.queue_len[games]
    asked = games[asking]
    ask(state, asked, CLUE_FACE, state.queue[asked, pos[asking]])
    state.phase[games[~asking]] = DRAWING
