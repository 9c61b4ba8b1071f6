"""OpenSpiel's bots in ckc_env's seats: :class:`OpenSpielAgent` plays any ``pyspiel.Bot`` in the
environments and the tournaments, :class:`ISMCTSAgent` OpenSpiel's information-set MCTS.

A tournament seats ISMCTS by the spec ``openspiel_ismcts`` (``{"name": "openspiel_ismcts",
"simulations": 50}``): ``ckc_env.agents`` names it as a player of the ``openspiel`` extra and
imports this module when a spec asks for it, so nothing registers on import;
:func:`register_agents` adds it to ``ckc_env.agents.REGISTRY`` too, for listings of the players.
Its parameters are checked when the spec is (:func:`check_ismcts`): ``simulations`` an integer from
1 to :data:`MAX_SIMULATIONS` (100,000), ``rollouts`` from 1 to :data:`MAX_ROLLOUTS` (100), ``uct_c``
a finite number > 0, ``reward`` a scheme of ``ckc_env.table.rewards``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ...agents.base import Agent
from ...cli import check_count
from ...config import GameConfig
from ...engine.view import PlayerView
from ...files import short
from ...resample import Uniform, resample
from ...table import rewards
from .game import CheckpointCharlieGame, CheckpointCharlieState, load

ISMCTS_NAME = "openspiel_ismcts"
MAX_SIMULATIONS = 100_000
"""The most ISMCTS simulations per decision (each resamples a world and plays it out, some 4 ms on a
core of a 3-player game's first decision: 100,000 take about 7 minutes a decision)."""
MAX_ROLLOUTS = 100
"""The most random rollouts per ISMCTS leaf."""


def state_for_seat(
    view: PlayerView, uniform: Uniform, reward: str | rewards.Scheme = "points"
) -> CheckpointCharlieState:
    """An OpenSpiel state at ``view.seat``'s decision, for a bot to search from: the game behind the
    view with everything the seat cannot see drawn afresh (``ckc_env.resample``), so the bot never
    reads a hidden fact (:meth:`~ckc_env.envs.openspiel.game.CheckpointCharlieGame.state_at`)."""
    return load(view.config, reward).state_at(resample(view._state, view.seat, uniform))


BotFactory = Callable[[CheckpointCharlieGame, int, np.random.RandomState], Any]
"""Builds a bot for a game, a seat and a random state (``pyspiel.Bot``: ``step(state) -> action``)."""


class OpenSpielAgent(Agent):
    """An OpenSpiel bot in a ckc_env seat (``Agent``: ``act(view, observation) -> action``), for the
    environment's drivers and :func:`ckc_env.evaluation.tournament.run_tournament`. At each decision
    the bot is given :func:`state_for_seat`: the game as the seat could see it, the hidden parts
    drawn afresh, so it decides on the seat's information only."""

    name = "openspiel"

    def __init__(self, make_bot: BotFactory, seed: int | None = None, reward: str | rewards.Scheme = "points") -> None:
        self.reward = rewards.scheme(reward).name
        super().__init__(seed)
        self.make_bot = make_bot
        self.random_state = np.random.RandomState(self.stream.draw() % (1 << 32))

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        self.bot = self.make_bot(load(config, self.reward), seat, self.random_state)

    def act(self, view: PlayerView, observation: Mapping[str, np.ndarray]) -> int:
        return int(self.bot.step(state_for_seat(view, self.random_state.random_sample, self.reward)))


class ISMCTSAgent(OpenSpielAgent):
    """OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) with
    random rollouts: ``simulations`` per decision, each from a world resampled from the seat's
    information set; returns by ``reward``."""

    name = ISMCTS_NAME

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = 100,
        uct_c: float = 4.0,
        rollouts: int = 1,
        reward: str = "points",
    ) -> None:
        # checked here, so that a spec's parameters are refused when the spec is validated
        self.simulations, self.uct_c, self.rollouts = check_ismcts(simulations, uct_c, rollouts)
        super().__init__(self._make_bot, seed=seed, reward=reward)

    def _make_bot(self, game: CheckpointCharlieGame, seat: int, random_state: np.random.RandomState) -> Any:
        return ismcts_bot(game, random_state, self.simulations, self.uct_c, self.rollouts)


class RandomRollouts(mcts.RandomRolloutEvaluator):
    """OpenSpiel's random-rollout evaluator (uniform legal actions, chance outcomes by their
    probabilities, to the end of the game), drawing each chance outcome with one uniform number
    rather than ``RandomState.choice``, which costs more than the rest of a chance node here (a deal
    is some 40 of them)."""

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        random_state, result = self._random_state, None
        for _ in range(self.n_rollouts):
            working = state.clone()
            while not working.is_terminal():
                if working.is_chance_node():
                    outcomes = working.chance_outcomes()
                    u, action = random_state.random_sample(), outcomes[-1][0]
                    for outcome, p in outcomes:
                        u -= p
                        if u < 0:
                            action = outcome
                            break
                    working.apply_action(action)
                else:
                    legal = working.legal_actions()
                    working.apply_action(legal[random_state.randint(len(legal))])
            returns = np.array(working.returns())
            result = returns if result is None else result + returns
        return result / self.n_rollouts


def check_ismcts(simulations: Any, uct_c: Any, rollouts: Any) -> tuple[int, float, int]:
    """ISMCTS's parameters, checked: ``simulations`` an integer from 1 to :data:`MAX_SIMULATIONS`,
    ``uct_c`` a finite number > 0, ``rollouts`` an integer from 1 to :data:`MAX_ROLLOUTS`; a
    ValueError names the parameter, its value and the accepted values."""
    simulations = check_count("simulations", simulations, 1, MAX_SIMULATIONS)
    rollouts = check_count("rollouts", rollouts, 1, MAX_ROLLOUTS)
    if (
        isinstance(uct_c, (bool, np.bool_))
        or not isinstance(uct_c, (int, float, np.integer, np.floating))
        or not math.isfinite(uct_c)
        or uct_c <= 0
    ):
        raise ValueError(f"invalid uct_c={short(uct_c)}: accepted values are finite numbers > 0")
    return simulations, float(uct_c), rollouts


def ismcts_bot(
    game: CheckpointCharlieGame,
    random_state: np.random.RandomState,
    simulations: int = 100,
    uct_c: float = 4.0,
    rollouts: int = 1,
) -> Any:
    """OpenSpiel's ``ISMCTSBot`` on this game, its worlds resampled with ``random_state`` (so a
    seeded bot decides alike run after run); the parameters are checked by :func:`check_ismcts`."""
    simulations, uct_c, rollouts = check_ismcts(simulations, uct_c, rollouts)
    evaluator = RandomRollouts(n_rollouts=rollouts, random_state=random_state)
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=evaluator,
        uct_c=uct_c,
        max_simulations=simulations,
        random_state=random_state,
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.random_sample))
    return bot


def register_agents() -> None:
    """Add :class:`ISMCTSAgent` to ``ckc_env.agents.REGISTRY`` as ``openspiel_ismcts``, for code that
    lists the registered players (a spec finds it without this: ``ckc_env.agents.agent_class``)."""
    from ...agents import REGISTRY

    REGISTRY.setdefault(ISMCTS_NAME, ISMCTSAgent)
