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


def all_rewards(state: BatchState, scheme: str) -> np.ndarray:
    """(B, 5) every seat's reward from the engine's last call under the scheme (the same formulas
    as the scalar table's, on arrays; 0 at seats a game does not have). A game that ended in the
    call is read from ``state.record``, which holds it also after an automatic reset."""
    gained = state.rewards
    if scheme == "points":
        return gained.copy()
    if scheme == "margin":
        n = state.n.astype(np.int64)[:, None]
        return np.where(n > _SEAT_RANGE, rewards.margin(gained, gained.sum(1, keepdims=True), n), 0.0)
    n = state.record.n.astype(np.int64)[:, None]
    present = n > _SEAT_RANGE
    winners = state.record.winners & present
    won = rewards.win(winners, winners.sum(1, keepdims=True), n)
    return np.where(state.terminated[:, None] & present, won, 0.0)


def seat_rewards(state: BatchState, seats: np.ndarray, scheme: str) -> np.ndarray:
    """(B,) the reward of seat ``seats[b]`` of each game from the engine's last call, under the scheme."""
    return all_rewards(state, scheme)[np.arange(state.batch_size), seats]


def game_returns(state: BatchState, seats: np.ndarray, scheme: str) -> np.ndarray:
    """(B,) what seat ``seats[b]`` of each finished game earned over it under the scheme: the sum of
    its rewards (its points; its points less the others' mean; its win reward)."""
    rows = np.arange(state.batch_size)
    n = state.n.astype(np.int64)
    points = state.points[rows, seats].astype(np.float64)
    if scheme == "points":
        return points
    if scheme == "margin":
        return rewards.margin(points, state.points.sum(1).astype(np.float64), n)
    winners = state.winners & (n[:, None] > _SEAT_RANGE)
    return rewards.win(winners[rows, seats].astype(np.float64), winners.sum(1), n)


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
