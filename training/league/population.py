"""Self-play against a population of tables on the batched engine: prioritised fictitious self-play.

A config's ``population`` section (training/config.py) lists the members: opponents tables
(``[bayes_v1]``, ``[bayes_v2]``, ``[checkpoints/ppo_5p_vector]``, ...) and ``self``, which stands for
the learner's frozen snapshots (``self_play.snapshot_every``, the ``keep`` latest, saved by
``training/self_play.py``'s ``save_snapshot``), each snapshot a member of its own at a table of that
snapshot (none before the first; a population of ``self`` alone plays ``random`` until then).

:class:`League` keeps each member's running win rate ``p``: every finished game against it moves ``p``
by ``1/horizon`` of the way to the learner's win share in it (``final_info["win_share"]``, the member
from ``final_info["opponents"]``), starting at the fair share (1/n, averaged over the player counts).
The sampling weights (:func:`member_weights`) are, with ``scheme: pfsp`` (AlphaStar's prioritised
fictitious self-play), each member's prior weight times ``max(floor, (1 - p) ** power)``: the tables
the learner beats least come most often, and no member starves; with ``scheme: uniform``, the prior
weights alone. Every ``refresh_every`` steps and at every snapshot the league hands the vector
environment its members and weights (``set_population``, taking effect at each slot's next deal) and
writes ``<run>/population.json``: each member's name, table, win rate, games, weight and probability.
``--resume`` reads that file back, so a resumed run goes on with its members' win rates.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ckc_env.files import InputError, read_json, short, write_atomic
from ckc_env.players import specs

from ..config import TrainConfig
from ..config.limits import MAX_TIMESTEPS

PLACEHOLDER = "random"
"""The table of a population of ``self`` alone before the first snapshot (as the scalar path's ``self`` seats)."""


def member_weights(
    win_rates: np.ndarray, scheme: str = "pfsp", power: float = 2.0, floor: float = 0.05, priors: Any = None
) -> np.ndarray:
    """Each member's sampling weight (not normalised): ``priors * max(floor, (1 - p) ** power)``
    for ``pfsp``, the priors alone for ``uniform`` (priors default to 1 each)."""
    win_rates = np.asarray(win_rates, dtype=np.float64)
    priors = np.ones(len(win_rates)) if priors is None else np.asarray(priors, dtype=np.float64)
    if scheme == "uniform":
        return priors.copy()
    if scheme != "pfsp":
        raise ValueError(f"invalid scheme={scheme!r}: accepted values are pfsp, uniform")
    return priors * np.maximum(floor, (1.0 - np.clip(win_rates, 0.0, 1.0)) ** power)


def member_name(table: Any) -> str:
    """A member's readable name: its specs' labels (``bayes_v1``, ``[bayes_v1, random, ...]``)."""
    if isinstance(table, dict) and all(isinstance(k, int) for k in table):
        return "{" + ", ".join(f"{n}: {member_name(t)}" for n, t in table.items()) + "}"
    if isinstance(table, list):
        labels = [specs.label(spec) for spec in table]
        return labels[0] if len(labels) == 1 else "[" + ", ".join(labels) + "]"
    return specs.label(table)


def fair_share(config: TrainConfig) -> float:
    """The win share of a seat at an even table, averaged over the player counts."""
    return float(np.mean([1.0 / n for n in config.player_counts]))


def tables_only(config: TrainConfig) -> dict[str, Any]:
    """The vector environment's population arguments from the config's tables alone (no snapshots,
    prior weights): for the pretraining teacher's games, before any snapshot exists."""
    population = config.population
    members = population.tables or [PLACEHOLDER]
    priors = population.weights or [1.0] * len(population.members)
    weights = [w for member, w in zip(population.members, priors, strict=True) if member != specs.SELF]
    if not population.tables or not sum(weights) > 0:
        weights = [1.0] * len(members)
    return {"population": members, "population_weights": weights}


@dataclass
class Member:
    name: str
    opponents: Any  # the table as the vector environment takes it
    prior: float
    self_play: bool = False
    win_rate: float = 0.0
    games: int = 0


class League:
    """The population of a run: its members' win rates, their weights, and the run's
    ``population.json`` (read back when it exists, as on ``--resume``)."""

    def __init__(self, config: TrainConfig, run_dir: Path) -> None:
        self.config = config
        self.settings = config.population
        self.snapshot_dir = Path(run_dir) / "snapshots"
        self.path = Path(run_dir) / "population.json"
        self.fair = fair_share(config)
        self.alpha = 1.0 / self.settings.horizon
        self.known: dict[str, tuple[float, int]] = self._read()  # name -> (win rate, games)
        self.members: list[Member] = []
        self.next_refresh = 0  # the first step refreshes (and writes the file)
        self._scan()

    # ------------------------------------------------------------------ the members
    def _scan(self) -> None:
        """The members now: the tables in the config's order, ``self`` as the snapshots on disk."""
        priors = self.settings.weights or [1.0] * len(self.settings.members)
        previous = {m.name: m for m in self.members}
        members = []
        for entry, prior in zip(self.settings.members, priors, strict=True):
            if entry != specs.SELF:
                members.append(Member(member_name(entry), entry, prior))
                continue
            for path in sorted(self.snapshot_dir.glob("snapshot_*.json")):
                spec = {"name": str(path), "deterministic": False}  # sampling, as the scalar path's snapshots
                members.append(Member(f"self:{path.stem}", [spec], prior, self_play=True))
        if not members:  # self alone, before the first snapshot
            members.append(Member(f"self:{PLACEHOLDER}", [PLACEHOLDER], 1.0, self_play=True))
        for member in members:
            if member.name in previous:
                member.win_rate, member.games = previous[member.name].win_rate, previous[member.name].games
            else:
                member.win_rate, member.games = self.known.get(member.name, (self.fair, 0))
        self.members = members

    def weights(self) -> np.ndarray:
        """The members' sampling probabilities (all members of prior 0: equal ones)."""
        raw = member_weights(
            np.array([m.win_rate for m in self.members]),
            self.settings.scheme,
            self.settings.power,
            self.settings.floor,
            [m.prior for m in self.members],
        )
        if not raw.sum() > 0:
            raw = np.ones(len(self.members))
        return raw / raw.sum()

    def env_kwargs(self) -> dict[str, Any]:
        """The vector environment's ``population`` and ``population_weights``."""
        return {"population": [m.opponents for m in self.members], "population_weights": list(self.weights())}

    # ------------------------------------------------------------------ during training
    def record(self, infos: list[dict[str, Any]], dones: np.ndarray) -> None:
        """The finished games of one step (SB3's per-slot infos): each member's win rate moves by
        ``1/horizon`` per game towards the learner's win share in it (a game against a member the
        population has since dropped, ``opponents`` -1, counts for none)."""
        by_member: dict[int, list[float]] = {}
        for b in np.flatnonzero(dones):
            info = infos[b]
            member = info.get("opponents", -1)
            if 0 <= member < len(self.members) and "win_share" in info:
                by_member.setdefault(member, []).append(float(info["win_share"]))
        for index, shares in by_member.items():
            self.add_games(index, len(shares), float(np.sum(shares)))

    def add_games(self, index: int, games: int, share_sum: float) -> None:
        """``games`` finished against member ``index``, the learner's win shares in them adding up to
        ``share_sum``: its win rate moves as after that many games of their mean share."""
        if games <= 0:
            return
        member = self.members[index]
        keep = (1.0 - self.alpha) ** games  # the running mean after k games of mean share s
        member.win_rate = keep * member.win_rate + (1.0 - keep) * share_sum / games
        member.games += games

    def on_step(self, callback) -> None:
        """The callback's step: record the finished games; at a refresh, send the members and
        weights to the environment and write ``population.json``."""
        self.record(callback.locals.get("infos", []), np.asarray(callback.locals.get("dones", [])))
        steps = callback.num_timesteps
        if steps >= self.next_refresh:
            self.refresh(callback.training_env, steps)
            for tag, value in self.figures().items():
                callback.logger.record(tag, value)

    def figures(self) -> dict[str, float]:
        """The log's population figures: how many members, the win rate against each table and the
        mean one against the snapshots."""
        out = {"population/members": float(len(self.members))}
        for member in self.members:
            if not member.self_play:
                out[f"population/win_rate_{member.name}"] = member.win_rate
        selves = [m.win_rate for m in self.members if m.self_play]
        if selves:
            out["population/win_rate_self"] = float(np.mean(selves))
        return out

    def refresh(self, env, steps: int) -> None:
        """Rescan the snapshots, hand the environment the members and weights, write the record."""
        self.update(steps)
        kwargs = self.env_kwargs()
        env.env_method("set_population", kwargs["population"], kwargs["population_weights"])

    def update(self, steps: int) -> None:
        """Rescan the snapshots and write the record; the next refresh is due after ``refresh_every``
        steps or at the next snapshot, whichever comes first."""
        self._scan()
        self.write(steps)
        after = [self.settings.refresh_every]
        if self.config.uses_self_play:
            after.append(self.config.self_play.snapshot_every)
        self.next_refresh = min((steps // every + 1) * every for every in after)

    # ------------------------------------------------------------------ the record
    def entries(self) -> list[dict[str, Any]]:
        """The members as the record lists them: name, table, win rate, games and probability."""
        return [
            {
                "name": m.name,
                "opponents": m.opponents,
                "self_play": m.self_play,
                "prior": m.prior,
                "win_rate": m.win_rate,
                "games": m.games,
                "probability": float(w),
            }
            for m, w in zip(self.members, self.weights(), strict=True)
        ]

    def write(self, steps: int) -> None:
        self.known.update({m.name: (m.win_rate, m.games) for m in self.members})
        record = {
            "timesteps": steps,
            "scheme": self.settings.scheme,
            "power": self.settings.power,
            "floor": self.settings.floor,
            "horizon": self.settings.horizon,
            "fair_share": self.fair,
            "members": self.entries(),
        }
        # the members of snapshots the run has dropped are kept by name, for a resumed run's records
        record["retired"] = [
            {"name": name, "win_rate": rate, "games": games}
            for name, (rate, games) in self.known.items()
            if name not in {m.name for m in self.members}
        ]
        write_atomic(self.path, json.dumps(record, indent=2))  # never half a file, if the run stops while writing

    def _read(self) -> dict[str, tuple[float, int]]:
        return read_record(self.path)


def read_record(path: Path) -> dict[str, tuple[float, int]]:
    """A resumed run's win rates and games by member name, from its ``population.json`` (none for a
    new run); checked before the resumed run changes anything."""
    if not os.path.lexists(path):
        return {}
    record = read_json(path, "population record")
    entries = record.get("members") if isinstance(record, dict) else None
    retired = record.get("retired", []) if isinstance(record, dict) else None
    if not isinstance(entries, list) or not isinstance(retired, list):
        raise InputError(
            f"population record {path}: members and retired are lists of members, as ckc-train writes them "
            f"(members: {short(entries)}, retired: {short(retired)})"
        )
    out = {}
    for k, entry in enumerate([*entries, *retired]):
        rate = entry.get("win_rate") if isinstance(entry, dict) else None
        games = entry.get("games") if isinstance(entry, dict) else None
        fine = (
            isinstance(entry, dict)
            and isinstance(entry.get("name"), str)
            and isinstance(rate, (int, float))
            and not isinstance(rate, bool)
            and 0.0 <= rate <= 1.0
            and isinstance(games, int)
            and not isinstance(games, bool)
            and 0 <= games <= MAX_TIMESTEPS
        )
        if not fine:
            raise InputError(
                f"population record {path}, entry {k}: a member has a name, a win_rate from 0 to 1 "
                f"and games (a count up to {MAX_TIMESTEPS:,}), as ckc-train writes them"
            )
        out[entry["name"]] = (float(rate), games)
    return out
