"""The interface every player of a game implements: scripted baselines and trained policies alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import numpy as np

from ..config import GameConfig
from ..engine.chance import Stream, unit
from ..engine.view import PlayerView


class Agent:
    """A player. ``act`` gets the seat's :class:`PlayerView` and its PettingZoo observation
    (``{"observation", "action_mask"}``) and returns a legal action.

    Scripted agents read the view; learned policies read the observation vector. Both get both,
    so one driver plays any mix of them in any seat.
    """

    name = "agent"
    reads_hidden_state = False
    """True only for reference agents that look at what their seat cannot know (``cheater``)."""

    def __init__(self, seed: int | None = None) -> None:
        self.stream = Stream.seeded(seed)
        """The player's random choices (``engine.chance``: the batched players draw theirs alike)."""
        self.rng = np.random.default_rng(seed)
        """A NumPy Generator for players of one's own; the package's players draw from ``stream``."""

    def reset(self, seat: int, config: GameConfig) -> None:
        """A new game starts; ``seat`` is this agent's seat in it."""
        self.seat = seat
        self.config = config

    def act(self, view: PlayerView, observation: dict[str, np.ndarray]) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    return np.flatnonzero(observation["action_mask"])


def uniform(stream: Stream, choices: np.ndarray) -> int:
    """One of ``choices`` (ascending), uniformly: one word of the stream (the batched players' rule)."""
    return int(choices[stream.below(len(choices))])


def sample(stream: Stream, logits: np.ndarray) -> int:
    """An action drawn from the softmax of ``logits`` (float64, -inf at illegal actions): the first
    action whose running sum of ``exp(logit - max)`` passes one word of the stream as a fraction
    of the total (the batched policy's rule, row by row)."""
    running = np.cumsum(np.exp(logits - logits.max()))
    return int(np.argmax(running > unit(stream.draw()) * running[-1]))


class LazyObservation(Mapping):
    """A seat's ``{"observation", "action_mask"}`` whose vector and mask are built only if asked for.

    Scripted agents read the view (and seldom the mask); only learned policies need the vector,
    and encoding it (with beliefs, when the layout has them) for every scripted decision would cost
    more than the decision itself.
    """

    __slots__ = ("_encode", "_mask", "_masker", "_vector")

    def __init__(self, action_mask: Callable[[], np.ndarray], encode: Callable[[], np.ndarray]) -> None:
        self._masker = action_mask
        self._encode = encode
        self._mask: np.ndarray | None = None
        self._vector: np.ndarray | None = None

    @property
    def action_mask(self) -> np.ndarray:
        if self._mask is None:
            self._mask = self._masker()
        return self._mask

    def __getitem__(self, key: str) -> np.ndarray:
        if key == "action_mask":
            return self.action_mask
        if key == "observation":
            if self._vector is None:
                self._vector = self._encode()
            return self._vector
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(("observation", "action_mask"))

    def __len__(self) -> int:
        return 2
