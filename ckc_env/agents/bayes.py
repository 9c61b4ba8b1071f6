"""``bayes_v1``: exact beliefs and an accusation rule that weighs the best target now against waiting.

At a window it computes, for every cat it may accuse, the expected value of the chip it would earn:
P(chief) x E[gold] + P(assistant) x E[white] + P(innocent) x E[black], where E[colour] is the mean
value of that colour's chips the seat has not seen (the pool less its own chips). It accuses the
best target when that value clears a bar that moves as the other players accuse:

- ``sure``: a target at least this likely to be the chief is taken at once (others may take it);
- otherwise the bar is ``bar_late + (bar_early - bar_late) * (k - 1) / (n - 2)`` with k the other
  players who may still accuse: ``bar_early`` while all n-1 may, ``bar_late`` when one besides
  the last may (the tuned values make the bar *rise* as the round closes: accuse likely cats
  early, be choosy late);
- with one other player left, it also compares with what the non-accuser would get: white while
  the chief may still be in the deck, black otherwise, accusing when the best target is worth at
  least that plus ``margin_last``.

Forced accusations take the best target; Cafe Adler chips are swapped at once (a swap never loses
in expectation, see ``simple.adler_swap_action``). The parameters' defaults come from the search in
``training/tune_bayes.py`` (results in docs/baselines.md).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..beliefs import beliefs
from ..engine.actions import ACCUSE, PASS
from ..engine.cards import N_CATS, cats_in
from ..engine.chips import STASI
from ..engine.view import PlayerView
from .simple import Accuser


@dataclass(frozen=True)
class BayesParams:
    # Defaults from training/tune_bayes.py (docs/bayes_v1_tuning.json); the search started from
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


def expected_chip_values(view: PlayerView) -> tuple[float, float, float]:
    """E[value] of the next chip of each colour, over the chips this seat has not seen.

    The Stasi chip counts 0 (it goes back after the round) except in the last round (``max_rounds``),
    where it counts -2: an approximation, since a game can also end earlier (RULES.md 6).
    Colours whose supply is empty are worth 0: nobody gets a chip.
    """
    last_round = view.round_index + 1 >= view.config.max_rounds
    return _expected_chip_values(view.pool, last_round, view.own_chips, [n > 0 for n in view.supply_counts])


def _expected_chip_values(
    pool, last_round: bool, own_chips: list[int], in_supply: list[bool]
) -> tuple[float, float, float]:
    sums, counts = [0.0, 0.0, 0.0], [0, 0, 0]
    for chip in range(len(pool)):
        if chip in own_chips:
            continue
        colour = pool.colour[chip]
        sums[colour] += (-2 if last_round else 0) if pool.kind[chip] == STASI else pool.value[chip]
        counts[colour] += 1
    return tuple(sums[c] / counts[c] if counts[c] and in_supply[c] else 0.0 for c in range(3))


class BayesAgent(Accuser):
    name = "bayes_v1"
    params_type = BayesParams

    def __init__(self, seed: int | None = None, **params: float) -> None:
        super().__init__(seed)
        accepted = self.params_type.names()
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            raise ValueError(f"unknown {self.name} parameter(s) {unknown}: accepted are {list(accepted)}")
        self.params = self.params_type(**params)
        self._chip_values: dict[int, tuple[float, float, float]] = {}

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self._chip_values.clear()  # the pool may differ from the last game's

    def chip_values(self, view: PlayerView) -> tuple[float, float, float]:
        """``expected_chip_values``, remembered per round: accusations happen before the round's
        chips move (RULES.md 5, 7), so the pool, own chips and supply are fixed meanwhile."""
        values = self._chip_values.get(view.round_index)
        if values is None:
            values = self._chip_values[view.round_index] = expected_chip_values(view)
        return values

    def accuse(self, view: PlayerView, forced: bool) -> int:
        return decide(self.params, view, beliefs(view), forced, self.chip_values(view))


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
