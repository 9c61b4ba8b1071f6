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

Forced accusations take the best target.

**Exact** (``exact=1``). On the exact posterior (``reading.beliefs.beliefs``: world counts) the rule
then compares integers, never rounded floats (:func:`exact_decision`): every quantity it weighs is a
ratio of integers (the counts over their total, each colour's chip values summed over their number,
the parameters as the decimals they are written as), so each comparison is cross-multiplied and
exact on every engine (the NumPy and JAX twins compute the same integers, where JAX's float32 and
NumPy's float64 part at ties), and a position the mathematics ties (a target worth exactly the bar)
is a tie everywhere: a seed plays the same games on every engine. A posterior weighted by a
reading of the other players (bayes_v2's own) is not a ratio of counts; it is compared in float64
as written (:func:`float_decision`). Off by default: float64 breaks such ties either way, so the
exact rule plays otherwise in some games (17 of 2,000 at 3 players, 13 at 4, 44 at 5 among bayes_v1
tables; 6 of 2,000 in a 3-player bayes_v2 table), and every figure published with the bayes players
was measured with the float64 rule.

The players decide by it (``agents.bayes``, ``bayes_v2``,
``bayes_v3``, ``rollout``), and so do the readers' models of the other players
(``players_posterior``, ``second_order``). The parameters' defaults come from the search in
``training/commands/tune_bayes.py`` (results in docs/baselines.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache
from math import lcm
from typing import Any

import numpy as np

from ..engine.actions import ACCUSE, PASS
from ..engine.cards import N_CATS, cats_in

RULE_PARAMS = ("sure", "bar_early", "bar_late", "margin_last")
"""The parameters the rule compares with: decimals of at most ``DECIMALS`` places within
``LIMIT``, so that their integers (over one power of ten) fit the JAX twin's 32-bit arithmetic."""
DECIMALS = 6
LIMIT = 100
MAX_VALUE_COUNT = 24
"""A bound on the chips a colour's expected value is a mean of (a pool holds at most 20 a colour,
the Stasi chip one more): :func:`value_fractions` finds each value's denominator below it."""


@dataclass(frozen=True)
class BayesParams:
    # Defaults from training/commands/tune_bayes.py (docs/bayes_v1_tuning.json); the search started from
    # sure=0.6, bar_early=2.0, bar_late=0.8, margin_last=0.0.
    sure: float = 0.3
    bar_early: float = 1.0
    bar_late: float = 2.0
    margin_last: float = 0.0
    exact: bool = False  # compare world counts exactly (see the module docstring): off, the published figures' rule

    def __post_init__(self) -> None:
        if self.exact not in (True, False):  # 0 and 1 from the command line too
            raise ValueError(f"bayes_v1 parameter exact={self.exact!r} must be true or false (1 or 0)")
        object.__setattr__(self, "exact", bool(self.exact))
        for name in self.names():
            value = getattr(self, name)
            if name == "exact":
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"bayes_v1 parameter {name}={value!r} must be a number")
        for name in RULE_PARAMS if self.exact else ():
            value = getattr(self, name)
            if not abs(value) <= LIMIT or _decimal(value).denominator > 10**DECIMALS:
                raise ValueError(
                    f"bayes_v1 parameter {name}={value!r} must be a decimal of at most {DECIMALS} places "
                    f"from -{LIMIT} to {LIMIT} with exact=1: the rule compares it exactly"
                )

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


def _decimal(value: float) -> Fraction:
    """A parameter as the decimal it is written as (``0.3`` is 3/10, not its binary rounding)."""
    return Fraction(repr(float(value)))


@cache
def exact_params(p: BayesParams) -> tuple[int, int, int, int, int]:
    """``(scale, sure, bar_early, bar_late, margin_last)``: the rule's parameters as integers over
    one ``scale`` (a power of ten at most ``10 ** DECIMALS``)."""
    decimals = [_decimal(getattr(p, name)) for name in RULE_PARAMS]
    scale = lcm(*(d.denominator for d in decimals))
    return (scale, *(int(d * scale) for d in decimals))


def value_fractions(values: Sequence[float]) -> list[tuple[int, int]]:
    """Each colour's expected chip value as ``(numerator, denominator)``: a mean of fewer than
    ``MAX_VALUE_COUNT`` integer chip values (or 0), so the float is that ratio correctly rounded, and
    the smallest denominator that makes it an integer (to within 1e-3, where the next candidate ratio
    is 1/24 away) gives it back exactly. The twins recover theirs the same way."""
    out = []
    for value in values:
        for denominator in range(1, MAX_VALUE_COUNT + 1):
            numerator = round(value * denominator)
            if abs(value * denominator - numerator) < 1e-3:
                out.append((numerator, denominator))
                break
        else:
            raise ValueError(f"expected chip value {value!r} is not a mean of fewer than {MAX_VALUE_COUNT} chips")
    return out


def decide(p: BayesParams, view, b, forced: bool, values: tuple[float, float, float]) -> int:
    """bayes_v1's rule: ``ACCUSE + cat`` or ``PASS`` for a seat's ``view`` (the table: ``targets``,
    ``accused_by``, ``rows``, ``discards``, ``num_players``, ``config``), its posterior ``b`` and the
    expected value of the next chip of each colour: with ``p.exact`` and world counts (``b.exact``)
    in integers, else in float64."""
    if p.exact and getattr(b, "exact", False):
        return exact_decision(p, view, b, forced, values)
    return float_decision(p, view, b, forced, values)


def exact_decision(p: BayesParams, view, b, forced: bool, values: tuple[float, float, float]) -> int:
    """The rule in integers, on the world counts of ``b`` (``Beliefs.counts``): a target's expected
    chip value times ``total x D`` (D the product of the three values' denominators) is an integer,
    and so is every threshold times the same, over the parameters' ``scale``."""
    chief, assistant, total = b.counts()
    (gold, n_gold), (white, n_white), (black, n_black) = value_fractions(values)
    k_gold, k_white, k_black = gold * n_white * n_black, white * n_gold * n_black, black * n_gold * n_white
    best, best_worth, best_chief = -1, 0, -1
    for c in cats_in(view.targets):
        pc, pa = int(chief[c]), int(assistant[c])
        worth = pc * k_gold + pa * k_white + (total - pc - pa) * k_black
        if best < 0 or worth > best_worth or (worth == best_worth and pc > best_chief):
            best, best_worth, best_chief = c, worth, pc
    if forced:
        return ACCUSE + best
    scale, sure, bar_early, bar_late, margin_last = exact_params(p)
    if best_chief * scale >= sure * total:
        return ACCUSE + best
    unit = total * n_gold * n_white * n_black  # worth / unit is the expected chip value
    others_left = view.accused_by.count(-1) - 1
    if others_left <= 1:
        if view.config.non_accuser_white == "chief_uncaught":
            non_accuser = total * k_white
        else:
            drawn = 0
            for row, discard in zip(view.rows, view.discards, strict=True):
                drawn |= row | discard
            undrawn = sum(int(chief[c]) for c in range(N_CATS) if not (drawn >> c) & 1)
            non_accuser = undrawn * k_white + (total - undrawn) * k_black
        return ACCUSE + best if (best_worth - non_accuser) * scale >= margin_last * unit else PASS
    m = max(1, view.num_players - 2)
    bar = bar_late * m + (bar_early - bar_late) * (others_left - 1)  # the moving bar times scale x m
    return ACCUSE + best if best_worth * scale * m >= bar * unit else PASS


def float_decision(p: BayesParams, view, b, forced: bool, values: tuple[float, float, float]) -> int:
    """The rule in float64, on a posterior that is not a ratio of counts (a weighted one)."""
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
