"""``cheater``: reads the hidden state. An upper-bound reference, never a training opponent unless asked."""

from __future__ import annotations

import numpy as np

from ..engine.actions import ACCUSE, CAFE_ADLER, CLUE_FACE, CLUE_FACE_A, FORCED_ACCUSATION, PASS
from ..engine.cards import cats_in, chief_of, matches
from ..engine.view import PlayerView
from .base import Agent
from .simple import adler_swap_action


class CheaterAgent(Agent):
    """Knows every clue: takes the chief as soon as he is in a row; while he is still in the deck it
    waits (the non-accuser would get white then anyway); once he is taken, it takes the best cat left.
    """

    name = "cheater"
    reads_hidden_state = True

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        kind = view.decision_kind
        if kind == CLUE_FACE:
            return CLUE_FACE_A + int(self.rng.integers(2))
        if kind == CAFE_ADLER:
            return adler_swap_action(view, observation, self.rng)
        game = view._game  # cheating: the hidden clues
        chief = chief_of(game.clues + game.bag)
        targets = cats_in(view.targets)
        best = max(targets, key=lambda c: (matches(c, chief), -c))
        if kind == FORCED_ACCUSATION or best == chief:
            return ACCUSE + best
        chief_taken = (view.accused_cats >> chief) & 1
        if chief_taken and matches(best, chief) == 4:
            return ACCUSE + best
        return PASS
