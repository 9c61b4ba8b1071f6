"""The games a browser plays and the replays it watches, held by the server.

Everything a request may change goes through :class:`Tables`, which checks it first: a bad value is
a :class:`RequestError` naming the field and the accepted values, raised before anything changes.
The page names players, games and replays by what the server offers (registered players, the
agent files given to ``ckc-serve``, the replay files it loaded): it never gives a file path.
"""

from __future__ import annotations

import base64
import io
import secrets
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import picture
from ..agents import REGISTRY, Agent
from ..config import MAX_PLAYERS, MIN_PLAYERS, GameConfig
from ..engine.actions import KEEP, SWAP, action_to_string
from ..engine.chance import SEED_LIMIT
from ..engine.state import GameState
from ..files import short
from ..observation import OBSERVATION
from ..players import resolve
from ..seeding import derive_seed
from ..table.scalar import Table
from ..terminal.replay import Replay

MAX_GAMES = 16
"""Games held at once; the one left alone longest is dropped for a new one."""
MAX_REPLAYS = 200
"""Replay files loaded at start; the games finished here are kept as replays too, the last
:data:`MAX_GAMES` of them."""


class RequestError(ValueError):
    """A request the server refuses, with the reason (HTTP 400, or ``status``)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def png(frame: np.ndarray) -> str:
    """A picture as a ``data:`` URL the page shows as it is."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(frame).save(out, format="PNG", optimize=False, compress_level=3)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def choice_label(action: int, seat: int, n: int) -> str:
    """A legal action as a button says it (a swap names the player, not a seat offset)."""
    if SWAP <= action < SWAP + MAX_PLAYERS - 1:
        return f"swap with player_{(seat + action - SWAP + 1) % n}"
    if action == KEEP:
        return "keep your Cafe Adler chip"
    return action_to_string(action)


@dataclass
class Game:
    """A person at ``seat`` against computer players; its actions kept as a replay."""

    table: Table
    seat: int
    agents: list[Agent | None]
    replay: Replay
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def game(self) -> GameState:
        return self.table.game

    def advance(self) -> None:
        """The computer players decide until it is the person's turn or the game is over."""
        self.table.play(self.agents, (self.seat,), [0.0] * self.table.n, self.replay.actions)
        game = self.game
        if game.game_over and not self.replay.finished:
            self.replay.finished = True
            self.replay.result = {key: game.final[key] for key in ("totals", "gold", "winners", "reasons")}

    def view(self, game_id: str) -> dict[str, Any]:
        game = self.game
        n = game.n
        mine = not game.game_over and game.current_seat == self.seat
        legal = self.table.legal_actions() if mine else []
        return {
            "game": game_id,
            "seat": self.seat,
            "players": self.replay.players,
            "picture": png(picture.draw(game, self.seat)),
            "choices": [{"action": a, "label": choice_label(a, self.seat, n)} for a in legal],
            "over": bool(game.game_over),
            "result": _result(game, self.seat) if game.game_over else None,
            "decisions": len(self.replay.actions),
        }


def _result(game: GameState, seat: int) -> str:
    winners = game.final["winners"]
    totals = ", ".join(f"player_{s} {t}" for s, t in enumerate(game.final["totals"]))
    who = "you win" if winners == [seat] else "you share the win" if seat in winners else "you lose"
    return f"game over: {who} (totals: {totals})"


class Tables:
    """The server's games and replays (one lock for the registry, one per game)."""

    def __init__(self, agent_files: Sequence[str] = (), replays: Sequence[Path] = (), trust_checkpoint: bool = False):
        # every player checked and loaded once, at start (a bad file stops the command); a game
        # builds its seats from these, so no file is read again while the server runs
        self.loaded = {name: resolve(name, trust_checkpoint) for name in [*sorted(REGISTRY), *agent_files]}
        for player in self.loaded.values():
            player.require_extras()
        self.players = list(self.loaded)
        self.replays: OrderedDict[int, tuple[str, Replay]] = OrderedDict()
        self._finished: list[int] = []  # the replays of games finished here, oldest first
        for path in list(replays)[:MAX_REPLAYS]:
            replay = Replay.load(path)
            replay.check()
            self.replays[len(self.replays)] = (Path(path).name, replay)
        self._next_replay = len(self.replays)
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.lock = threading.Lock()
        self._states: dict[int, list[GameState]] = {}  # a replay's states, by its id, once asked for

    # ------------------------------------------------------------------ what the page may choose from
    def options(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "counts": list(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
            "replays": [self._replay_entry(k, name, r) for k, (name, r) in list(self.replays.items())],
        }

    @staticmethod
    def _replay_entry(k: int, name: str, replay: Replay) -> dict[str, Any]:
        return {"id": k, "name": name, "players": replay.players, "steps": len(replay.actions)}

    # ------------------------------------------------------------------ games
    def new_game(self, request: dict[str, Any]) -> dict[str, Any]:
        known = {"players", "seat", "opponents", "stasi", "cafe_adler", "seed"}
        _keys(request, known)
        n = _integer(request.get("players", 4), "players", MIN_PLAYERS, MAX_PLAYERS)
        seat = _integer(request.get("seat", 0), "seat", 0, n - 1)
        opponents = request.get("opponents", ["bayes_v1"] * (n - 1))
        if not isinstance(opponents, list) or len(opponents) != n - 1:
            raise RequestError(f"opponents must be a list of {n - 1} players, one for each other seat")
        for name in opponents:
            if name not in self.players:
                raise RequestError(f"unknown player {short(name)}: the players here are {self.players}")
        variants = {key: _flag(request.get(key, False), key) for key in ("stasi", "cafe_adler")}
        seed = request.get("seed")
        seed = secrets.randbelow(2**63) if seed is None else _integer(seed, "seed", 0, SEED_LIMIT - 1)
        config = GameConfig(num_players=n, **variants)
        labels, agents = [], []
        others = iter(opponents)
        for s in range(n):
            if s == seat:
                labels.append("you")
                agents.append(None)
                continue
            name = next(others)
            agent = self.loaded[name].scalar(derive_seed(seed, "agent", s))
            agent.reset(s, config)
            labels.append(name)
            agents.append(agent)
        table = Table(config, OBSERVATION)
        table.deal(seed)
        game = Game(table, seat, agents, Replay(config, seed, labels))
        game.advance()
        game_id = secrets.token_hex(8)
        with self.lock:
            while len(self.games) >= MAX_GAMES:
                self.games.popitem(last=False)
            self.games[game_id] = game
        return game.view(game_id)

    def game(self, game_id: str) -> Game:
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise RequestError(f"no game {short(game_id)} here (games left alone longest are dropped)", 404)
            self.games.move_to_end(game_id)
        return game

    def show(self, game_id: str) -> dict[str, Any]:
        game = self.game(game_id)
        with game.lock:
            return game.view(game_id)

    def act(self, game_id: str, request: dict[str, Any]) -> dict[str, Any]:
        _keys(request, {"action"})
        game = self.game(game_id)
        with game.lock:
            if game.game.game_over:
                raise RequestError("the game is over: start a new one")
            legal = game.table.legal_actions()
            action = request.get("action")
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                raise RequestError(f"action {short(action)} is not legal now: the legal actions are {legal}")
            game.table.apply(action)
            game.replay.actions.append(action)
            game.advance()
            if game.game.game_over:
                self._keep_replay(f"your game {game_id[:6]}", game.replay)
            return game.view(game_id)

    def _keep_replay(self, name: str, replay: Replay) -> None:
        """A game finished here can be watched again; the oldest of them goes past MAX_GAMES."""
        with self.lock:
            self.replays[self._next_replay] = (name, replay)
            self._finished.append(self._next_replay)
            self._next_replay += 1
            while len(self._finished) > MAX_GAMES:
                gone = self._finished.pop(0)
                self.replays.pop(gone, None)
                self._states.pop(gone, None)

    # ------------------------------------------------------------------ replays
    def replay_step(self, replay_id: Any, step: Any, seat: Any) -> dict[str, Any]:
        with self.lock:
            k = replay_id if isinstance(replay_id, int) else -1
            entry = self.replays.get(k)
            if entry is None:
                raise RequestError(f"no replay {short(replay_id)} here: the replays are {list(self.replays)}", 404)
            name, replay = entry
        n = replay.config.num_players
        last = len(replay.actions)
        step = _integer(step, "step", 0, last)
        seat = None if seat in (None, "", "spectator") else _integer(seat, "seat", 0, n - 1)
        states = self._states.get(k)
        if states is None:
            states = [state.copy() for _, state in replay.states(name)]
            with self.lock:
                if k in self.replays:
                    self._states[k] = states
        state = states[step]
        acted = replay.actions[step] if step < last else None
        return {
            **self._replay_entry(k, name, replay),
            "step": step,
            "seat": seat,
            "picture": png(picture.draw(state, seat)),
            "next": None
            if acted is None
            else f"player_{state.current_seat} ({replay.players[state.current_seat]}): "
            + choice_label(acted, state.current_seat, n),
        }


def _keys(request: Any, known: set[str]) -> None:
    if not isinstance(request, dict):
        raise RequestError(f"the request must be a JSON object with keys from {sorted(known)}")
    unknown = sorted(set(request) - known)
    if unknown:
        raise RequestError(f"unknown keys {unknown}: accepted keys are {sorted(known)}")


def _integer(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RequestError(f"{name} must be an integer from {low} to {high}, got {short(value)}")
    return value


def _flag(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise RequestError(f"{name} must be true or false, got {short(value)}")
    return value
