"""Games on the batched engine as the fronts see them: the rewards of chosen seats under a scheme,
and the loop that lets the batched players decide, each for all the games where it is to act in
one call. The vector environment and the batched tournaments are built on it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .. import batch
from ..batch.agents import BatchAgent
from ..batch.state import SEATS, BatchState
from . import rewards

_SEAT_RANGE = np.arange(SEATS)


def seat_rewards(state: BatchState, seats: np.ndarray, scheme: str) -> np.ndarray:
    """(B,) the reward of seat ``seats[b]`` of each game from the engine's last call, under the
    scheme (the same formulas as the scalar table's, on arrays)."""
    games = np.arange(state.batch_size)
    gained = state.rewards[games, seats]
    if scheme == "points":
        return gained.copy()
    n = state.n.astype(np.int64)
    if scheme == "margin":
        return rewards.margin(gained, state.rewards.sum(1), n)
    over = state.terminated
    winners = state.winners & (_SEAT_RANGE[None, :] < n[:, None])
    won = winners[games, seats]
    return np.where(over, rewards.win(won, winners.sum(1), n), 0.0)


def play(
    state: BatchState,
    players: Sequence[BatchAgent],
    waiting: Callable[[], np.ndarray],
    player_of: Callable[[np.ndarray], np.ndarray],
    after: Callable[[], None] | None = None,
) -> None:
    """Until no game waits (``waiting()``: the games whose pending decision a player here makes):
    each player ``players[i]`` decides in one call for the waiting games where ``player_of`` says
    it acts; the actions are applied together, then ``after()`` reads what the step gave."""
    size = state.batch_size
    while True:
        games = waiting()
        if not len(games):
            return
        who = player_of(games)
        actions = np.zeros(size, dtype=np.int64)
        for index in np.unique(who):
            acting = games[who == index]
            actions[acting] = players[index].act(state, acting)
        batch.apply(state, actions, games=games)
        if after is not None:
            after()
