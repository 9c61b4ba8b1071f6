"""``rollout``: bayes_v2 with a look-ahead: determinised rollouts over its information set.

bayes_v1's rule (which bayes_v2 follows) compares the best target's expected chip with a fixed bar
that stands for what waiting is worth; its parameters hold at a local optimum at 3 and 4 players
as at 5 (training/commands/tune_by_count.py). What waiting is worth depends on the position, though: how
many cards are left, who else is likely to take the target first, the score. A rollout player
estimates it instead (perfect-information Monte Carlo over sampled worlds):

1. At a window where the choice is open (the likeliest chief among the targets has P(chief) >=
   ``gate``, or the best expected chip is within ``gate_ev`` of the bar), its candidates are:
   bayes_v2's action, pass, the best target by expected chip and the likeliest chief.
2. It draws ``worlds`` worlds from its information set (:func:`ckc_env.resample.resample`: the other
   seats' clues, the bag, the deck's order and the chips it cannot see dealt afresh), each weighted
   by how likely the other players' decisions this round were under that world's clues (bayes_v2's
   :class:`~ckc_env.reading.players_posterior.PlayersReader`): importance weights towards its posterior.
3. In every world it plays each candidate, then bayes_v1 in every seat (the same world for each
   candidate: common random numbers). In a round that may end the game (``may_end_game``, with
   ``endgame=1``) it plays to the game's end and scores its share of the win: what counts at the
   end is being ahead. Otherwise it plays to the round's end and scores the chip colours handed out
   by the values it expects: its own, less ``spite`` times the mean of the others'.
4. It departs from bayes_v2's action only for a candidate whose weighted mean gain over it, world
   by world, is at least ``confidence`` standard errors above 0: a plain argmax over a few dozen
   noisy worlds follows the luckiest draws.

Elsewhere (a clear choice, forced accusations, clue faces, Cafe Adler) it plays as bayes_v2.
It reads the game only through its view and worlds resampled from it, whose draws depend on the
information set alone: two positions the seat cannot tell apart get the same decision
(tests/test_agents.py). Scalar only (no batched form): a searched decision plays ``worlds`` x
candidates rollouts, about a second a game at 3 players. Measured level with bayes_v2 in its seat
(docs/baselines.md), whichever horizon.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ..config import BLACK, COLOURS, GOLD, WHITE
from ..engine import game
from ..engine.actions import ACCUSE, FORCED_ACCUSATION, PASS
from ..engine.cards import cats_in
from ..engine.chance import unit
from ..engine.state import SCORING, GameState
from ..engine.view import PlayerView
from ..reading.bayes_rule import decide, moving_bar
from ..reading.beliefs import weighted_beliefs
from ..resample import resample
from .bayes import BayesAgent
from .bayes_v2 import BayesV2Agent, BayesV2Params


@dataclass(frozen=True)
class RolloutParams(BayesV2Params):
    worlds: float = 48  # worlds drawn per searched decision
    gate: float = 0.1  # search when the likeliest chief among the targets is at least this likely,
    gate_ev: float = 0.5  # or when the best expected chip is within this of the bar
    spite: float = 1.0  # weight of the others' mean chip value in a rollout's score
    confidence: float = 1.5  # standard errors by which a candidate must beat bayes_v2's action
    endgame: float = 1.0  # 1: in a round that may end the game, rollouts play to its end and score the result

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.worlds < 1 or self.worlds != int(self.worlds):
            raise ValueError(f"rollout parameter worlds={self.worlds!r} must be a whole number >= 1")
        if self.endgame not in (0, 1):
            raise ValueError(f"rollout parameter endgame={self.endgame!r} must be 0 or 1")


class RolloutAgent(BayesV2Agent):
    name = "rollout"
    params_type = RolloutParams

    def reset(self, seat: int, config) -> None:
        super().reset(seat, config)
        self.searched = self.decisions = 0

    def accuse(self, view: PlayerView, forced: bool) -> int:
        values = self.chip_values(view)
        likelihood = self.reader.update(view, values)
        b = weighted_beliefs(view, likelihood)
        chosen = decide(self.params, view, b, forced, values)
        self.decisions += 1
        if forced:
            return chosen
        candidates = self._candidates(view, b, values, chosen)
        if len(candidates) < 2:
            return chosen
        self.searched += 1
        return self._search(view, candidates, likelihood, values)

    def _candidates(self, view: PlayerView, b, values, chosen: int) -> list[int]:
        gold, white, black = values
        targets = cats_in(view.targets)
        if not targets:
            return []
        chief, assistant = b.chief, b.assistant
        ev = {c: chief[c] * gold + assistant[c] * white + (1.0 - chief[c] - assistant[c]) * black for c in targets}
        best_ev = max(targets, key=lambda c: (ev[c], chief[c]))
        likeliest = max(targets, key=lambda c: (chief[c], assistant[c]))
        p = self.params
        bar = moving_bar(p, view.accused_by.count(-1) - 1, view.num_players)
        if chief[likeliest] < p.gate and ev[best_ev] < bar - p.gate_ev:
            return []
        return list(dict.fromkeys([chosen, PASS, ACCUSE + best_ev, ACCUSE + likeliest]))

    def _search(self, view: PlayerView, candidates: list[int], likelihood, values) -> int:
        state: GameState = view._state  # resampled below: only what the seat can see is kept
        draw = lambda: unit(self.stream.draw())  # noqa: E731
        to_the_end = bool(self.params.endgame) and may_end_game(view)
        scores, weights = [], []
        for world, weight in weighted_worlds(state, self.seat, draw, likelihood, int(self.params.worlds)):
            if to_the_end:
                scores.append([self._play_to_the_end(world.copy(), action) for action in candidates])
            else:
                players = self._players(world)
                scores.append([self._play_out(world.copy(), action, players, values) for action in candidates])
            weights.append(weight)
        return candidates[clear_gain(np.array(scores), np.array(weights), self.params.confidence)]

    def _players(self, world: GameState) -> list[BayesAgent]:
        players = [BayesAgent(seed=world.stream.key + seat, **self._v1_params) for seat in range(world.n)]
        for seat, player in enumerate(players):
            player.reset(seat, world.config)
        return players

    def _play_to_the_end(self, world: GameState, action: int) -> float:
        """This seat's share of the win after ``action`` and bayes_v1 play in every seat to the game's end."""
        players = self._players(world)  # fresh ones: each remembers its chip values per round
        game.apply(world, action)
        while not world.game_over:
            seat = world.pending_seat
            view = PlayerView(world, seat)
            game.apply(world, players[seat].act(view, {"action_mask": game.legal_mask(world)}))
        winners = world.final["winners"]
        return 1.0 / len(winners) if self.seat in winners else 0.0

    @property
    def _v1_params(self) -> dict[str, float]:
        p = self.params
        return {"sure": p.sure, "bar_early": p.bar_early, "bar_late": p.bar_late, "margin_last": p.margin_last}

    def _play_out(self, world: GameState, action: int, players: list[BayesAgent], values) -> float:
        """The score of the round's chips after ``action`` and bayes_v1 play in every seat."""
        round_index = world.round_index
        game.apply(world, action)
        while world.round_index == round_index and world.phase < SCORING:
            seat = world.pending_seat
            forced = world.pending_kind == FORCED_ACCUSATION
            game.apply(world, players[seat].accuse(PlayerView(world, seat), forced))
        served = world.served if world.round_index == round_index else _served(world.summaries[round_index])
        worth = {GOLD: values[0], WHITE: values[1], BLACK: values[2]}
        own = others = 0.0
        for seat, _cat, colour, chip in served:
            value = worth[colour] if chip >= 0 else 0.0
            if seat == self.seat:
                own += value
            else:
                others += value
        return own - self.params.spite * others / (world.n - 1)


def weighted_worlds(
    state: GameState, seat: int, draw: Callable[[], float], likelihood: dict[int, np.ndarray], count: int
) -> Iterator[tuple[GameState, float]]:
    """``count`` worlds drawn from ``seat``'s information set (:func:`ckc_env.resample.resample`),
    each with its weight: how likely the other players' decisions were under its clues
    (``likelihood``: a reading's factors per seat and clue); the worlds they rule out are dropped."""
    for _ in range(count):
        world = resample(state, seat, draw)
        weight = 1.0
        for other, factors in likelihood.items():
            weight *= factors[world.clues[other]]
        if weight > 0.0:
            yield world, weight


def clear_gain(scores: np.ndarray, weights: np.ndarray, confidence: float) -> int:
    """The candidate (a column of ``scores``, one row per world) whose weighted mean gain over the
    default (column 0), world by world, is largest and at least ``confidence`` standard errors
    above 0; else 0. A plain argmax over a few dozen noisy worlds would pick whichever candidate
    drew lucky worlds."""
    if len(weights) < 2:
        return 0
    w = weights / weights.sum()
    gains = scores[:, 1:] - scores[:, :1]
    mean = w @ gains
    effective = 1.0 / (w**2).sum()  # Kish's effective sample size of the weighted worlds
    spread = np.sqrt(np.maximum(w @ (gains - mean) ** 2, 0.0) / max(effective - 1.0, 1.0))
    clear = mean > confidence * spread + 1e-12
    if not clear.any():
        return 0
    return 1 + int(np.argmax(np.where(clear, mean, -np.inf)))


def may_end_game(view: PlayerView) -> bool:
    """Whether the round being played may be the game's last (RULES.md 6), from what the seat knows:
    it is the last round allowed, a colour's supply could run out in its hand-out (fewer chips
    than players), or a seat could reach the target with a gold chip (the others' totals bounded
    by the highest value of each colour they hold)."""
    config, n = view.config, view.num_players
    if view.round_index + 1 >= config.max_rounds or min(view.supply_counts) < n:
        return True
    pool = view.pool
    highest = [
        max((pool.value[c] for c in range(len(pool)) if pool.colour[c] == colour), default=0) for colour in range(3)
    ]
    bounds = [
        view.own_points
        if seat == view.seat
        else sum(k * v for k, v in zip(view.colour_counts(seat), highest, strict=True))
        for seat in range(n)
    ]
    return max(bounds) + highest[GOLD] >= config.target_points


def _served(summary: dict) -> list[tuple[int, int, int, int]]:
    """A finished round's hand-out as ``GameState.served`` holds it (chip ids unknown: 0 or -1)."""
    colour = {name: i for i, name in enumerate(COLOURS)}
    return [
        (a["seat"], a.get("cat", -1), colour[a["colour"]], 0 if a["received"] else -1)
        for a in (*summary["accusations"], *summary["non_accusers"])
    ]
