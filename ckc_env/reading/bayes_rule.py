"""bayes_v1's accusation rule: the best target now against waiting, on a seat's posterior.

Its batched twin: ckc_env/batch/bayes_rule.py.

At a window it computes, for every cat it may accuse, the expected value of the chip it would earn:
P(chief) x E[gold] + P(assistant) x E[white] + P(innocent) x E[black], where E[colour] is the mean
value of that colour's chips the seat has not seen (``chip_values.expected_chip_values``). It
accuses the best target when that value clears a bar that moves as the other players accuse:

- ``sure``: a target at least this likely to be the chief is taken at once (others may take it);
- otherwise the bar is ``bar_late + (bar_early - bar_late) * (k - 1) / (n - 2)`` with k the other
  players who may still accuse: ``bar_early`` while all n-1 may, ``bar_late`` when one besides
  the last may (the tuned values make the bar *rise* as the round closes: accuse likely cats
  early, be choosy late);
- with one other player left, it also compares with what the non-accuser would get: white while
  the chief may still be in the deck, black otherwise, accusing when the best target is worth at
  least that plus ``margin_last``.

Forced accusations take the best target. The players decide by it (``agents.bayes``, ``bayes_v2``,
``bayes_v3``, ``rollout``), and so do the readers' models of the other players
(``players_posterior``, ``second_order``). The parameters' defaults come from the search in
``training/commands/tune_bayes.py`` (results in docs/baselines.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ..engine.actions import ACCUSE, PASS
from ..engine.cards import N_CATS, cats_in


@dataclass(frozen=True)
class BayesParams:
    # Defaults from training/commands/tune_bayes.py (docs/bayes_v1_tuning.json); the search started from
    # sure=0.6, bar_early=2.0, bar_late=0.8, margin_last=0.0.
    sure: float = 0.3
    bar_early: float = 1.0
    bar_late: float = 2.0
    margin_last: float = 0.0

    def __post_init__(self) -> None:
        for name in self.names():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"bayes_v1 parameter {name}={value!r} must be a number")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, player: str, params: Mapping[str, Any]) -> BayesParams:
        """The parameters ``player`` was given by name (every engine's bayes player reads them so),
        a name it does not take refused with the names it does."""
        unknown = sorted(set(params) - set(cls.names()))
        if unknown:
            raise ValueError(f"unknown {player} parameter(s) {unknown}: accepted are {list(cls.names())}")
        return cls(**params)


def decide(p: BayesParams, view, b, forced: bool, values: tuple[float, float, float]) -> int:
    """bayes_v1's rule: ``ACCUSE + cat`` or ``PASS`` for a seat's ``view`` (the table: ``targets``,
    ``accused_by``, ``rows``, ``discards``, ``num_players``, ``config``), its posterior ``b`` and the
    expected value of the next chip of each colour."""
    gold, white, black = values
    chief, assistant = b.chief.tolist(), b.assistant.tolist()
    best, best_ev, best_chief = -1, -np.inf, -1.0
    for c in cats_in(view.targets):  # a handful of targets: plain floats beat array maths here
        pc, pa = chief[c], assistant[c]
        ev = pc * gold + pa * white + (1.0 - pc - pa) * black
        if ev > best_ev or (ev == best_ev and pc > best_chief):
            best, best_ev, best_chief = c, ev, pc
    if forced:
        return ACCUSE + best
    if best_chief >= p.sure:
        return ACCUSE + best
    n = view.num_players
    others_left = view.accused_by.count(-1) - 1  # it has not accused itself (it is deciding)
    if others_left <= 1:
        if view.config.non_accuser_white == "chief_uncaught":
            non_accuser = white  # whoever is left takes white unless the chief is caught
        else:  # white while the chief may still be in the deck
            drawn = 0
            for row, discard in zip(view.rows, view.discards, strict=True):
                drawn |= row | discard
            p_undrawn = sum(chief[c] for c in range(N_CATS) if not (drawn >> c) & 1)
            non_accuser = p_undrawn * white + (1 - p_undrawn) * black
        return ACCUSE + best if best_ev >= non_accuser + p.margin_last else PASS
    return ACCUSE + best if best_ev >= moving_bar(p, others_left, n) else PASS


def moving_bar(p: BayesParams, others_left: int, n: int) -> float:
    """The expected chip value a target must reach while ``others_left`` other players (two or more)
    may still accuse at an ``n``-player table: ``bar_early`` while all may, ``bar_late`` when one
    besides the last may."""
    share = (others_left - 1) / max(1, n - 2)
    return p.bar_late + (p.bar_early - p.bar_late) * share
