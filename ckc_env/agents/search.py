"""``search``: a learned policy with a search at its open decisions, over worlds drawn from its
information set, scored by its own critic (depth-limited search over a blueprint, as Pluribus
searches over its blueprint strategy; here the blueprint is a safe agent file's policy and its value
network stands in for the rest of the game).

1. Every decision is the policy's (its most probable legal action, as the agent file plays in
   tournaments). At a window where the choice is open (the policy gives its own choice less than
   ``gate``), the candidates are the policy's choice and its next most probable actions, up to
   ``top`` in all, each at least ``least`` likely.
2. It draws ``worlds`` worlds from its information set (:func:`ckc_env.resample.resample`), each
   weighted by how likely the other players' decisions this round were under that world's clues
   (the players' reading its observation already holds, ``reading.players_posterior``).
3. In every world each candidate is played, then the other seats play on (``opponents``: bayes_v1,
   bayes_v2, or the agent's own policy in every seat) until the seat's ``horizon``-th next decision or the
   game's end; the same world for every candidate (common random numbers). A candidate scores what
   the agent's reward scheme paid the seat on the way, plus the critic's value of the seat's
   observation at the horizon, discounted once (``gamma`` of the agent's training), or the game's
   result where it ended.
4. It departs from the policy's choice only for a candidate whose weighted mean gain over it,
   world by world, is at least ``confidence`` standard errors above 0 (``rollout``'s guard).

It reads the game only through its view and worlds resampled from it, whose draws depend on the
information set alone: two positions the seat cannot tell apart get the same decision
(tests/test_search.py). Its batched form (``ckc_env.batch.search``) plays the same games on the
batched engine, every searched game's continuations in one batch; the JAX engine refuses it by name.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

from ..engine import game
from ..engine.actions import WINDOW
from ..engine.chance import unit
from ..engine.state import GameState
from ..engine.view import PlayerView
from ..observation import TableReading, encoder
from ..reading.chip_values import expected_chip_values
from ..table import rewards
from .base import Agent
from .bayes import BayesAgent
from .bayes_v2 import BayesV2Agent
from .rollout import clear_gain, weighted_worlds

DEFAULT_AGENT = "checkpoints/ppo_all_counts_mixed_34p"
"""The strongest shipped agent: the policy searched over unless ``agent`` names another."""
OPPONENTS = ("bayes_v1", "bayes_v2", "policy")
"""The models of the other seats in a continuation."""
REPOSITORY = Path(__file__).resolve().parents[2]
NO_VECTOR = np.zeros(0, np.float32)


@dataclass(frozen=True)
class SearchParams:
    agent: str = DEFAULT_AGENT  # the safe agent file whose policy and critic are searched over
    worlds: float = 32  # worlds drawn per searched decision
    top: float = 3  # candidates: the policy's choice and its next most probable actions, this many in all
    least: float = 0.05  # a candidate's least probability under the policy
    gate: float = 0.9  # search when the policy gives its own choice less than this
    horizon: float = 1  # the seat's own decisions ahead at which a continuation is scored by the critic
    opponents: str = "bayes_v1"  # the other seats in a continuation: bayes_v1, bayes_v2, or policy (the agent's own)
    confidence: float = 1.5  # standard errors by which a candidate must beat the policy's choice

    def __post_init__(self) -> None:
        for name in ("worlds", "top", "horizon"):
            value = getattr(self, name)
            low = 2 if name == "top" else 1
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < low or value != int(value):
                raise ValueError(f"search parameter {name}={value!r} must be a whole number >= {low}")
        for name in ("least", "gate", "confidence"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
                raise ValueError(f"search parameter {name}={value!r} must be a number >= 0")
        if self.opponents not in OPPONENTS:
            raise ValueError(f"search parameter opponents={self.opponents!r}: accepted values are {list(OPPONENTS)}")
        if not isinstance(self.agent, str) or not self.agent:
            raise ValueError(f"search parameter agent={self.agent!r} must be the path of a safe agent file")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def of(cls, player: str, params: dict[str, Any]) -> SearchParams:
        unknown = sorted(set(params) - set(cls.names()))
        if unknown:
            raise ValueError(f"unknown {player} parameter(s) {unknown}: accepted are {list(cls.names())}")
        return cls(**params)


def agent_path(name: str) -> str:
    """``name`` as given where it exists, else the shipped agent of that name (the repository's
    ``checkpoints/``), so the default plays from any working directory of a source checkout."""
    from ..players.loading import locate

    try:
        locate(name)
        return name
    except (OSError, ValueError):
        shipped = REPOSITORY / name
        return str(shipped) if shipped.exists() else name


def training_terms(network: Any) -> tuple[rewards.Scheme, float]:
    """The reward scheme and discount an agent file was trained with (its card's training
    config): what a continuation pays and how its critic's value is discounted."""
    card = network.card
    config = (card.training or {}).get("config", {}) if isinstance(card.training, dict) else {}
    return rewards.scheme(config.get("reward", "points")), float((config.get("ppo") or {}).get("gamma", 0.99))


def open_candidates(probabilities: np.ndarray, legal: np.ndarray, p: SearchParams) -> list[int]:
    """The candidates of a decision the policy leaves open (its own choice first), or [] where it
    is sure (its choice at least ``gate`` likely) or offers a single candidate."""
    chosen = int(np.argmax(probabilities))
    order = [int(a) for a in np.argsort(-probabilities, kind="stable") if legal[a] and probabilities[a] >= p.least]
    candidates = [chosen, *[a for a in order if a != chosen][: int(p.top) - 1]]
    return candidates if probabilities[chosen] < p.gate and len(candidates) >= 2 else []


class SearchAgent(Agent):
    name = "search"
    params_type = SearchParams

    def __init__(self, seed: int | None = None, **params: Any) -> None:
        super().__init__(seed)
        from ..players.policy import PolicyAgent

        self.params = self.params_type.of(self.name, params)
        self.policy = PolicyAgent(agent_path(self.params.agent), seed=seed)
        self.scheme, self.gamma = training_terms(self.policy.network)

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.policy.reset(seat, config)
        self.reading = TableReading(seat)  # the players' reading, for the worlds' weights
        self.searched = self.decisions = self.departed = 0

    # ------------------------------------------------------------------ a decision
    def _vector(self, view: PlayerView, reading: TableReading | None, observation: Any = None) -> np.ndarray:
        layout = self.policy.layout
        vector = None if observation is None else observation.get("observation")
        if vector is None or vector.shape[0] != layout.size:
            vector = encoder(layout, view.config).observation(view, reading)
        return vector

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        legal = np.asarray(observation["action_mask"], dtype=bool)
        probabilities = self.policy.network.probabilities(self._vector(view, self.reading, observation), legal)
        chosen = int(np.argmax(probabilities))
        if view.decision_kind != WINDOW:
            return chosen
        self.decisions += 1
        candidates = open_candidates(probabilities, legal, self.params)
        if not candidates:
            return chosen
        self.searched += 1
        pick = self._search(view, candidates)
        self.departed += pick > 0
        return candidates[pick]

    def _search(self, view: PlayerView, candidates: list[int]) -> int:
        state: GameState = view._state  # resampled below: only what the seat can see is kept
        draw = lambda: unit(self.stream.draw())  # noqa: E731
        likelihood = self.reading.players.update(view, expected_chip_values(view))
        paid, observed, weights = [], [], []
        for world, weight in weighted_worlds(state, self.seat, draw, likelihood, int(self.params.worlds)):
            weights.append(weight)
            for action in candidates:
                reward, vector = self._play_on(world.copy(), action)
                paid.append(reward)
                observed.append(vector)
        if len(weights) < 2:
            return 0
        values = np.zeros(len(paid))
        live = [i for i, vector in enumerate(observed) if vector is not None]
        if live:
            values[live] = self.policy.network.values(np.stack([observed[i] for i in live]))
        scores = (np.asarray(paid) + self.gamma * values).reshape(len(weights), len(candidates))
        return clear_gain(scores, np.asarray(weights), self.params.confidence)

    def _play_on(self, world: GameState, action: int) -> tuple[float, np.ndarray | None]:
        """``action`` and the continuation in ``world``: what the scheme paid the seat, and its
        observation at the horizon (None where the game ended)."""
        game.pop_rewards(world)  # what the world's state holds unpaid is not this decision's
        game.apply(world, action)
        models = self._models(world)
        reading = copy.deepcopy(self.reading)
        own = 0
        while not world.game_over:
            seat = world.pending_seat
            view = PlayerView(world, seat)
            legal = game.legal_mask(world)
            if seat == self.seat:
                own += 1
                if own >= self.params.horizon:
                    break
                vector = self._vector(view, reading)
                game.apply(world, int(np.argmax(self.policy.network.probabilities(vector, legal))))
                continue
            # no vector given: a policy model encodes its own view with its own reading
            model = models[seat]
            assert model is not None
            game.apply(world, model.act(view, {"observation": NO_VECTOR, "action_mask": legal}))
        winners = world.final["winners"] if world.game_over else None
        pay = self.scheme.pay(game.pop_rewards(world), winners) or [0.0] * world.n
        if world.game_over:
            return pay[self.seat], None
        return pay[self.seat], self._vector(PlayerView(world, self.seat), reading)

    def _models(self, world: GameState) -> list[Agent | None]:
        """The other seats' players in a continuation (fresh: each remembers its round; none at the
        seat's own, which its policy plays)."""
        from ..players.policy import PolicyAgent

        models: list[Agent | None] = []
        for seat in range(world.n):
            if seat == self.seat:
                models.append(None)
                continue
            if self.params.opponents == "policy":
                model: Agent = PolicyAgent(self.policy.path, seed=world.stream.key + seat)
            elif self.params.opponents == "bayes_v2":  # a fresh reading reads the round so far at once
                model = BayesV2Agent(seed=world.stream.key + seat)
            else:
                model = BayesAgent(seed=world.stream.key + seat)
            model.reset(seat, world.config)
            models.append(model)
        return models
