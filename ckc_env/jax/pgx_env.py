"""Checkpoint Charlie as a Pgx environment: the JAX engine (``jax.game``, ``jax.observation``)
behind ``pgx.Env``'s contract, so Pgx tooling (its API test, ``pgx.experimental.auto_reset``,
PureJaxRL-style ``vmap`` + ``lax.scan`` loops) runs our game unchanged.

    env = CheckpointCharlie(GameConfig(num_players=4))       # or CheckpointCharlie(num_players=4)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, 1024))
    state = jax.jit(jax.vmap(env.step))(state, actions, keys)

A Pgx key is made a seeded game of our engine: two uint32 words drawn from it
(``jax.random.bits``, :func:`seed_words`) are a 64-bit seed ``hi << 32 | lo`` (:func:`seed_of`),
whose game key is ``chance.key_of_seed``'s; so ``env.init(key)`` deals exactly the game that
``batch.init(config, seeds=[seed_of(key)])`` deals. The engine's chance comes from that key alone:
``step`` ignores its ``key`` (Pgx passes one to stochastic games).

The contract, as ``pgx.core.Env`` (2.6) defines it: a :class:`State` with ``current_player`` (the
seat to act; seat 0 once the game is over, as ``current_player`` must stay a valid id),
``observation`` (the layout of ``belief_features``: 736 numbers, or 850 with the exact beliefs),
``legal_action_mask`` (40 bools; all True once terminated, as Pgx has it), ``rewards``
((num_players,) float32 by the project's schemes: ``"points"`` as chips change hands, ``"margin"``
or ``"win"``, ``ckc_env.table.rewards``), ``terminated``, ``truncated`` (never: a game always
ends) and ``_step_count``; the engine's state is ``_game``. Player ids are seats; the engine already
draws the first player at random. Stepping a finished game returns it with zero rewards; an
illegal action ends the game with -1 for the offender and 0 for the others (the project's rule
for illegal actions, ``ckc_env.table.illegal``, rather than Pgx's two-player default).

With Pgx installed, :class:`CheckpointCharlie` subclasses ``pgx.core.Env`` (its ``init``,
``step`` and ``observe`` run) and :class:`State` ``pgx.core.State``; without it, the module still
imports and the same classes follow the same contract on their own (:class:`PlainCheckpointCharlie`,
always defined, is that form). ``pgx.make`` knows only Pgx's games (it has no registry): build the
class directly. The ``players`` and ``second_order`` observation layouts are not offered: their
posteriors come from readers kept across steps, which the JAX engine does not have.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..config import GameConfig
from ..engine.actions import N_ACTIONS
from ..files import write_atomic
from ..observation import ENV_VERSION, LAYOUTS
from ..table.rewards import REWARDS
from . import chance, game, observation
from .state import State as GameState
from .state import rules_of

try:
    import pgx.core as _pgx_core
    from pgx._src.struct import dataclass as _pgx_dataclass
except ImportError:  # pragma: no cover - depends on the install
    _pgx_core = None

HAS_PGX = _pgx_core is not None
ENV_ID = "checkpoint_charlie"
LAYOUT_CHOICES = (False, True)
"""``belief_features`` the environment observes with (the others need readers kept across steps)."""

Array = jax.Array


# ---------------------------------------------------------------------------------------------- seeds
def seed_words(key: Array) -> Array:
    """(2,) uint32: the seed ``(hi, lo)`` a Pgx key stands for (two words of ``jax.random.bits``)."""
    return jax.random.bits(key, (2,), jnp.uint32)


def seed_of(key: Array) -> int:
    """The 64-bit seed of a Pgx key, on the host: ``batch.init(config, seeds=[seed_of(key)])``
    deals the game that ``init(key)`` deals."""
    hi, lo = (int(w) for w in np.asarray(seed_words(key)))
    return hi << 32 | lo


# ---------------------------------------------------------------------------------------------- the state
class _Shared:
    """What both state classes have beyond their fields: the id and a picture for Pgx's tools."""

    @property
    def env_id(self) -> str:
        return ENV_ID

    def to_svg(self, **_: Any) -> str:
        """A plain SVG of the game(s): round, points and who acts (Pgx's visualiser knows only its games)."""
        return _svg(self._game)  # type: ignore[attr-defined]

    def save_svg(self, filename: str | Path, **_: Any) -> None:
        if not str(filename).endswith(".svg"):
            raise ValueError(f"{filename}: an SVG file name ends in .svg")
        write_atomic(filename, self.to_svg())


@dataclass(frozen=True)
class PlainState(_Shared):
    """``pgx.core.State``'s fields, without Pgx: the state of :class:`PlainCheckpointCharlie`."""

    current_player: Array
    observation: Array
    rewards: Array
    terminated: Array
    truncated: Array
    legal_action_mask: Array
    _step_count: Array
    _game: GameState

    def replace(self, **changes: Any) -> PlainState:
        return dataclasses.replace(self, **changes)


jax.tree_util.register_dataclass(PlainState)

if HAS_PGX:

    @_pgx_dataclass
    class State(_Shared, _pgx_core.State):
        """A ``pgx.core.State`` of Checkpoint Charlie; the engine's state is ``_game``."""

        current_player: Array
        observation: Array
        rewards: Array
        terminated: Array
        truncated: Array
        legal_action_mask: Array
        _step_count: Array
        _game: GameState

else:  # pragma: no cover - depends on the install
    State = PlainState


def _svg(game_state: GameState) -> str:
    host = jax.device_get(game_state)
    n = np.asarray(host.n).reshape(-1)
    points = np.asarray(host.points).reshape(len(n), -1)
    rounds = np.asarray(host.round_index).reshape(-1)
    over = np.asarray(host.game_over).reshape(-1)
    seat = np.asarray(host.pending_seat).reshape(-1)
    lines = [
        f"game {k}: round {int(rounds[k]) + 1}, points {points[k, : n[k]].tolist()}, "
        + ("over" if over[k] else f"seat {int(seat[k])} to act")
        for k in range(len(n))
    ]
    text = "".join(f'<text x="8" y="{20 * (i + 1)}">{line}</text>' for i, line in enumerate(lines))
    width, height = 16 + 8 * max(len(line) for line in lines), 20 * len(lines) + 12
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="monospace" font-size="13">{text}</svg>'
    )


# ---------------------------------------------------------------------------------------------- the contract
class _PlainEnv:
    """``pgx.core.Env``'s public methods (Pgx 2.6), for installs without Pgx: the same semantics."""

    def init(self, key: Array) -> Any:
        state = self._init(key)
        return state.replace(observation=self.observe(state))

    def step(self, state: Any, action: Array, key: Array | None = None) -> Any:
        is_illegal = ~state.legal_action_mask[action]
        current_player = state.current_player
        state = jax.lax.cond(
            state.terminated | state.truncated,
            lambda: state.replace(rewards=jnp.zeros_like(state.rewards)),
            lambda: self._step(state.replace(_step_count=state._step_count + 1), action, key),
        )
        state = jax.lax.cond(is_illegal, lambda: self._step_with_illegal_action(state, current_player), lambda: state)
        state = jax.lax.cond(
            state.terminated,
            lambda: state.replace(legal_action_mask=jnp.ones_like(state.legal_action_mask)),
            lambda: state,
        )
        return state.replace(observation=self.observe(state))

    def observe(self, state: Any, player_id: Array | None = None) -> Array:
        if player_id is None:
            player_id = state.current_player
        return jax.lax.stop_gradient(self._observe(state, player_id))


class _Game:
    """The game behind the contract: ``_init``, ``_step``, ``_observe`` and the properties."""

    _state_type: type = PlainState

    def __init__(
        self,
        config: GameConfig | None = None,
        *,
        belief_features: bool = False,
        reward: str = "points",
        **options: Any,
    ) -> None:
        if config is None:
            config = GameConfig.from_dict(options)
        elif options:
            raise ValueError(f"give a GameConfig or its options ({sorted(options)}), not both")
        if not isinstance(config, GameConfig):
            raise ValueError(f"config must be a GameConfig, got {type(config).__name__}")
        if belief_features not in LAYOUT_CHOICES or not isinstance(belief_features, bool):
            raise ValueError(
                f"belief_features={belief_features!r}: the JAX environment observes with {list(LAYOUT_CHOICES)} "
                "(the players' and second-order posteriors need readers kept across steps)"
            )
        if reward not in REWARDS:
            raise ValueError(f"invalid reward={reward!r}: accepted values are {list(REWARDS)}")
        super().__init__()
        self.config = config
        self.rules = rules_of(config)
        self.layout = LAYOUTS[ENV_VERSION][belief_features]
        self.belief_features = belief_features
        self.reward = reward

    # Pgx's abstract properties
    @property
    def id(self) -> str:
        return ENV_ID

    @property
    def version(self) -> str:
        return ENV_VERSION

    @property
    def num_players(self) -> int:
        return self.config.num_players

    @property
    def num_actions(self) -> int:
        return N_ACTIONS

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.layout.size,)

    # the game
    def _wrap(self, game_state: GameState, state: Any | None = None) -> Any:
        fields = {
            "current_player": observation.acting_seat(game_state),
            "rewards": self._pay(game_state),
            "terminated": game_state.game_over.astype(jnp.bool_),
            "legal_action_mask": game.legal_mask_one(self.rules, game_state).astype(jnp.bool_),
            "_game": game_state,
        }
        if state is not None:
            return state.replace(**fields)
        return self._state_type(
            observation=jnp.zeros(self.observation_shape, jnp.float32),
            truncated=jnp.bool_(False),
            _step_count=jnp.int32(0),
            **{**fields, "rewards": jnp.zeros(self.num_players, jnp.float32)},
        )

    def _init(self, key: Array) -> Any:
        game_key = chance.key_of_seed(seed_words(key))
        return self._wrap(game.init_one(self.rules, game_key, jnp.int32(self.num_players)))

    def _step(self, state: Any, action: Array, key: Array | None) -> Any:
        return self._wrap(game.step_one(self.rules, state._game, jnp.asarray(action, jnp.int32)), state)

    def _observe(self, state: Any, player_id: Array) -> Array:
        return observation.observe(self.rules, state._game, jnp.asarray(player_id, jnp.int32), self.layout)

    def _pay(self, game_state: GameState) -> Array:
        """(num_players,) float32: the step's rewards under the scheme (``table.rewards.pay_batch``)."""
        n = self.num_players
        gained = game_state.rewards[:n].astype(jnp.float32)
        if self.reward == "margin":
            return gained - (gained.sum() - gained) / (n - 1)
        if self.reward == "win":
            won = game_state.winners[:n].astype(jnp.float32)
            winners = won.sum()
            paid = won / jnp.maximum(winners, 1.0) - (1.0 - won) / jnp.maximum(n - winners, 1.0)
            return jnp.where(game_state.terminated, paid, 0.0)
        return gained

    def _step_with_illegal_action(self, state: Any, loser: Array) -> Any:
        """An illegal action ends the game: -1 for the offender, 0 for the others."""
        rewards = jnp.zeros(self.num_players, jnp.float32).at[loser].set(-1.0)
        return state.replace(rewards=rewards, terminated=jnp.bool_(True))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.num_players}, belief_features={self.belief_features})"


class PlainCheckpointCharlie(_Game, _PlainEnv):
    """The environment without Pgx: ``pgx.core.Env``'s contract, :class:`PlainState` states."""

    _state_type = PlainState


if HAS_PGX:

    class CheckpointCharlie(_Game, _pgx_core.Env):
        """Checkpoint Charlie as a ``pgx.core.Env`` (see the module docstring)."""

        _state_type = State

else:  # pragma: no cover - depends on the install
    CheckpointCharlie = PlainCheckpointCharlie


__all__ = [
    "ENV_ID",
    "HAS_PGX",
    "CheckpointCharlie",
    "PlainCheckpointCharlie",
    "PlainState",
    "State",
    "seed_of",
    "seed_words",
]
