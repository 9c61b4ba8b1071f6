"""What a tournament or a round robin reports: its result object, table, JSON and CSV.

A result keeps every game's figures per player (``per_game``); its statistics (95% intervals,
:mod:`~ckc_env.evaluation.statistics`) are made from them when asked. ``markdown_table`` renders a
saved result (the JSON) as the table the evaluator prints, so that the docs' tables can be checked
against their files (``tests/test_doc_tables.py``).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import GameConfig
from ..files import write_atomic
from ..players import specs
from ..players.specs import PlayerSpec
from .seating import describe
from .statistics import Stat, lead

METRICS = ("win", "points", "gold", "white", "black", "chief_rate")
"""Per game: win share (1/k for a k-way shared win), final points, chips of each colour, and the
share of the game's rounds in which the player caught the chief."""
METRIC_HEADERS = ("win rate", "points", "gold", "white", "black", "chief caught (per round)")
RATES = ("win", "chief_rate")
"""The metrics that are rates in [0, 1]: reported with Wilson's interval."""
INTERVALS = {m: "wilson95" if m in RATES else "normal95" for m in METRICS}
"""How each metric's ``ci95`` in the JSON results was computed."""


def metric_stat(metric: str, values: Sequence[float]) -> Stat:
    """The statistic a metric is reported with: Wilson's interval for a rate, else the normal one."""
    return Stat.of_rate(values) if metric in RATES else Stat.of(values)


@dataclass
class TournamentResult:
    lineup: list[PlayerSpec]
    config: dict[str, Any]
    games: int
    seed: int
    per_game: dict[str, list[list[float]]] = field(repr=False)  # metric -> per lineup index -> values
    rounds_per_game: float = 0.0
    engine: str = "scalar"  # which engine played the games: "scalar", "batched" or "jax"
    seating: dict[str, Any] = field(default_factory=lambda: describe("balanced", 3))  # how seats were assigned

    @property
    def labels(self) -> list[str]:
        """The players' names, numbered where a player sits at several seats (``bayes_v1 #1``, ...)."""
        return numbered([specs.label(s) for s in self.lineup])

    def stats(self) -> list[dict[str, Stat]]:
        return [{m: metric_stat(m, self.per_game[m][i]) for m in METRICS} for i in range(len(self.lineup))]

    def caption(self) -> str:
        """What the table summarises: seats, games, seed and rules."""
        defaults = GameConfig(num_players=len(self.lineup)).to_dict()
        changed = {k: v for k, v in GameConfig.from_dict(self.config).to_dict().items() if v != defaults[k]}
        options = ", " + ", ".join(f"{k}={v}" for k, v in changed.items()) if changed else ""
        seated = "seats rotated" if self.seating["scheme"] == "rotate" else "balanced seatings"
        return f"{len(self.lineup)} players, {self.games} games, {seated}, seed {self.seed}{options}"

    def lead(self) -> dict[str, Any]:
        """The first player's win rate less the runner-up's over the same games, with its 95%
        interval (:func:`~ckc_env.evaluation.statistics.lead`): whether the first place at this
        table is clear of the second."""
        first, second, stat = lead(self.per_game["win"])
        return {
            "first": self.labels[first],
            "second": self.labels[second],
            "difference": stat.mean,
            "ci95": [stat.low, stat.high],
        }

    def table(self) -> str:
        """A Markdown table under its caption: one row per lineup player, each metric's mean and 95%
        interval (rates: ``mean [low, high]``, Wilson; the others: ``mean ± half-width``), then the
        first place's lead over the second on the same games."""
        result = self.to_json()
        lead = result["lead"]
        low, high = lead["ci95"]
        return (
            self.caption()
            + "\n\n"
            + markdown_table(result)
            + f"\n\nfirst: {lead['first']}, ahead of {lead['second']} by {lead['difference']:+.3f} "
            f"[{low:+.3f}, {high:+.3f}] on the same games"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "lineup": self.lineup,
            "labels": self.labels,
            "config": self.config,
            "games": self.games,
            "seed": self.seed,
            "rounds_per_game": self.rounds_per_game,
            "engine": self.engine,
            "seating": self.seating,
            "intervals": INTERVALS,
            "players": [{m: {"mean": s[m].mean, "ci95": [s[m].low, s[m].high]} for m in METRICS} for s in self.stats()],
            "lead": self.lead(),
        }

    def save(self, prefix: str | Path) -> tuple[Path, Path]:
        """Write ``prefix.json`` and ``prefix.csv``, each whole (:func:`ckc_env.files.write_atomic`)."""
        json_path, csv_path = Path(f"{prefix}.json"), Path(f"{prefix}.csv")
        rows = io.StringIO()
        writer = csv.writer(rows)
        writer.writerow(["player", *(f"{m}_{k}" for m in METRICS for k in ("mean", "low", "high"))])
        for label, stat in zip(self.labels, self.stats(), strict=True):
            writer.writerow([label, *(v for m in METRICS for v in (stat[m].mean, stat[m].low, stat[m].high))])
        write_atomic(json_path, json.dumps(self.to_json(), indent=2))
        write_atomic(csv_path, rows.getvalue())
        return json_path, csv_path


@dataclass
class RoundRobinResult:
    players: list[PlayerSpec]
    num_players: int
    results: list[TournamentResult]

    def pooled(self) -> list[dict[str, Stat]]:
        """Each player's games over every table it sat at, pooled."""
        pooled: list[dict[str, list[float]]] = [{m: [] for m in METRICS} for _ in self.players]
        labels = [specs.label(p) for p in self.players]
        for result in self.results:
            for i, label in enumerate(result.labels):
                k = labels.index(label)
                for m in METRICS:
                    pooled[k][m] += result.per_game[m][i]
        return [{m: metric_stat(m, values[m]) for m in METRICS} for values in pooled]

    def ranking(self) -> str:
        """The players ranked by win rate over all their tables, as a Markdown table under its caption."""
        games = sum(r.games for r in self.results)
        caption = f"{self.num_players} players, {len(self.results)} table(s), {games} games"
        return caption + "\n\n" + markdown_table(self.to_json())

    def to_json(self) -> dict[str, Any]:
        stats = self.pooled()
        return {
            "num_players": self.num_players,
            "players": [specs.label(p) for p in self.players],
            "games": sum(r.games for r in self.results),
            "intervals": INTERVALS,
            "pooled": [{m: {"mean": s[m].mean, "ci95": [s[m].low, s[m].high]} for m in METRICS} for s in stats],
            "tables": [r.to_json() for r in self.results],
        }


def numbered(labels: list[str]) -> list[str]:
    """Labels made distinct: a label that occurs k > 1 times becomes ``label #1`` .. ``label #k``."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(f"{label} #{seen[label]}" if labels.count(label) > 1 else label)
    return out


def markdown_table(result: dict[str, Any]) -> str:
    """The Markdown table of a saved result (``TournamentResult.to_json``: one row per lineup player,
    in lineup order; ``RoundRobinResult.to_json``: the players ranked by win rate), so that a table
    in the docs can be checked against the file it was made from."""
    ranked = "pooled" in result
    labels = result["players"] if ranked else result["labels"]
    stats = [
        {m: Stat(p[m]["mean"], *p[m]["ci95"], rate=m in RATES) for m in METRICS}
        for p in (result["pooled"] if ranked else result["players"])
    ]
    if not ranked:
        return "\n".join(metric_rows(labels, stats))
    order = sorted(range(len(labels)), key=lambda k: -stats[k]["win"].mean)
    rows = [f"| rank | player | {' | '.join(METRIC_HEADERS)} |", "|---" * (len(METRICS) + 2) + "|"]
    for rank, k in enumerate(order, 1):
        rows.append(f"| {rank} | {labels[k]} | {' | '.join(str(stats[k][m]) for m in METRICS)} |")
    return "\n".join(rows)


def metric_rows(labels: Sequence[str], stats: Sequence[dict[str, Stat]]) -> list[str]:
    """A Markdown table's lines: the header, then one row per player of every metric's statistic."""
    rows = [f"| player | {' | '.join(METRIC_HEADERS)} |", "|---" * (len(METRICS) + 1) + "|"]
    rows += [f"| {label} | {' | '.join(str(s[m]) for m in METRICS)} |" for label, s in zip(labels, stats, strict=True)]
    return rows
