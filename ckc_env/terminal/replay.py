"""Replay files: a game as JSON, its rules, its seed and its actions, enough to play it again exactly.

The game is a function of its config, its seed and its actions (RULES.md 9), so a replay needs no
more. The file also names the players and, once the game is over, the result, for the reader:

```json
{"format": "ckc-replay", "version": 1, "env": "checkpoint_charlie_v2",
 "config": {"num_players": 4, ...every GameConfig field...}, "seed": 7,
 "players": ["human", "bayes_v1", "eager", "random"], "actions": [0, 13, 0, ...],
 "finished": true, "result": {"totals": [...], "gold": [...], "winners": [...], "reasons": [...]}}
```

Loading checks the seed (0 to 2**64 - 1) and that every action is one of the 40 (a ValueError
naming the file, the step and the action otherwise). ``Replay.states()`` replays it through the
engine, checking every action, and yields the state before each decision; a file that does not fit
the engine (an illegal action, an action after the game's end, a result that differs) raises
``ValueError`` naming the file, the step and the legal actions. ``Replay.check()`` replays it whole
(``ckc-play --replay`` does, before it shows the first step).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import engine
from ..config import GameConfig
from ..engine.actions import N_ACTIONS
from ..engine.chance import SEED_LIMIT
from ..engine.state import GameState
from ..files import read_json, short, write_atomic

FORMAT = "ckc-replay"
VERSION = 1
ENV = "checkpoint_charlie_v2"
MAX_NAME = 500
"""The longest player name a replay file may hold (names are shown with control characters escaped)."""


@dataclass
class Replay:
    config: GameConfig
    seed: int
    players: list[str]
    actions: list[int] = field(default_factory=list)
    finished: bool = False
    result: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "env": ENV,
            "config": self.config.to_dict(),
            "seed": self.seed,
            "players": self.players,
            "actions": self.actions,
            "finished": self.finished,
            "result": self.result,
        }

    def save(self, path: str | Path) -> Path:
        """Write the replay whole (a temporary file renamed over ``path``: a link there is replaced,
        never written through); its folder is made."""
        path = Path(path)
        write_atomic(path, json.dumps(self.to_json(), indent=1))
        return path

    @classmethod
    def from_json(cls, data: Any, source: str = "replay") -> Replay:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"{source} is not a replay file: it must be a JSON object with format {FORMAT!r}")
        if data.get("version") != VERSION:
            raise ValueError(
                f"{source}: replay version {short(data.get('version'))} is not supported (this is {VERSION})"
            )
        if data.get("env", ENV) != ENV:
            raise ValueError(
                f"{source} records a game of {short(data.get('env'))}; this version plays {ENV}, whose seeds deal "
                "other games (the env card's version history): replay it with the version that wrote it"
            )
        missing = [k for k in ("config", "seed", "players", "actions") if k not in data]
        if missing:
            raise ValueError(f"{source}: missing key(s) {missing}")
        try:
            config = GameConfig.from_dict(data["config"])
        except ValueError as exc:
            raise ValueError(f"{source}: {exc}") from None
        seed, actions, players = data["seed"], data["actions"], data["players"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
            raise ValueError(f"{source}: seed must be an integer from 0 to 2**64 - 1, got {short(seed)}")
        if not isinstance(actions, list):
            raise ValueError(f"{source}: actions must be a list of integers from 0 to {N_ACTIONS - 1}")
        for step, action in enumerate(actions, 1):
            if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < N_ACTIONS:
                raise ValueError(
                    f"{source}: step {step} of {len(actions)} has action {short(action)}: actions are integers "
                    f"from 0 to {N_ACTIONS - 1}"
                )
        if (
            not isinstance(players, list)
            or len(players) != config.num_players
            or not all(isinstance(p, str) and len(p) <= MAX_NAME for p in players)
        ):
            raise ValueError(
                f"{source}: players must name the {config.num_players} seats, each a text of at most {MAX_NAME} characters"
            )
        result = data.get("result")
        if result is not None and not (
            isinstance(result, dict) and all(isinstance(result.get(k, []), list) for k in ("totals", "winners"))
        ):
            raise ValueError(f"{source}: result must be null or a mapping whose totals and winners are lists")
        return cls(config, seed, players, actions, bool(data.get("finished")), result)

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        path = Path(path)
        return cls.from_json(read_json(path, "replay file"), str(path))

    def check(self, source: str = "replay") -> None:
        """Replay the whole game: a ValueError names the file, the first step whose action is not
        legal (with the legal actions), or a result that differs from the recorded one."""
        for _ in self.states(source):
            pass

    def states(self, source: str = "replay") -> Iterator[tuple[int, GameState]]:
        """``(step, state)`` before each recorded action, then ``(len(actions), final state)``.

        The same state object is advanced in place: copy what you keep."""
        state = engine.init(self.config, seed=self.seed)
        for step, action in enumerate(self.actions):
            yield step, state
            if state.game_over:
                raise ValueError(
                    f"{source}: step {step + 1} of {len(self.actions)} has action {short(action)}, but the game "
                    f"ended after step {step}: a finished game takes no more actions"
                )
            try:
                engine.step(state, action)
            except ValueError as exc:
                raise ValueError(f"{source}: step {step + 1} does not fit the game: {exc}") from None
        yield len(self.actions), state
        if self.finished and self.result is not None and state.final is not None:
            for key in ("totals", "winners"):
                if key in self.result and list(self.result[key]) != list(state.final[key]):
                    raise ValueError(
                        f"{source}: the replayed game ends with {key} {state.final[key]}, not {self.result[key]}"
                    )
