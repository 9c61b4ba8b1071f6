"""The OpenSpiel game: Game, State and Observer, as OpenSpiel's own Python games have them
(``open_spiel/python/games/kuhn_poker.py``), on the scalar engine. Sequential, explicit chance,
imperfect information, general-sum, rewards after every transition.

**Observations.** The observation tensor is the environment's observation vector
(``ckc_env.observation.OBSERVATION``, 736 numbers, seats relative to the observer, one named piece
per entry of the env card's table). The information state tensor is the same vector: the
observation already holds what the player knows of the current round and the chips; it does not
recall the past. The information state *string* does (``text``).

**resample_from_infostate(player, sampler)** returns a state the player cannot tell from this one
(same information state strings and tensor, same legal actions), with everything hidden drawn
afresh by ``ckc_env.resample`` from the chance model's posterior: the other seats' clues and the
bag from the exact posterior (``ckc_env.reading.beliefs``), the undrawn deck in a random order
consistent with what is known, the chips the player cannot see dealt uniformly among their places.
It is defined at decision nodes (what ISMCTS asks for), and gives a new game while the first deal is
still being made; its ``history()`` is this state's (not a history of the new world).

**Importing this module registers the game** with pyspiel (OpenSpiel's convention for Python
games) and checks its parameters on the way in: OpenSpiel turns a parameter mapping into C++ values
before the game's constructor sees it, so an integer beyond a C++ int (``{"players": 2**40}``)
would end in pybind11's bare "Unable to cast Python instance"; ``pyspiel.load_game`` is therefore
wrapped (:func:`load_game`) to check this game's parameters first, the mapping or the game string.
Other games load as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
import pyspiel

from ...config import MAX_PLAYERS, MIN_PLAYERS, GameConfig
from ...engine import game as engine
from ...engine.actions import N_ACTIONS, action_to_string
from ...engine.cards import INVESTIGATOR, N_CATS, N_FEATURES
from ...engine.chips import build_pool
from ...engine.state import GameState
from ...engine.suspicion import SEAT_ORDERS
from ...engine.view import PlayerView
from ...observation import OBSERVATION, encoder
from ...resample import Uniform, resample
from ...table import rewards
from .course import Course, settle
from .parameters import GAME_NAME, PARAMETERS, check_game_string, config_of, parameters_of
from .text import full_text, information_text, observation_text

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Checkpoint Charlie",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class CheckpointCharlieGame(pyspiel.Game):
    """The game under one set of parameters (``parameters``)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        config, scheme = config_of(params or {})
        pool = build_pool(config)
        n, k = config.num_players, config.investigator_cards
        low, high = scheme.bounds(sum(min(0, p) for p in pool.points), sum(max(0, p) for p in pool.points))
        windows = len(SEAT_ORDERS[n]) if config.window_order == "random" else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=max(windows, INVESTIGATOR + 1, len(pool)),
            num_players=n,
            min_utility=float(low),
            max_utility=float(high),
            # a round: clue faces, a window after each card, the reopened windows, forced accusations, Adler decisions
            max_game_length=config.max_rounds * (n + (N_CATS + k) * n + (n - 1) ** 2 + n + 4),
        )
        super().__init__(GAME_TYPE, info, parameters_of(config, scheme))
        self.config = config
        self.reward = scheme.name
        self._chance_nodes = len(pool) + 1 + config.max_rounds * (2 * N_FEATURES + 2 * (N_CATS + k) + 1 + 4)
        self._start = Course(config, scheme)
        settle(self._start)  # the engine asks its first question (the supply)

    def new_initial_state(self) -> CheckpointCharlieState:
        return CheckpointCharlieState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self._chance_nodes

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Mapping[str, Any] | None = None
    ) -> CheckpointCharlieObserver:
        if isinstance(iig_obs_type, Mapping):  # OpenSpiel asks with the parameters alone for the default type
            iig_obs_type, params = None, iig_obs_type
        return CheckpointCharlieObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)

    def state_at(self, world: GameState) -> CheckpointCharlieState:
        """A state at ``world``'s decision (a world drawn for a seat's information set), for a bot to
        search from: the decisions before it are not on record (the information state string starts
        from here), nor what the seats saw of chips they lost in swaps."""
        state = self.new_initial_state()
        state._course.enter(world)
        return state


class CheckpointCharlieState(pyspiel.State):
    """A game in progress: the engine's state at the last decision, and the chance question open
    (``course``)."""

    def __init__(self, game: CheckpointCharlieGame) -> None:
        super().__init__(game)
        self._course: Course = game._start.__deepcopy__({})

    # ------------------------------------------------------------------ OpenSpiel's API
    def current_player(self) -> int:
        course = self._course
        if course.question is not None:
            return pyspiel.PlayerId.CHANCE
        if course.engine.game_over:
            return pyspiel.PlayerId.TERMINAL
        return course.engine.current_seat

    def _legal_actions(self, player: int) -> list[int]:
        return engine.legal_actions(self._course.engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        course = self._course
        return course.question.outcomes(course.partial)

    def _apply_action(self, action: int) -> None:
        course = self._course
        course.rewards = [0.0] * course.config.num_players
        if course.question is not None:
            course.partial.append(int(action))
        else:
            course.action, course.answers = int(action), []
        settle(course)

    def _action_to_string(self, player: int, action: int) -> str:
        course = self._course
        if player == pyspiel.PlayerId.CHANCE:
            if course.question is None:
                return f"chance outcome {action}"
            return course.question.describe(course.partial, action)
        return action_to_string(action)

    def is_terminal(self) -> bool:
        course = self._course
        return course.question is None and course.engine.game_over

    def returns(self) -> list[float]:
        return list(self._course.returns)

    def rewards(self) -> list[float]:
        return list(self._course.rewards)

    def __str__(self) -> str:
        return full_text(self._course)

    def picture(self, player: int | None = None) -> np.ndarray:
        """What ``player`` may see of the table (None: the spectator) as an RGB image, the AEC env's
        ``render_mode="rgb_array"`` frame (the render extra: Pillow). ``__str__`` stays the whole
        state, hidden parts too, as OpenSpiel's ``ToString`` is."""
        from ...picture import draw

        return draw(self._course.engine, player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Uniform) -> CheckpointCharlieState:
        """A state ``player_id`` cannot tell from this one, everything it cannot see drawn afresh
        from the chance model's posterior (see the module docstring). At a decision node, or while
        the game is set up (a new game); at the end, a copy (every total is public then)."""
        course = self._course
        if course.engine is None:  # still setting up: nothing has been seen
            return self.get_game().new_initial_state()
        if course.question is not None:
            raise ValueError(
                "resample_from_infostate is defined at decision nodes: at a chance node the world drawn "
                "could need other chance nodes, or none, to finish the action being applied"
            )
        out = self.clone()
        course = out._course
        course.enter(resample(course.engine, player_id, probability_sampler, course.known[player_id]))
        return out

    # ------------------------------------------------------------------ for the observer
    def observation_vector(self, player: int) -> np.ndarray:
        """The environment's observation vector of ``player`` (the static part while setting up)."""
        course = self._course
        code = encoder(OBSERVATION, course.config)
        if course.engine is None:
            return code.static.copy()
        return code.observation(PlayerView(course.engine, player))

    def observation_text(self, player: int) -> str:
        return observation_text(self._course, player)

    def information_text(self, player: int) -> str:
        return information_text(self._course, player)

    @property
    def game_state(self) -> GameState | None:
        """The engine's state at the last decision (None while the game is set up): for tools and tests."""
        return self._course.engine


class CheckpointCharlieObserver:
    """OpenSpiel's Python observer: the environment's observation vector, one named piece per
    entry of the env card's table; the observation string, or with ``perfect_recall`` the
    information state string."""

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "supported observation types: the public information and the observer's own (the "
                "observation; with perfect_recall=True, the information state)"
            )
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBSERVATION.size, np.float32)
        start = OBSERVATION.offsets
        self.dict = {
            piece.name: self.tensor[start[piece.name] : start[piece.name] + math.prod(piece.shape)].reshape(piece.shape)
            for piece in OBSERVATION.pieces
        }

    def set_from(self, state: CheckpointCharlieState, player: int) -> None:
        self.tensor[:] = state.observation_vector(player)

    def string_from(self, state: CheckpointCharlieState, player: int) -> str:
        return state.information_text(player) if self.perfect_recall else state.observation_text(player)


@lru_cache(maxsize=32)
def load(config: GameConfig, reward: str | rewards.Scheme = "points") -> CheckpointCharlieGame:
    """The OpenSpiel game of a configuration (loaded once per configuration and scheme)."""
    return pyspiel.load_game(GAME_NAME, parameters_of(config, reward))


# ---------------------------------------------------------------------------------------------- registration
_LOAD_GAME = getattr(pyspiel.load_game, "__wrapped__", pyspiel.load_game)


def load_game(*args: Any, **kwargs: Any) -> Any:
    """``pyspiel.load_game``, with this game's parameters checked first (see the module docstring):
    the refusal is the constructor's (``invalid players=...: accepted values are 3, 4 or 5``)."""
    if len(args) == 2 and not kwargs and isinstance(args[0], str) and args[0] == GAME_NAME:
        params = args[1]
        if isinstance(params, Mapping):  # NumPy scalars as the Python values pybind11 takes
            params = {key: value.item() if isinstance(value, np.generic) else value for key, value in params.items()}
        config_of(params)
        args = (args[0], params)
    elif len(args) == 1 and not kwargs and isinstance(args[0], str) and args[0].startswith(GAME_NAME + "("):
        check_game_string(args[0])
    return _LOAD_GAME(*args, **kwargs)


load_game.__wrapped__ = _LOAD_GAME  # type: ignore[attr-defined]
pyspiel.register_game(GAME_TYPE, CheckpointCharlieGame)
pyspiel.load_game = load_game
