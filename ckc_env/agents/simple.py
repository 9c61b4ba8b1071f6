"""The simplest baselines: ``random`` (uniform over legal actions), ``passive`` (accuses only when
forced) and ``eager`` (accuses the most likely chief as soon as it can)."""

from __future__ import annotations

import numpy as np

from ..engine.actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    FORCED_ACCUSATION,
    KEEP,
    PASS,
    SWAP,
    WINDOW,
)
from ..engine.cards import cats_in
from ..engine.chance import Stream
from ..engine.view import PlayerView
from ..reading.beliefs import beliefs
from .base import Agent, legal_actions, uniform


class RandomAgent(Agent):
    """Uniformly random over the legal actions."""

    name = "random"

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        return uniform(self.stream, legal_actions(observation))


def most_likely_target(view: PlayerView, chief: np.ndarray, assistant: np.ndarray) -> int:
    """The legal target most likely to be the chief; ties by assistant probability, then cat id."""
    targets = cats_in(view.targets)
    return max(targets, key=lambda c: (chief[c], assistant[c], -c))


def adler_swap_action(view: PlayerView, observation: dict[str, np.ndarray], stream: Stream) -> int:
    """Swap with a random eligible seat. Every Adler chip is worth the lowest value of its colour
    (gold 3, white 1, black -1), so a blind swap for a random chip of that colour never loses in
    expectation under the default pool."""
    legal = legal_actions(observation)
    swaps = legal[legal >= SWAP]
    return uniform(stream, swaps) if len(swaps) else KEEP


class PassiveAgent(Agent):
    """Never accuses unless forced (then takes the most likely chief); keeps Adler chips."""

    name = "passive"

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        kind = view.decision_kind
        if kind == WINDOW:
            return PASS
        if kind == FORCED_ACCUSATION:
            b = beliefs(view)
            return ACCUSE + most_likely_target(view, b.chief, b.assistant)
        if kind == CLUE_FACE:
            return CLUE_FACE_A + self.stream.below(2)
        return KEEP


class Accuser(Agent):
    """Base of the players that accuse by their own rule: a random clue face (the choice carries no
    strategic weight, RULES.md 3.1), Cafe Adler chips swapped at once; ``accuse`` decides windows
    and forced accusations."""

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        kind = view.decision_kind
        if kind in (WINDOW, FORCED_ACCUSATION):
            return self.accuse(view, forced=kind == FORCED_ACCUSATION)
        if kind == CLUE_FACE:
            return CLUE_FACE_A + self.stream.below(2)
        if kind == CAFE_ADLER:
            return adler_swap_action(view, observation, self.stream)
        raise ValueError(f"unknown decision kind {kind}")

    def accuse(self, view: PlayerView, forced: bool) -> int:
        """``ACCUSE + cat`` or (in a window) ``PASS``."""
        raise NotImplementedError


class EagerAgent(Accuser):
    """Accuses the most likely chief at its first chance; swaps Adler chips at once."""

    name = "eager"

    def accuse(self, view: PlayerView, forced: bool) -> int:
        b = beliefs(view)
        return ACCUSE + most_likely_target(view, b.chief, b.assistant)
