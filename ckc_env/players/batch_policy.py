"""A trained policy for the batched engine: one forward pass of its NumPy network over every game it acts in."""

from __future__ import annotations

import numpy as np

from .. import batch
from ..batch.agents import BatchAgent
from ..batch.second_order import LayoutReaders
from ..batch.state import BatchState, subset
from .loading import AgentSource


class BatchPolicyAgent(BatchAgent):
    """A checkpoint for batches: one forward pass of its NumPy network over every game it acts in
    (the most probable legal action, or one drawn from the policy with ``deterministic=False``). A
    checkpoint that reads the players' posterior (``belief_features="players"`` or
    ``"second_order"``) keeps its readers (:class:`~ckc_env.batch.second_order.LayoutReaders`),
    brought up to date at its own decisions as the scalar ``PolicyAgent``'s are."""

    def __init__(
        self,
        path: str | AgentSource,
        seed: int | None = None,
        deterministic: bool = True,
        trust_checkpoint: bool = False,
    ) -> None:
        from ..players.policy import load_policy

        super().__init__(seed)
        self.name = path.named if isinstance(path, AgentSource) else str(path)
        self.network = load_policy(path, trust_checkpoint)
        self.layout = self.network.layout
        self.deterministic = deterministic
        self.readers = LayoutReaders(self.layout)  # reads the table as each game goes, as PolicyAgent does

    def start(self, games: np.ndarray, keys: np.ndarray) -> None:
        super().start(games, keys)
        self.readers.start(games)

    def observe(self, state: BatchState, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The acting seat's observation in each of ``games`` in the network's layout, its readers
        brought up to date, and the legal actions (bool)."""
        games = np.asarray(games, dtype=np.int64)
        # on the whole batch: a reader keeps each game's reading by its index
        posteriors = self.readers.posteriors(state, games, state.pending_seat[games].astype(np.int64))
        part = subset(state, games)
        return batch.observe(part, layout=self.layout, **posteriors), batch.legal_action_mask(part).astype(bool)

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        games = np.asarray(games, dtype=np.int64)
        observations, legal = self.observe(state, games)
        logits = self.network.logits(observations).astype(np.float64)  # finite, or an error naming the file
        logits[~legal] = -np.inf
        if self.deterministic:
            chosen = np.argmax(logits, axis=1)
        else:
            running = np.cumsum(np.exp(logits - logits.max(1, keepdims=True)), axis=1)  # 0 at illegal actions
            fractions = (self.draw(state, games) >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
            draws = fractions[:, None] * running[:, -1:]  # agents.base.sample, row by row
            chosen = np.argmax(running > draws, axis=1)  # the first action past the draw: a legal one
        if not legal[np.arange(len(games)), chosen].all():  # never handed to batch.apply, which trusts its caller
            raise ValueError(
                f"checkpoint {self.name} chose an illegal action in {int((~legal[np.arange(len(games)), chosen]).sum())} game(s)"
            )
        return chosen

    def __repr__(self) -> str:
        return f"BatchPolicyAgent({self.name!r})"
