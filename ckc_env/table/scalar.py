"""A game on the scalar engine as every front sees it: dealt from a seed, observed in a layout,
stepped with checked actions, rewarded by a scheme, and the loop that lets the players at the
other seats decide.

The AEC environment, the single-agent view, the RLlib environment and the tournaments each hold a
:class:`Table` and add only their own bookkeeping; none of them builds another front.
"""

from __future__ import annotations

import copy
from collections.abc import Container, Sequence

import numpy as np

from .. import engine
from ..agents.base import Agent, LazyObservation
from ..config import GameConfig
from ..engine.actions import N_ACTIONS, action_to_string
from ..engine.state import GameState
from ..engine.view import PlayerView
from ..files import short
from ..layout import Layout
from ..observation import TableReading, encoder
from . import rewards


class Table:
    """One game at a time under ``config``, observed in ``layout``, rewarded by the scheme ``reward``
    (a name or a :class:`~ckc_env.table.rewards.Scheme`)."""

    def __init__(self, config: GameConfig, layout: Layout, reward: str | rewards.Scheme = "points") -> None:
        self.config = config
        self.n = config.num_players
        self.layout = layout
        self.scheme = rewards.scheme(reward)
        self._encoder = encoder(layout, config)
        self._players_posterior = layout.offsets.get("players_chief") is not None
        self.game: GameState | None = None
        self.views: list[PlayerView] = []
        self._readers: list = []
        self._empty_mask = np.zeros(N_ACTIONS, dtype=np.int8)

    # ------------------------------------------------------------------ a game
    def deal(self, seed: int | None, options: dict | None = None) -> GameState:
        """A new game from ``seed`` (reset ``options`` fix parts of the deal), at its first decision."""
        self.game = game = engine.init(self.config, seed=seed, options=options)
        self.views = [PlayerView(game, seat) for seat in range(self.n)]
        if self._players_posterior:
            self._readers = [TableReading(s) for s in range(self.n)]
        engine.pop_rewards(game)
        return game

    def branch(self) -> Table:
        """Another table on a copy of this game, its seats' readings copied too: to play a position
        on without touching it (a look-ahead, a bound)."""
        other = Table(self.config, self.layout, self.scheme)
        other.game = self.game.copy()
        other.views = [PlayerView(other.game, seat) for seat in range(self.n)]
        other._readers = copy.deepcopy(self._readers)
        return other

    @property
    def over(self) -> bool:
        return self.game.game_over

    @property
    def seat_to_act(self) -> int:
        return self.game.current_seat

    # ------------------------------------------------------------------ what a seat sees
    def observation(self, seat: int) -> np.ndarray:
        """The seat's observation vector (only what the seat may know)."""
        return self._encoder.observation(self.views[seat], self._readers[seat] if self._readers else None)

    def action_mask(self, seat: int) -> np.ndarray:
        """The seat's legal actions as int8 (all zeros when it is not the seat to act)."""
        game = self.game
        return engine.legal_mask(game) if seat == game.current_seat else self._empty_mask.copy()

    def lazy_observation(self, seat: int) -> LazyObservation:
        """``{"observation", "action_mask"}`` built only when read (scripted players seldom read them)."""
        return LazyObservation(lambda: self.action_mask(seat), lambda: self.observation(seat))

    # ------------------------------------------------------------------ acting
    def is_legal(self, action: int) -> bool:
        return engine.is_legal(self.game, action)

    def legal_actions(self) -> list[int]:
        return engine.legal_actions(self.game)

    def legal_text(self) -> str:
        """The legal actions, numbered and named, for error messages."""
        return ", ".join(f"{a} ({action_to_string(a)})" for a in engine.legal_actions(self.game))

    def apply(self, action: int) -> list[float] | None:
        """Apply a legal action; the seats' rewards of the transition under the scheme (None if all 0)."""
        engine.apply(self.game, action)
        return self.collect()

    def collect(self) -> list[float] | None:
        """Every seat's reward from the engine's last transition under the table's scheme (None
        when no seat gets anything: most transitions)."""
        game = self.game
        return self.scheme.pay(engine.pop_rewards(game), game.final["winners"] if game.game_over else None)

    def play(
        self,
        agents: Sequence[Agent | None],
        learning: Container[int],
        earned: list[float],
        actions: list[int] | None = None,
    ) -> None:
        """The agents at the other seats decide until a seat in ``learning`` is to act or the game
        ends; each seat's rewards meanwhile are added to ``earned`` (and each action to ``actions``,
        a replay's, when given). An illegal choice is an error naming the player: scripted players
        and checked policies never make one."""
        game = self.game
        while not game.game_over and game.current_seat not in learning:
            seat = game.current_seat
            agent = agents[seat]
            action = agent.act(self.views[seat], self.lazy_observation(seat))
            if not engine.is_legal(game, action):
                raise ValueError(f"player {short(agent)} at seat {seat} chose illegal action {action}")
            engine.apply(game, action)
            if actions is not None:
                actions.append(int(action))
            gained = self.collect()
            if gained is not None:
                for s, r in enumerate(gained):
                    earned[s] += r
