"""A training run's evaluations: the learner against the evaluation tables, the history they make
(``evaluations.json``), and the callback that runs them while the model learns.

Every evaluation plays the same deals with the learner in the same seats (tournaments in balanced
seatings, :mod:`ckc_env.evaluation.tournament`), so two models' per-game wins pair game by game: each
entry's ``vs_start`` and ``vs_best`` are its paired differences from the run's first model and from
the best model so far (:meth:`ckc_env.evaluation.statistics.Stat.paired`, duplicate play's
interval). The per-game wins those pairings need are kept beside the history: ``start_games.json``,
``best_games.json`` and, with ``eval.held_out``, ``start_held_out.json``.

| what | written by | read by |
|---|---|---|
| ``evaluations.json`` | :class:`Evaluations` (every ``eval.every`` steps) | :func:`load_history` (``--resume``), ``ckc-export``, ``ckc-plot run`` |
| ``start_games.json``, ``best_games.json``, ``start_held_out.json`` | :class:`Evaluations` | :func:`load_games` (``--resume``) |
| ``latest_model``, ``best_model`` | :class:`Evaluations`, through the trainer's ``save`` | ``ckc-evaluate``, the players |
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ckc_env.evaluation.statistics import Stat
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import InputError, read_json, write_atomic
from ckc_env.players import specs
from ckc_env.seeding import derive_seed

from ..config import TrainConfig
from ..config.limits import MAX_TIMESTEPS


def evaluate(
    model_path: Path,
    config: TrainConfig,
    games: int,
    seed: int,
    trust_checkpoint: bool = False,
    per_game: dict[str, list[float]] | None = None,
    tables: Sequence[str] | None = None,
    engine: str = "auto",
) -> dict[str, dict[str, Any]]:
    """The learner (a safe agent file) against each evaluation table (tournaments in balanced
    seatings, on the batched engine when every player has a batched form). With several player
    counts each table is played at every count: its entry holds ``by_count`` and the mean over the
    counts (``win_rate``, ``points``, ``chief_rate``). ``per_game``, when given, receives each
    table's per-game wins of the learner (the counts one after the other): every evaluation of a run
    plays the same deals with the learner in the same seats, so two models' lists pair game by game.
    ``tables`` names the tables to play (default all); ``engine`` is the tournaments' (``"jax"``: on
    the JAX engine, for runs trained there)."""
    out: dict[str, dict[str, Any]] = {}
    for name in config.eval.opponents if tables is None else tables:
        by_count = {}
        wins: list[float] = []
        for n in config.player_counts:
            tables_at = config.eval_tables_at(n)
            lineup = [str(model_path), *specs.for_seats(tables_at[name], n - 1)]
            # on the JAX engine every table's loop holds every table's players: one program for them all
            companions = [spec for table in tables_at.values() for spec in table] if engine == "jax" else []
            result = run_tournament(
                lineup,
                games=games,
                seed=seed,
                config=config.game_for(n),
                workers=None,
                trust_checkpoint=trust_checkpoint,
                engine=engine,
                fixed_first=True,  # the learner's seats do not depend on its file's name
                companions=companions,
            )
            by_count[n] = learner_result(result)
            wins.extend(float(w) for w in result.per_game["win"][0])
        if per_game is not None:
            per_game[name] = wins
        if len(by_count) == 1:
            out[name] = next(iter(by_count.values()))
            continue
        mean = {
            key: sum(r[key] for r in by_count.values()) / len(by_count) for key in ("win_rate", "points", "chief_rate")
        }
        out[name] = {
            **mean,
            "games": sum(r["games"] for r in by_count.values()),
            "by_count": {str(n): r for n, r in by_count.items()},
        }
    return out


def paired_difference(latest: list[float], best: list[float]) -> dict[str, Any]:
    """The latest model's win rate less the best one's over the same games, with the paired 95%
    interval (:meth:`~ckc_env.evaluation.statistics.Stat.paired`): duplicate play's variance reduction."""
    stat = Stat.paired(latest, best)
    return {"difference": stat.mean, "ci95": [stat.low, stat.high], "games": len(latest)}


def paired_by_count(latest: list[float], earlier: list[float], by_count: dict[str, Any]) -> dict[str, Any]:
    """:func:`paired_difference` at each player count of a several-count evaluation, whose per-game
    lists hold each count's games one after the other, in the order of ``by_count``."""
    out, start = {}, 0
    for n, result in by_count.items():
        stop = start + result["games"]
        out[n] = paired_difference(latest[start:stop], earlier[start:stop])
        start = stop
    return out


def paired_with(latest: list[float], earlier: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """The latest model's per-game wins paired with an earlier model's on the same games (``earlier``:
    its ``timesteps`` and ``wins``), per count too where ``result`` (the latest's) holds ``by_count``."""
    paired = {"timesteps": earlier["timesteps"], **paired_difference(latest, earlier["wins"])}
    if "by_count" in result:  # the counts' games one after the other
        paired["by_count"] = paired_by_count(latest, earlier["wins"], result["by_count"])
    return paired


def learner_result(result) -> dict[str, Any]:
    """What a training evaluation records of the learner (seat 0 of the lineup) in a tournament."""
    stat = result.stats()[0]
    return {
        "win_rate": stat["win"].mean,
        "win_ci95": [stat["win"].low, stat["win"].high],
        "points": stat["points"].mean,
        "chief_rate": stat["chief_rate"].mean,
        "games": result.games,
    }


def evaluation_record(config: TrainConfig, history: list[dict[str, Any]], timesteps: int) -> dict[str, Any] | None:
    """The evaluation of the model at ``timesteps`` as an agent card records it (None if not evaluated)."""
    for entry in history:
        if entry["timesteps"] == timesteps:
            return {"opponents": config.eval.opponents, **entry}
    return None


def first_table(config: TrainConfig) -> str:
    """The evaluation table the best model is picked on and the pairings are made on."""
    return next(iter(config.eval.opponents))


def load_history(run_dir: Path, config: TrainConfig) -> list[dict[str, Any]]:
    """A run folder's evaluation history (``evaluations.json``), read within bounds and checked for
    the fields a resumed run uses; an empty history if there is none yet."""
    path = run_dir / "evaluations.json"
    if not os.path.lexists(path):
        return []
    history = read_json(path, "evaluation history")
    table = first_table(config)
    if not isinstance(history, list):
        raise InputError(f"evaluation history {path} is not a list of evaluations")
    for k, entry in enumerate(history):
        results = entry.get("results") if isinstance(entry, dict) else None
        result = results.get(table) if isinstance(results, dict) else None
        fine = (
            isinstance(entry, dict)
            and _count(entry.get("timesteps"))
            and isinstance(result, dict)
            and _number(result.get("win_rate"))
            and _number(entry.get("elapsed_seconds", 0.0))
        )
        if not fine:
            raise InputError(
                f"evaluation history {path}, entry {k}: an evaluation has timesteps (a count), results.{table}.win_rate "
                "and elapsed_seconds (numbers), as ckc-train writes them"
            )
    return history


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TIMESTEPS


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def load_best_games(run_dir: Path, history: list[dict[str, Any]], config: TrainConfig) -> dict[str, Any] | None:
    """The best model's per-game wins on the first evaluation table (``best_games.json``), for a
    resumed run to go on pairing; None for a new run, or one whose file does not fit its history."""
    if not history:
        return None
    best = max(history, key=lambda h: h["results"][first_table(config)]["win_rate"])
    return load_games(run_dir / "best_games.json", best, config)


def load_games(path: Path, entry: dict[str, Any] | None, config: TrainConfig) -> dict[str, Any] | None:
    """A model's per-game wins on the first evaluation table, as an evaluation wrote them (``entry``:
    the history's entry of that model); None where the file is missing or does not fit the entry."""
    if entry is None or not path.is_file():
        return None
    record = read_json(path, "a model's evaluation games")
    if not isinstance(record, dict):
        return None
    wins = record.get("wins")
    if (
        record.get("timesteps") != entry["timesteps"]
        or record.get("table") != first_table(config)
        or not isinstance(wins, list)
        or not all(_number(w) for w in wins)
    ):
        return None
    return {"timesteps": entry["timesteps"], "table": first_table(config), "wins": [float(w) for w in wins]}


class Clock:
    """Wall-clock seconds of the run, across ``--resume``: a resumed run continues from its last
    evaluated model, so the time up to that evaluation (``elapsed_seconds`` in the history) plus
    this invocation's is the time that produced the model."""

    def __init__(self, before: float) -> None:
        self.before = before
        self.started = time.time()

    def elapsed(self) -> float:
        return round(self.before + time.time() - self.started, 1)


def figures(entry: dict[str, Any]) -> str:
    """An evaluation's figures as its progress line prints them: each table's win rate and interval,
    the held-out deals, and the paired differences from the start and from the best model so far."""
    text = ", ".join(
        f"{name} {r['win_rate']:.3f}"
        + (f" [{r['win_ci95'][0]:.3f}, {r['win_ci95'][1]:.3f}]" if "win_ci95" in r else "")
        for name, r in entry["results"].items()
    )
    if "held_out" in entry:
        held = entry["held_out"]
        text += f"; held-out deals {held['win_rate']:.3f}"
        if "vs_start" in held:
            low, high = held["vs_start"]["ci95"]
            text += f" (against the start {held['vs_start']['difference']:+.3f} [{low:+.3f}, {high:+.3f}])"
    if "vs_reference" in entry:
        paired = entry["vs_reference"]
        low, high = paired["ci95"]
        text += f"; against {paired['player']} in its seat {paired['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
    for key, what in (("vs_start", "the start"), ("vs_best", "the best so far")):
        if key in entry:
            paired = entry[key]
            low, high = paired["ci95"]
            text += (
                f"; against {what} (step {paired['timesteps']}) on the same games "
                f"{paired['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
            )
            if "by_count" in paired:
                text += (
                    " ("
                    + ", ".join(
                        f"{n}p {c['difference']:+.3f} [{c['ci95'][0]:+.3f}, {c['ci95'][1]:+.3f}]"
                        for n, c in paired["by_count"].items()
                    )
                    + ")"
                )
    return text


Save = Callable[..., Path]
"""The trainer's ``save(prefix, evaluation=None)``: the model as a safe agent file (and what a
resume may start from beside it), returning the agent card's path."""


REFERENCE_GAMES = "reference_games.json"


class Evaluations:
    """A run's evaluations (every trainer's: stable-baselines3's callback and the JAX trainer's): each
    :meth:`run` saves the model as ``latest_model`` through ``save``, plays the evaluation tables on
    the run's deals, pairs the first table's games with the start's and the best model's so far,
    appends the entry to ``history`` (``evaluations.json``) and keeps the best model (``best_model``).
    ``engine`` is the tournaments' (``"auto"``: the batched engine; ``"jax"``: the JAX engine)."""

    def __init__(
        self,
        config: TrainConfig,
        run_dir: Path,
        history: list[dict[str, Any]],
        clock: Clock,
        save: Save,
        trust_checkpoint: bool = False,
        engine: str = "auto",
    ) -> None:
        self.config, self.run_dir, self.history, self.clock, self.save = config, run_dir, history, clock, save
        self.trust_checkpoint, self.engine = trust_checkpoint, engine
        self.best = max((h["results"][first_table(config)]["win_rate"] for h in history), default=-1.0)
        self.best_games = load_best_games(run_dir, history, config)
        self.start_games = load_games(run_dir / "start_games.json", history[0] if history else None, config)
        self.start_held_out = load_games(run_dir / "start_held_out.json", history[0] if history else None, config)
        self.reference_games: list[float] | None = None

    def reference(self, table: str, results: dict[str, Any], wins: list[float]) -> dict[str, Any]:
        """``eval.reference`` in the learner's seat on the first table's deals, played once per run
        (``reference_games.json``; on the batched engine, which deals the same games as the JAX
        engine): its result, and its per-game wins to pair each evaluation with."""
        config, path = self.config, self.run_dir / REFERENCE_GAMES
        player = config.eval.reference
        if self.reference_games is None and path.is_file():  # a resumed run: played already, if it fits
            record = read_json(path, "the reference's evaluation games")
            kept = record.get("wins") if isinstance(record, dict) else None
            if (
                isinstance(kept, list)
                and record.get("player") == player
                and record.get("table") == table
                and len(kept) == len(wins)
                and all(_number(w) for w in kept)
            ):
                self.reference_games = [float(w) for w in kept]
        if self.reference_games is None:
            games: dict[str, list[float]] = {}
            seed = derive_seed(config.seed, "evaluation")  # the evaluations' deals, on the batched engine
            result = evaluate(player, config, config.eval.games, seed, self.trust_checkpoint, games, [table])
            self.reference_games = games[table]
            record = {"player": player, "table": table, "result": result[table], "wins": self.reference_games}
            write_atomic(path, json.dumps(record))
        earlier = {"timesteps": None, "wins": self.reference_games}
        return {"player": player, "table": table, **paired_with(wins, earlier, results[table])}

    def evaluate(self, path: Path, games: int, seed: int, per_game: dict[str, list[float]], tables=None):
        return evaluate(
            path, self.config, games, seed, self.trust_checkpoint, per_game=per_game, tables=tables, engine=self.engine
        )

    def run(self, timesteps: int, record: Callable[[str, float], None] | None = None) -> dict[str, Any]:
        """Evaluate the trainer's model (saved through ``save``) at ``timesteps``; ``record(tag, value)``
        logs the figures (TensorBoard). Returns the history's new entry."""
        config, run_dir, history = self.config, self.run_dir, self.history
        path = self.save(run_dir / "latest_model")
        started = time.time()
        seed = derive_seed(config.seed, "evaluation")
        games: dict[str, list[float]] = {}
        results = self.evaluate(path, config.eval.games, seed, games)
        table = first_table(config)
        entry = {
            "timesteps": timesteps,
            "seed": seed,
            "seconds": round(time.time() - started, 1),
            "elapsed_seconds": self.clock.elapsed(),
            "results": results,
        }
        for key, earlier in (("vs_start", self.start_games), ("vs_best", self.best_games)):
            if earlier is not None and len(earlier["wins"]) == len(games[table]):
                entry[key] = {"table": table, **paired_with(games[table], earlier, results[table])}
        if config.eval.reference is not None:
            entry["vs_reference"] = self.reference(table, results, games[table])
            entry["seconds"] = round(time.time() - started, 1)
        if config.eval.held_out:
            entry["held_out"] = self.held_out(path, table, timesteps)
            entry["seconds"] = round(time.time() - started, 1)  # both deal sets
        if not history:  # the run's first model: the initial (or cloned) policy
            self.start_games = {"timesteps": timesteps, "table": table, "wins": games[table]}
            write_atomic(run_dir / "start_games.json", json.dumps(self.start_games))
        history.append(entry)
        write_atomic(run_dir / "evaluations.json", json.dumps(history, indent=2))
        print(
            f"step {timesteps}/{config.total_timesteps} ({self.clock.elapsed():.0f} s): win rate {figures(entry)}",
            flush=True,  # a progress line also when the output is a file or a pipe
        )
        for name, result in results.items() if record is not None else ():
            record(f"eval/win_rate_{name}", result["win_rate"])
            record(f"eval/points_{name}", result["points"])
            for n, by_count in result.get("by_count", {}).items():
                record(f"eval/win_rate_{name}_{n}p", by_count["win_rate"])
        score = results[table]["win_rate"]
        if score > self.best:  # on the same games: the paired difference is above 0
            self.best = score
            self.best_games = {"timesteps": timesteps, "table": table, "wins": games[table]}
            write_atomic(run_dir / "best_games.json", json.dumps(self.best_games))
            self.save(run_dir / "best_model", evaluation_record(config, history, timesteps))
        return entry

    def held_out(self, path: Path, table: str, timesteps: int) -> dict[str, Any]:
        """The first table on ``eval.held_out`` other deals per count, which the pick of the best
        model never sees, paired with the start's games there (``start_held_out.json``)."""
        config = self.config
        seed = derive_seed(config.seed, "held_out")
        games: dict[str, list[float]] = {}
        result = self.evaluate(path, config.eval.held_out, seed, games, tables=[table])
        held = {"table": table, "seed": seed, **result[table]}
        wins = games[table]
        if not self.history:
            self.start_held_out = {"timesteps": timesteps, "table": table, "wins": wins}
            write_atomic(self.run_dir / "start_held_out.json", json.dumps(self.start_held_out))
        elif self.start_held_out is not None and len(self.start_held_out["wins"]) == len(wins):
            held["vs_start"] = paired_with(wins, self.start_held_out, result[table])
        return held
