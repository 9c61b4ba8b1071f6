"""Tournaments: seeded games between any mix of players, seats rotated, statistics with 95% intervals.

    from ckc_env.tournament import run_tournament
    result = run_tournament(["bayes_v1", "random", "random", "random", "random"], games=2000, seed=0)
    print(result.table())

Players are named by specs (:mod:`ckc_env.specs`: a registered agent name, a name with
parameters, or a checkpoint path); every worker builds its own players from them. A
stable-baselines3 ``.zip`` plays only with ``trust_checkpoint=True`` (its loading unpickles).

Seats rotate: game g seats lineup player i at seat (i + g) mod n, so with a number of games that
is a multiple of n every player sits everywhere equally often (the game count is rounded up to
one). Game g is dealt with seed ``derive_seed(seed, "game", g)`` and the player at seat s gets
``derive_seed(seed, "agent", g, s)`` (:mod:`ckc_env.seeding`), whatever the number of workers, so
results do not depend on how the games were split.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import operator
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from . import specs
from .agents import Agent
from .checkpoint_charlie import raw_env
from .config import COLOURS, GameConfig
from .engine.view import PlayerView
from .seeding import derive_seed
from .specs import PlayerSpec

METRICS = ("win", "points", "gold", "white", "black", "chief_rate")
"""Per game: win share (1/k for a k-way shared win), final points, chips of each colour, and the
share of the game's rounds in which the player caught the chief."""


def play_game(env: raw_env, agents: Sequence[Agent], seed: int) -> dict[str, Any]:
    """One game with ``agents[s]`` at seat s; returns per-seat results for the statistics."""
    env.reset(seed=seed)
    game = env.game
    for seat, agent in enumerate(agents):
        agent.reset(seat, env.config)
    views = [PlayerView(game, seat) for seat in range(len(agents))]
    while not game.game_over:
        seat = game.current_seat
        name = env.possible_agents[seat]
        action = agents[seat].act(views[seat], env.observe_lazily(name))
        env.step(action)
    final = game.final
    n = len(agents)
    winners = final["winners"]
    caught = [0] * n
    for summary in game.summaries:
        for record in summary["accusations"]:
            if record["cat"] == summary["chief"]:
                caught[record["seat"]] += 1
    rounds = len(game.summaries)
    return {
        "win": [1.0 / len(winners) if s in winners else 0.0 for s in range(n)],
        "points": [float(t) for t in final["totals"]],
        **{COLOURS[c]: [float(views[s].colour_counts(s)[c]) for s in range(n)] for c in range(3)},
        "chief_rate": [caught[s] / rounds for s in range(n)],
        "rounds": rounds,
    }


def _play_chunk(args: tuple) -> list[tuple[int, dict[str, Any]]]:
    lineup, config, seed, game_ids, trust = args
    n = len(lineup)
    env = raw_env(**config)
    out = []
    for g in game_ids:
        seating = [(i - g) % n for i in range(n)]  # seating[s] = lineup index at seat s
        agents = [
            specs.build(lineup[i], seed=derive_seed(seed, "agent", g, s), trust_checkpoint=trust)
            for s, i in enumerate(seating)
        ]
        out.append((g, {**play_game(env, agents, derive_seed(seed, "game", g)), "seating": seating}))
    return out


@dataclass
class Stat:
    mean: float
    half_width: float  # of the 95% interval (normal approximation)

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @classmethod
    def of(cls, values: Sequence[float]) -> Stat:
        array = np.asarray(values, dtype=np.float64)
        if len(array) < 2:
            return cls(float(array.mean()) if len(array) else float("nan"), float("nan"))
        return cls(float(array.mean()), 1.96 * float(array.std(ddof=1)) / math.sqrt(len(array)))

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.half_width:.3f}"


@dataclass
class TournamentResult:
    lineup: list[PlayerSpec]
    config: dict[str, Any]
    games: int
    seed: int
    per_game: dict[str, list[list[float]]] = field(repr=False)  # metric -> per lineup index -> values
    rounds_per_game: float = 0.0

    @property
    def labels(self) -> list[str]:
        return [specs.label(s) for s in self.lineup]

    def stats(self) -> list[dict[str, Stat]]:
        return [{m: Stat.of(self.per_game[m][i]) for m in METRICS} for i in range(len(self.lineup))]

    def table(self) -> str:
        """A Markdown table: one row per lineup player, mean ± 95% half-width per metric."""
        header = "| player | win rate | points | gold | white | black | chief caught (per round) |"
        rows = [header, "|---|---|---|---|---|---|---|"]
        for label, stat in zip(self.labels, self.stats(), strict=True):
            rows.append(f"| {label} | " + " | ".join(str(stat[m]) for m in METRICS) + " |")
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "lineup": self.lineup,
            "labels": self.labels,
            "config": self.config,
            "games": self.games,
            "seed": self.seed,
            "rounds_per_game": self.rounds_per_game,
            "players": [{m: {"mean": s[m].mean, "ci95": [s[m].low, s[m].high]} for m in METRICS} for s in self.stats()],
        }

    def save(self, prefix: str | Path) -> tuple[Path, Path]:
        """Write ``prefix.json`` and ``prefix.csv``."""
        prefix = Path(prefix)
        prefix.parent.mkdir(parents=True, exist_ok=True)
        json_path, csv_path = Path(f"{prefix}.json"), Path(f"{prefix}.csv")
        json_path.write_text(json.dumps(self.to_json(), indent=2))
        with csv_path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["player", *(f"{m}_{k}" for m in METRICS for k in ("mean", "low", "high"))])
            for label, stat in zip(self.labels, self.stats(), strict=True):
                writer.writerow([label, *(v for m in METRICS for v in (stat[m].mean, stat[m].low, stat[m].high))])
        return json_path, csv_path


def run_tournament(
    lineup: Sequence[PlayerSpec],
    games: int,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    workers: int | None = None,
    progress: bool = False,
    trust_checkpoint: bool = False,
) -> TournamentResult:
    """Play ``games`` seeded games (rounded up to a multiple of the seat count) with seats rotated;
    ``trust_checkpoint`` lets stable-baselines3 zips in the lineup load (they unpickle)."""
    lineup = list(lineup)
    n = len(lineup)
    config = dict(config or {})
    if "num_players" in config and config["num_players"] != n:
        raise ValueError(f"num_players={config['num_players']} but the lineup has {n} players: give 3, 4 or 5 players")
    config["num_players"] = n
    GameConfig.from_dict(config)  # fail early with the accepted values (3..5 players etc.)
    games = _positive_games(games)
    for spec in lineup:
        specs.validate(spec, trust_checkpoint=trust_checkpoint)
    games = -(-games // n) * n
    workers = max(1, min(workers or os.cpu_count() or 1, games))
    chunk = max(1, min(50, games // (workers * 4) or 1))
    jobs = [
        (lineup, config, seed, range(start, min(start + chunk, games)), trust_checkpoint)
        for start in range(0, games, chunk)
    ]
    results: list[tuple[int, dict[str, Any]]] = []
    bar = _progress(games, progress, f"{n}p " + " ".join(specs.label(s) for s in lineup))
    if workers == 1:
        for job in jobs:
            part = _play_chunk(job)
            results += part
            bar(len(part))
    else:
        # A zip loads torch, whose thread pools do not survive a fork: spawn fresh workers then.
        spawn = not all(specs.is_safe(spec) for spec in lineup)
        context = multiprocessing.get_context("spawn") if spawn else None
        with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_one_thread) as pool:
            for part in pool.map(_play_chunk, jobs):
                results += part
                bar(len(part))
    bar(0, close=True)
    results.sort(key=lambda item: item[0])
    per_game: dict[str, list[list[float]]] = {m: [[] for _ in range(n)] for m in METRICS}
    for _, record in results:
        for seat, index in enumerate(record["seating"]):
            for m in METRICS:
                per_game[m][index].append(record[m][seat])
    rounds = float(np.mean([record["rounds"] for _, record in results]))
    return TournamentResult(list(lineup), config, games, seed, per_game, rounds)


def _one_thread() -> None:
    """Workers play one decision at a time: torch's thread pools (when a checkpoint loads it) would
    only oversubscribe the cores the other workers use."""
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"


def _positive_games(games: Any) -> int:
    try:
        count = -1 if isinstance(games, bool) else operator.index(games)
    except TypeError:
        count = -1
    if count <= 0:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    return count


def _progress(total: int, enabled: bool, description: str) -> Callable[..., None]:
    if not enabled:
        return lambda k, close=False: None
    try:
        from tqdm import tqdm
    except ImportError:  # a plain counter on stderr
        import sys

        done = [0]

        def plain(k: int, close: bool = False) -> None:
            done[0] += k
            end = "\n" if close else "\r"
            print(f"{description}: {done[0]}/{total} games", end=end, file=sys.stderr, flush=True)

        return plain
    handle = tqdm(total=total, desc=description, unit="game")

    def update(k: int, close: bool = False) -> None:
        handle.update(k)
        if close:
            handle.close()

    return update


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
        return [{m: Stat.of(values[m]) for m in METRICS} for values in pooled]

    def ranking(self) -> str:
        stats = self.pooled()
        order = sorted(range(len(self.players)), key=lambda k: -stats[k]["win"].mean)
        games = sum(r.games for r in self.results)
        rows = [
            f"{self.num_players} players, {len(self.results)} table(s), {games} games",
            "",
            "| rank | player | win rate | points | gold | white | black | chief caught (per round) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for rank, k in enumerate(order, 1):
            label = specs.label(self.players[k])
            rows.append(f"| {rank} | {label} | " + " | ".join(str(stats[k][m]) for m in METRICS) + " |")
        return "\n".join(rows)

    def to_json(self) -> dict[str, Any]:
        stats = self.pooled()
        return {
            "num_players": self.num_players,
            "players": [specs.label(p) for p in self.players],
            "pooled": [{m: {"mean": s[m].mean, "ci95": [s[m].low, s[m].high]} for m in METRICS} for s in stats],
            "tables": [r.to_json() for r in self.results],
        }


def round_robin(
    players: Sequence[PlayerSpec],
    num_players: int,
    games: int,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    workers: int | None = None,
    progress: bool = False,
    trust_checkpoint: bool = False,
) -> RoundRobinResult:
    """Every table of ``num_players`` distinct players from the list, ``games`` games in all.

    With exactly ``num_players`` players that is one table; with more, each combination gets an
    equal share of the games (rounded up), so every player meets every other equally often.
    """
    players = list(players)
    labels = [specs.label(p) for p in players]
    if len(set(labels)) != len(labels):
        raise ValueError(f"round-robin players must be distinct, got {labels}")
    if len(players) < num_players:
        raise ValueError(f"a {num_players}-player round robin needs at least {num_players} players, got {len(players)}")
    games = _positive_games(games)
    for spec in players:  # before any table is played
        specs.validate(spec, trust_checkpoint=trust_checkpoint)
    tables = list(combinations(players, num_players))
    per_table = -(-games // len(tables))
    results = [
        run_tournament(
            table,
            per_table,
            seed=derive_seed(seed, "table", t),
            config=config,
            workers=workers,
            progress=progress,
            trust_checkpoint=trust_checkpoint,
        )
        for t, table in enumerate(tables)
    ]
    return RoundRobinResult(players, num_players, results)
