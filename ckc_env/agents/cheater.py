"""``cheater``: reads the hidden state. An upper-bound reference, never a training opponent unless asked."""

from __future__ import annotations

from ..engine.actions import ACCUSE, PASS
from ..engine.cards import cats_in, chief_of, matches
from ..engine.view import PlayerView
from .simple import Accuser


class CheaterAgent(Accuser):
    """Knows every clue: takes the chief as soon as he is in a row; while he is still in the deck it
    waits (the non-accuser would get white then anyway); once he is taken, it takes the best cat left.
    """

    name = "cheater"
    reads_hidden_state = True

    def accuse(self, view: PlayerView, forced: bool) -> int:
        state = view._state  # cheating: the hidden clues
        chief = chief_of(state.clues + state.bag)
        targets = cats_in(view.targets)
        best = max(targets, key=lambda c: (matches(c, chief), -c))
        if forced or best == chief:
            return ACCUSE + best
        chief_taken = (view.accused_cats >> chief) & 1
        if chief_taken and matches(best, chief) == 4:
            return ACCUSE + best
        return PASS
