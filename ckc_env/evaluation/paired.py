"""Paired comparisons: two players in the same seat, on the same deals, against the same opponents.

    from ckc_env.evaluation.paired import compare
    result = compare("checkpoints/ppo_all_counts", "bayes_v1", ["bayes_v1"] * 4, games=2000, seed=0)
    print(result.table())

Both players play every game of one tournament's design, the one after the other: game g is dealt
from the same seed, the opponents sit in the same seats with the same random streams, and the
player compared takes the same seat (it keeps the first slot of the seating design,
:mod:`ckc_env.evaluation.seating`). Only the player differs, so most of the luck of the deal cancels
in the per-game differences (duplicate play, as in bridge): the difference of two win rates gets
the interval of a mean of per-game differences, ``mean ± 1.96 sd / sqrt(games)``, often several
times narrower than the interval two independent tournaments would give (both are reported; both
from :mod:`~ckc_env.evaluation.statistics`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..files import write_atomic
from ..players import specs
from ..players.specs import PlayerSpec
from .results import METRICS, RATES, TournamentResult, metric_rows, metric_stat
from .statistics import Stat, unpaired_half_width
from .tournament import Play, run_tournament

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclass
class PairedResult:
    """Two tournaments that differ only in the player compared (lineup index 0 of each)."""

    first: TournamentResult
    second: TournamentResult

    @property
    def labels(self) -> tuple[str, str]:
        return self.first.labels[0], self.second.labels[0]

    def differences(self, metric: str) -> np.ndarray:
        """Per game: the first player's value less the second's, on the same deal."""
        return np.asarray(self.first.per_game[metric][0]) - np.asarray(self.second.per_game[metric][0])

    def difference(self, metric: str = "win") -> Stat:
        """The mean per-game difference with its paired 95% interval (normal)."""
        return Stat.paired(self.first.per_game[metric][0], self.second.per_game[metric][0])

    def unpaired_half_width(self, metric: str = "win") -> float:
        """The half-width the difference would have from two independent tournaments of this size."""
        return unpaired_half_width(self.first.per_game[metric][0], self.second.per_game[metric][0])

    def caption(self) -> str:
        first, second = self.labels
        opponents = ", ".join(self.first.labels[1:])
        return (
            f"{first} against {second} in the same seat on the same deals: {self.first.games} games each, "
            f"opponents {opponents}; {self.first.caption()}"
        )

    def table(self) -> str:
        """Each player's figures, then their difference with its paired interval."""
        first, second = self.labels
        rows = metric_rows([first, second], [self.first.stats()[0], self.second.stats()[0]])
        cells = " | ".join(_signed(self.difference(m)) for m in METRICS)
        rows.append(f"| difference (paired) | {cells} |")
        win = self.difference("win")
        note = (
            f"win rate difference {win.mean:+.4f}, paired 95% interval [{win.low:+.4f}, {win.high:+.4f}] "
            f"(±{win.half_width:.4f}; two independent tournaments of this size: ±{self.unpaired_half_width():.4f})"
        )
        return self.caption() + "\n\n" + "\n".join(rows) + "\n\n" + note

    def to_json(self) -> dict[str, Any]:
        first, second = self.labels
        return {
            "compare": [specs.label(self.first.lineup[0]), specs.label(self.second.lineup[0])],
            "labels": [first, second],
            "opponents": self.first.labels[1:],
            "games": self.first.games,
            "seed": self.first.seed,
            "config": self.first.config,
            "engine": self.first.engine,
            "seating": {**self.first.seating, "compared_player": "keeps the first slot"},
            "difference": {
                m: {
                    "mean": self.difference(m).mean,
                    "ci95": [self.difference(m).low, self.difference(m).high],
                    "interval": "paired normal95",
                }
                for m in METRICS
            },
            "unpaired_half_width": {m: self.unpaired_half_width(m) for m in METRICS},
            "players": [
                {m: _stat_json(metric_stat(m, result.per_game[m][0])) for m in METRICS}
                for result in (self.first, self.second)
            ],
            "rates": list(RATES),
        }

    def save(self, prefix: str | Path) -> Path:
        """Write ``prefix.json`` whole (:func:`ckc_env.files.write_atomic`)."""
        path = Path(f"{prefix}.json")
        write_atomic(path, json.dumps(self.to_json(), indent=2))
        return path


def _stat_json(stat: Stat) -> dict[str, Any]:
    return {"mean": stat.mean, "ci95": [stat.low, stat.high]}


def _signed(stat: Stat) -> str:
    return f"{stat.mean:+.3f} ± {stat.half_width:.3f}"


def compare(
    first: PlayerSpec,
    second: PlayerSpec,
    opponents: PlayerSpec | list[PlayerSpec],
    games: int,
    seed: int = 0,
    num_players: int | None = None,
    **play: Unpack[Play],
) -> PairedResult:
    """``first`` and ``second`` each against ``opponents`` (one spec for every other seat, or n-1)
    on the same deals in the same seat (see the module docstring), played as ``play`` says
    (:class:`~ckc_env.evaluation.tournament.Play`)."""
    config = dict(play.pop("config", None) or {})
    n = num_players or config.get("num_players") or (len(opponents) + 1 if isinstance(opponents, list) else 5)
    others = specs.for_seats(opponents, int(n) - 1)
    config["num_players"] = len(others) + 1
    results = [
        run_tournament([player, *others], games, seed=seed, fixed_first=True, config=config, **play)
        for player in (first, second)
    ]
    return PairedResult(*results)
