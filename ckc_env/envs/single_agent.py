"""A single-agent view of the game for single-agent learners (gymnasium id ``CheckpointCharlie-v1``;
``-v0`` was the same view before the chance model of ``checkpoint_charlie_v2``, which deals other games
for a seed).

The learner holds one seat (fixed, or drawn at random each game); the other seats are played
inside ``step()`` by a configured mix of players (baseline names, checkpoint paths or agent
objects, as in :mod:`ckc_env.evaluation.tournament`). The learner sees its own observation vector and gets
``action_masks()`` for MaskablePPO.

| | |
|---|---|
| Observation | the learner's observation vector: Box(float32, (736,)), (850,) with ``belief_features=True``, (964,) with ``belief_features="players"``, (1078,) with ``"second_order"`` (the env card's layout) |
| Action | Discrete(40), the action table of the env card; ``action_masks()`` marks the legal ones |
| Reward | everything the learner earned since its previous decision, including what the game's end brings when another seat's decision ends it: chip values with ``reward="points"``; the share of +1/-1 at the end with ``reward="win"``; with ``reward="margin"``, its chip values minus the mean of the other seats' (over a game: its final points minus the others' mean, a dense signal for beating them rather than for scoring alone) |
| Episode end | the game's end (``terminated``); never truncated |
| Illegal action | ends the game at once (``ckc_env.table.illegal``): ``terminated=True``, reward ``illegal_penalty`` (default -1), ``info["illegal_action"] = True`` (with ``action`` and ``legal_actions``). Checkers send unmasked actions, so this must not crash. |

Arguments: ``opponents`` (one spec, alone or in a list, for every other seat, or a list of n-1
specs in seat order after the learner; with several player counts, also a mapping
``{count: opponents}``), ``num_players`` (a count, or a list of counts such as ``[3, 4, 5]``: each
episode draws one uniformly, and ``env.table.n`` says which; the observation layout is the
same for every count), ``learner_seat`` (``"random"`` or a seat), ``belief_features``, ``reward``,
``illegal_penalty``, ``render_mode`` (``"ansi"``, ``"human"``, or ``"rgb_array"``: a picture for
``gymnasium.wrappers.RecordVideo``, :mod:`ckc_env.picture`, the ``render`` extra), ``render_seat``
(whose view ``"rgb_array"`` draws: ``"learner"`` by default, the learner's information set; None,
the spectator's public view; or a seat), ``summary_infos`` (infos are empty
by default; with True they hold ``seat`` and ``num_players`` at every step, the round's summary
and the learner's own chips when a round ended, ``final``, ``is_winner`` and ``win_share`` at the
game's end, each key always of one type), ``trust_checkpoint`` (let
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

from .. import players
from ..agents.base import Agent
from ..engine.actions import N_ACTIONS
from ..observation import ENV_VERSION, LAYOUTS
from ..players.specs import PlayerSpec
from ..render import RENDER_FPS, RENDER_MODES, check_render_mode, check_render_seat, render
from ..seeding import derive_seed
from ..table import illegal, options, rewards
from ..table.scalar import Table

OpponentSpec = PlayerSpec | Agent


class CheckpointCharlieSingleAgent(gymnasium.Env):
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}  # noqa: RUF012 (gymnasium's convention)

    def __init__(
        self,
        opponents: OpponentSpec | Sequence[OpponentSpec] | Mapping[int, Any] = "bayes_v1",
        learner_seat: int | str = "random",
        belief_features: bool | str = False,
        reward: str = "points",
        illegal_penalty: float = illegal.PENALTY,
        render_mode: str | None = None,
        render_seat: int | str | None = "learner",
        trust_checkpoint: bool = False,
        num_players: int | Sequence[int] = 5,
        summary_infos: bool = False,
        **rules: Any,
    ) -> None:
        self.summary_infos = options.flag("summary_infos", summary_infos)
        scheme = rewards.scheme(reward)
        self.reward = scheme.name
        self.counts = options.player_counts(num_players)
        options.belief_features(belief_features)
        check_render_mode(render_mode)
        layout = LAYOUTS[ENV_VERSION][belief_features]
        configs = options.game_configs(rules, self.counts)
        self._tables = {n: Table(config, layout, scheme) for n, config in configs.items()}
        self.table = self._tables[self.counts[0]]
        self.opponent_specs = options.opponents_by_count(opponents, self.counts)
        self._players = {  # every spec checked and loaded once
            n: [spec if isinstance(spec, Agent) else players.resolve(spec, trust_checkpoint) for spec in table]
            for n, table in self.opponent_specs.items()
        }
        self.learner_seat_option = options.learner_seat(learner_seat, self.counts)
        self.trust_checkpoint = trust_checkpoint
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.render_seat = check_render_seat(render_seat, self.counts[0], also=("learner",))
        low, high = layout.bounds()
        self.observation_space = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.seat = 0
        self._opponents: list[Agent | None] = []
        self._pending = 0.0  # earned before the learner's first decision (it may end up a non-accuser)
        self._done = True

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if len(self.counts) > 1:  # one count alone draws nothing: its games stay those of earlier versions
            self.table = self._tables[self.counts[int(self.np_random.integers(len(self.counts)))]]
        table = self.table
        n = table.n
        seat_option = self.learner_seat_option
        self.seat = int(self.np_random.integers(n)) if seat_option == "random" else int(seat_option)
        episode = int(self.np_random.integers(2**63))  # the episode's root seed: its deal and players
        table.deal(derive_seed(episode, "deal"), options)
        self._opponents = [None] * n
        self._summaries_seen = 0
        for k in range(1, n):
            seat = (self.seat + k) % n
            player = self._players[n][k - 1]
            agent = player if isinstance(player, Agent) else player.scalar(derive_seed(episode, "agent", seat))
            agent.reset(seat, table.config)
            self._opponents[seat] = agent
        self._pending = self._play_others()
        if table.over:  # the learner never had a decision: deal again
            return self.reset(options=options)
        self._done = False
        return self._observation(), self._info()

    def step(self, action: int):
        table = self.table
        if self._done:
            raise RuntimeError("step() after the episode ended: call reset()")
        try:
            legal = table.is_legal(int(action))
        except (TypeError, ValueError):
            legal = False
        if not legal:  # the episode ends with the penalty; the game is left as it was
            self._done = True
            info = {**self._info(), **illegal.info(action, table.legal_actions())}
            return self._observation(), self.illegal_penalty, True, False, info
        gained = table.apply(int(action))
        reward = self._pending + (gained[self.seat] if gained is not None else 0.0) + self._play_others()
        self._pending = 0.0
        self._done = table.over
        return self._observation(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the game is over)."""
        return self.table.action_mask(self.seat).astype(bool)

    def render(self) -> str | np.ndarray | None:
        seat = self.seat if self.render_seat == "learner" else self.render_seat
        return render(self.table.game, self.render_mode, seat)

    # ------------------------------------------------------------------ internals
    def _play_others(self) -> float:
        """Let the other seats decide until it is the learner's turn or the game ends; returns
        what the learner earned meanwhile (the engine is driven directly by the table)."""
        earned = [0.0] * self.table.n
        self.table.play(self._opponents, (self.seat,), earned)
        return earned[self.seat]

    def _observation(self) -> np.ndarray:
        return self.table.observation(self.seat)

    def _info(self) -> dict[str, Any]:
        """Empty by default (batching collectors and gymnasium's vector envs stack infos step by step);
        with ``summary_infos`` the same keys with the same types at every step, plus the round's
        summary when a round ended and the game's result when it is over. Fresh objects every call."""
        if not self.summary_infos:
            return {}
        game = self.table.game
        info: dict[str, Any] = {"seat": self.seat, "num_players": game.n}
        if len(game.summaries) > self._summaries_seen:  # a round ended since the last decision
            self._summaries_seen = len(game.summaries)
            values = self.table.views[self.seat].own_chip_values
            info["round_summary"] = fixed_types(game.summaries[-1])
            info["own_chips"] = {"values": values, "points": sum(values)}
        if game.game_over:
            final = _copy(game.final)
            info["final"] = final
            info["is_winner"] = self.seat in final["winners"]
            info["win_share"] = 1.0 / len(final["winners"]) if self.seat in final["winners"] else 0.0
        return info


def fixed_types(summary: dict[str, Any]) -> dict[str, Any]:
    """A round summary whose seat fields are always ints (-1 for nobody, where the engine's summary
    says None), so that vectorised infos keep one type per key."""
    out = _copy(summary)
    for key in ("stasi_exposed", "stasi_taken_by"):
        if out[key] is None:
            out[key] = -1
    return out


def _copy(data: Any) -> Any:
    """A deep copy of plain data (dicts, lists, ints): a pickle round trip is several times faster
    than ``copy.deepcopy``."""
    return pickle.loads(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
