"""``rollout``: bayes_v2 with a look-ahead: determinised rollouts of the rest of the round.

bayes_v1's rule (which bayes_v2 follows) compares the best target's expected chip with a fixed bar
that stands for what waiting is worth; its parameters are at a local optimum at 3, 4 and 5 players
(training/tune_by_count.py). What waiting is worth depends on the position, though: how many cards
are left, who else is likely to take the target first, what the player left out will receive. A
rollout player estimates it instead:

1. At a window where the choice is open (the best target has P(chief) >= ``gate`` or an expected
   chip within ``gate_ev`` of the bar), its candidates are: pass, bayes_v2's action, the best target
   by expected chip and the likeliest chief.
2. It draws ``worlds`` worlds from its information set (:func:`ckc_env.resample.resample`: the other
   seats' clues, the bag, the deck's order and the chips it cannot see dealt afresh), each weighted
   by how likely the other players' decisions this round were under that world's clues (bayes_v2's
   :class:`~ckc_env.agents.bayes_v2.TableReader`), the importance weights of its posterior.
3. In every world it plays each candidate and then the rest of the round with bayes_v1 in every
   seat (the same world and random stream for each candidate: common random numbers), and scores the
   chip colours handed out at the round's end by the chip values it expects: its own, less ``spite``
   times the mean of the others' (the game is won by being ahead, not by points alone).
4. It takes the candidate with the best weighted mean.

Elsewhere (a clear choice, forced accusations, clue faces, Cafe Adler) it plays as bayes_v2.
It reads the game only through its view and worlds resampled from it: nothing it cannot know
at the table reaches its decisions. Scalar only (no batched form): each searched decision plays
``worlds`` x candidates partial rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..beliefs import weighted_beliefs
from ..config import BLACK, COLOURS, GOLD, WHITE
from ..engine import game
from ..engine.actions import ACCUSE, FORCED_ACCUSATION, PASS
from ..engine.cards import cats_in
from ..engine.chance import unit
from ..engine.state import SCORING, GameState
from ..engine.view import PlayerView
from ..resample import resample
from .bayes import BayesAgent, decide
from .bayes_v2 import BayesV2Agent, BayesV2Params


@dataclass(frozen=True)
class RolloutParams(BayesV2Params):
    worlds: float = 48  # worlds drawn per searched decision
    gate: float = 0.1  # search when the likeliest chief among the targets is at least this likely,
    gate_ev: float = 0.5  # or when the best expected chip is within this of the bar
    spite: float = 1.0  # weight of the others' mean chip value in a rollout's score
    confidence: float = 1.5  # standard errors by which a candidate must beat bayes_v2's action

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.worlds < 1 or self.worlds != int(self.worlds):
            raise ValueError(f"rollout parameter worlds={self.worlds!r} must be a whole number >= 1")


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
        others_left = view.accused_by.count(-1) - 1
        share = (others_left - 1) / max(1, view.num_players - 2)
        bar = p.bar_late + (p.bar_early - p.bar_late) * share
        if chief[likeliest] < p.gate and ev[best_ev] < bar - p.gate_ev:
            return []
        return list(dict.fromkeys([chosen, PASS, ACCUSE + best_ev, ACCUSE + likeliest]))

    def _search(self, view: PlayerView, candidates: list[int], likelihood, values) -> int:
        state: GameState = view._state  # resampled below: only what the seat can see is kept
        draw = lambda: unit(self.stream.draw())  # noqa: E731
        scores, weights = [], []
        for _ in range(int(self.params.worlds)):
            world = resample(state, self.seat, draw)
            weight = 1.0
            for seat, factors in likelihood.items():
                weight *= factors[world.clues[seat]]
            if weight <= 0.0:
                continue
            players = [BayesAgent(seed=0, **self._v1_params) for _ in range(world.n)]
            for seat, player in enumerate(players):
                player.reset(seat, world.config)
            scores.append([self._play_out(world.copy(), action, players, values) for action in candidates])
            weights.append(weight)
        return candidates[self._pick(np.array(scores), np.array(weights))]

    def _pick(self, scores: np.ndarray, weights: np.ndarray) -> int:
        """The candidate whose weighted mean gain over bayes_v2's action (column 0), world by world,
        is largest and at least ``confidence`` standard errors above 0; else bayes_v2's action. A
        plain argmax over a few dozen noisy worlds would pick whichever candidate drew lucky worlds."""
        if len(weights) < 2:
            return 0
        w = weights / weights.sum()
        gains = scores[:, 1:] - scores[:, :1]
        mean = w @ gains
        effective = 1.0 / (w**2).sum()  # Kish's effective sample size of the weighted worlds
        spread = np.sqrt(np.maximum(w @ (gains - mean) ** 2, 0.0) / max(effective - 1.0, 1.0))
        clear = mean > self.params.confidence * spread + 1e-12
        if not clear.any():
            return 0
        return 1 + int(np.argmax(np.where(clear, mean, -np.inf)))

    @property
    def _v1_params(self) -> dict[str, float]:
        p = self.params
        return {"sure": p.sure, "bar_early": p.bar_early, "bar_late": p.bar_late, "margin_last": p.margin_last}

    def _play_out(self, world: GameState, action: int, players: list[BayesAgent], values) -> float:
        """The score of the round's chips after ``action`` and bayes_v1 play in every seat."""
        round_index = world.round_index
        game.apply(world, action)
        while world.round_index == round_index and world.phase < SCORING and world.pending_kind >= 0:
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


def _served(summary: dict) -> list[tuple[int, int, int, int]]:
    """A finished round's hand-out as ``GameState.served`` holds it (chip ids unknown: 0 or -1)."""
    colour = {name: i for i, name in enumerate(COLOURS)}
    return [
        (a["seat"], a.get("cat", -1), colour[a["colour"]], 0 if a["received"] else -1)
        for a in (*summary["accusations"], *summary["non_accusers"])
    ]
