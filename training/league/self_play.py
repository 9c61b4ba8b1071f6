"""Self-play league: frozen snapshots of the learner as opponents.

Every ``self_play.snapshot_every`` steps the learner is saved into ``<run>/snapshots/`` as a safe
agent file (``snapshot_<steps>.json`` and ``.safetensors``: snapshots are played, never resumed,
so no zip is kept and nothing there is unpickled), keeping the ``keep`` latest. A ``"self"`` opponent draws one snapshot at random at the start of every
game (a league of recent selves rather than the newest one only, which keeps the learner from
chasing its own tail). Until the first snapshot exists, ``"self"`` seats play uniformly at random.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ckc_env.agents import Agent, RandomAgent
from ckc_env.config import GameConfig
from ckc_env.engine.view import PlayerView
from ckc_env.files import remove_file
from ckc_env.players.agent_file import save_sb3
from ckc_env.players.policy import PolicyAgent
from ckc_env.players.specs import SELF
from ckc_env.seeding import derive_seed


class SnapshotOpponent(Agent):
    name = SELF

    def __init__(self, snapshot_dir: Path, seed: int | None = None) -> None:
        super().__init__(seed)
        self.snapshot_dir = Path(snapshot_dir)
        self.fallback = RandomAgent(seed=seed)
        self.current: Agent = self.fallback

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        snapshots = sorted(self.snapshot_dir.glob("snapshot_*.json"))
        if snapshots:
            self.current = PolicyAgent(snapshots[int(self.rng.integers(len(snapshots)))], deterministic=False)
        else:
            self.current = self.fallback
        self.current.reset(seat, config)

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        return self.current.act(view, observation)


class SnapshotOpponents:
    @staticmethod
    def specs(opponents: list[Any], snapshot_dir: Path | None, seed: int) -> list[Any]:
        """The opponents with every ``"self"`` replaced by a snapshot-drawing agent."""
        out = []
        for k, spec in enumerate(opponents):
            name = spec.get("name") if isinstance(spec, dict) else spec
            out.append(SnapshotOpponent(snapshot_dir, seed=derive_seed(seed, "seat", k)) if name == SELF else spec)
        return out


def save_snapshot(model, snapshot_dir: Path, timesteps: int, keep: int, players: list[int]) -> Path:
    """Freeze the learner as ``snapshot_<timesteps>.json`` + ``.safetensors``; drop all but the ``keep`` latest."""
    path = save_sb3(model, snapshot_dir / f"snapshot_{timesteps:012d}", players=players)
    for old in sorted(snapshot_dir.glob("snapshot_*.json"))[:-keep]:  # never through a link (files.remove_file)
        remove_file(old.with_suffix(".safetensors"))
        remove_file(old)
    return path
