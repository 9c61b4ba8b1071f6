"""A single-agent view of the game for single-agent learners (gymnasium id ``CheckpointCharlie-v0``).

The learner holds one seat (fixed, or drawn at random each game); the other seats are played
inside ``step()`` by a configured mix of players (baseline names, checkpoint paths or agent
objects, as in :mod:`ckc_env.evaluation.tournament`). The learner sees its own observation vector and gets
``action_masks()`` for MaskablePPO.

| | |
|---|---|
| Observation | the learner's observation vector: Box(float32, (731,)), or (845,) with ``belief_features=True`` |
| Action | Discrete(40), the action table of the env card; ``action_masks()`` marks the legal ones |
| Reward | everything the learner earned since its previous decision, including what the game's end brings when another seat's decision ends it: chip values with ``reward="points"``; the share of +1/-1 at the end with ``reward="win"``; with ``reward="margin"``, its chip values minus the mean of the other seats' (over a game: its final points minus the others' mean, a dense signal for beating them rather than for scoring alone) |
| Episode end | the game's end (``terminated``); never truncated |
| Illegal action | ends the game at once: ``terminated=True``, reward ``illegal_penalty`` (default -1), ``info["illegal_action"] = True``. Checkers send unmasked actions, so this must not crash. |

Arguments: ``opponents`` (one spec, alone or in a list, for every other seat, or a list of n-1
specs in seat order after the learner; with several player counts, also a mapping
``{count: opponents}``), ``num_players`` (a count, or a list of counts such as ``[3, 4, 5]``: each
episode draws one uniformly, and ``info["num_players"]`` says which; the observation layout is the
same for every count), ``learner_seat`` (``"random"`` or a seat), ``belief_features``, ``reward``,
``illegal_penalty``, ``render_mode`` (``"ansi"``, ``"human"``), ``trust_checkpoint`` (let
stable-baselines3 ``.zip`` opponents load: their loading unpickles; safe agent files need no
trust), and any game option of :class:`~ckc_env.config.GameConfig`.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .. import engine, players
from ..agents.base import Agent
from ..engine.actions import N_ACTIONS
from ..engine.view import PlayerView
from ..files import short
from ..players import specs
from ..players.specs import PlayerSpec
from ..seeding import derive_seed
from .aec import raw_env

OpponentSpec = PlayerSpec | Agent


class CheckpointCharlieSingleAgent(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[int, Any] = "bayes_v1",
        learner_seat: int | str = "random",
        belief_features: bool | str = False,
        reward: str = "points",
        illegal_penalty: float = -1.0,
        render_mode: str | None = None,
        trust_checkpoint: bool = False,
        num_players: int | Sequence[int] = 5,
        **rules: Any,
    ) -> None:
        if reward not in ("points", "win", "margin"):
            raise ValueError(f"invalid reward={short(reward)}: accepted values are 'points', 'win' or 'margin'")
        self.reward = reward
        self.counts = player_counts(num_players)
        aec_reward = "points" if reward == "margin" else reward  # margin is computed here from the points
        self._tables = {
            n: raw_env(
                render_mode=render_mode, reward=aec_reward, belief_features=belief_features, num_players=n, **rules
            )
            for n in self.counts
        }
        self.aec = self._tables[self.counts[0]]
        self.opponent_specs = opponents_by_count(opponents, self.counts)
        for table in self.opponent_specs.values():
            for spec in table:
                if not isinstance(spec, Agent):
                    players.validate(spec, trust_checkpoint=trust_checkpoint)
        fewest = self.counts[0]
        if learner_seat != "random" and (
            isinstance(learner_seat, bool) or not isinstance(learner_seat, int) or not 0 <= learner_seat < fewest
        ):
            raise ValueError(
                f"invalid learner_seat={short(learner_seat)}: accepted values are 'random' or 0 to {fewest - 1}"
            )
        self.trust_checkpoint = trust_checkpoint
        self.learner_seat_option = learner_seat
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.seat = 0
        self._opponents: list[Agent | None] = []
        self._pending = 0.0  # earned before the learner's first decision (it may end up a non-accuser)
        self._done = True
        self._mask = np.zeros(N_ACTIONS, dtype=np.int8)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if len(self.counts) > 1:  # one count alone draws nothing: its games stay those of earlier versions
            self.aec = self._tables[self.counts[int(self.np_random.integers(len(self.counts)))]]
        n = self.aec.config.num_players
        seat_option = self.learner_seat_option
        self.seat = int(self.np_random.integers(n)) if seat_option == "random" else int(seat_option)
        episode = int(self.np_random.integers(2**63))  # the episode's root seed: its deal and players
        self.aec.reset(seed=derive_seed(episode, "deal"), options=options)
        self._opponents = [None] * n
        self._views = [PlayerView(self.aec.game, seat) for seat in range(n)]
        self._summaries_seen = 0
        engine.pop_rewards(self.aec.game)
        others = [(self.seat + k) % n for k in range(1, n)]
        for k, seat in enumerate(others):
            spec = self.opponent_specs[n][k]
            if isinstance(spec, Agent):
                agent = spec
            else:
                agent = players.build(spec, derive_seed(episode, "agent", seat), trust_checkpoint=self.trust_checkpoint)
            agent.reset(seat, self.aec.config)
            self._opponents[seat] = agent
        self._pending = self._play_others()
        if self.aec.game.game_over:  # the learner never had a decision: deal again
            return self.reset(options=options)
        self._done = False
        return self._observation(), self._info()

    def step(self, action: int):
        game = self.aec.game
        if self._done:
            raise RuntimeError("step() after the episode ended: call reset()")
        try:
            legal = engine.is_legal(game, int(action))
        except (TypeError, ValueError):
            legal = False
        if not legal:  # the episode ends with the penalty; the game is left as it was
            self._done = True
            info = {
                **self._info(),
                "illegal_action": True,
                "action": action,
                "legal_actions": engine.legal_actions(game),
            }
            return self._observation(), self.illegal_penalty, True, False, info
        engine.apply(game, int(action))
        reward = self._pending + self._collect() + self._play_others()
        self._pending = 0.0
        self._done = game.game_over
        return self._observation(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the game is over)."""
        game = self.aec.game
        if game.current_seat == self.seat:
            return engine.legal_mask(game).astype(bool)
        return np.zeros(N_ACTIONS, dtype=bool)

    def render(self) -> str | None:
        return self.aec.render()

    # ------------------------------------------------------------------ internals
    def _play_others(self) -> float:
        """Let the other seats decide until it is the learner's turn or the game ends; returns
        what the learner earned meanwhile. The engine is driven directly: the AEC adapter's
        bookkeeping (reward dicts, infos for every agent) would cost more than the decisions."""
        aec, game = self.aec, self.aec.game
        earned = 0.0
        while not game.game_over and game.current_seat != self.seat:
            seat = game.current_seat
            action = self._opponents[seat].act(self._views[seat], aec.observe_lazily(aec.possible_agents[seat]))
            if not engine.is_legal(game, action):
                raise ValueError(
                    f"opponent {short(self._opponents[seat])} at seat {seat} chose illegal action {action}"
                )
            engine.apply(game, action)
            earned += self._collect()
        return earned

    def _collect(self) -> float:
        """The learner's reward from the engine's last transition."""
        game = self.aec.game
        gained = engine.pop_rewards(game)
        if self.reward == "points":
            return float(gained[self.seat])
        if self.reward == "margin":
            n = game.n
            return float(gained[self.seat]) - (float(sum(gained)) - float(gained[self.seat])) / (n - 1)
        if not game.game_over:
            return 0.0
        winners = game.final["winners"]
        n = game.n
        return 1.0 / len(winners) if self.seat in winners else -1.0 / (n - len(winners))

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self.seat])["observation"]

    def _info(self) -> dict[str, Any]:
        # Fresh objects every call: callers keep what they are given.
        game = self.aec.game
        info: dict[str, Any] = {"seat": self.seat, "num_players": game.n}
        if len(game.summaries) > self._summaries_seen:  # a round ended since the last decision
            self._summaries_seen = len(game.summaries)
            values = self._views[self.seat].own_chip_values
            info["round_summary"] = _copy(game.summaries[-1])
            info["own_chips"] = {"values": values, "points": sum(values)}
        if self.aec.game.game_over:
            final = _copy(self.aec.game.final)
            info["final"] = final
            info["is_winner"] = self.seat in final["winners"]
            info["win_share"] = 1.0 / len(final["winners"]) if self.seat in final["winners"] else 0.0
        return info


def player_counts(num_players: int | Sequence[int]) -> tuple[int, ...]:
    """The player counts a learner trains at, sorted: one count, or several (each from 3 to 5, once)."""
    given = [num_players] if isinstance(num_players, int) and not isinstance(num_players, bool) else num_players
    accepted = "a player count from 3 to 5, or a list of distinct counts such as [3, 4, 5]"
    if isinstance(given, (str, bytes)) or not isinstance(given, Sequence) or not given:
        raise ValueError(f"invalid num_players={short(num_players)}: accepted values are {accepted}")
    for n in given:
        if isinstance(n, bool) or not isinstance(n, int) or not 3 <= n <= 5:
            raise ValueError(f"invalid num_players={short(num_players)}: accepted values are {accepted}")
    if len(set(given)) != len(given):
        raise ValueError(
            f"invalid num_players={short(num_players)}: a count appears twice; accepted values are {accepted}"
        )
    return tuple(sorted(given))


def is_per_count(value: Any) -> bool:
    """Whether ``value`` maps player counts to settings (``{3: ..., 5: ...}``) rather than being one
    player spec (a spec mapping has a ``name`` key, never integer keys)."""
    return (
        isinstance(value, Mapping)
        and bool(value)
        and all(isinstance(k, int) and not isinstance(k, bool) for k in value)
    )


def per_count(value: Any, counts: Sequence[int], what: str) -> dict[int, Any]:
    """``{count: setting}`` for each count: ``value`` itself for all, or its entry per count (a
    mapping must name exactly the counts)."""
    if not is_per_count(value):
        return {n: value for n in counts}
    if sorted(value) != sorted(counts):
        raise ValueError(
            f"invalid {what}={short(dict(value))}: a mapping by player count needs exactly the counts {list(counts)}"
        )
    return {n: value[n] for n in counts}


def opponents_by_count(
    opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[int, Any], counts: Sequence[int]
) -> dict[int, list[OpponentSpec]]:
    """The opponents of each count's other seats, in seat order after the learner."""
    return {n: specs.for_seats(table, n - 1) for n, table in per_count(opponents, counts, "opponents").items()}


def _copy(data: Any) -> Any:
    """A deep copy of plain data (dicts, lists, ints): a pickle round trip is several times faster
    than ``copy.deepcopy``."""
    return pickle.loads(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
