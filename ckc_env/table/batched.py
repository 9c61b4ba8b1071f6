"""Games on the batched engine as the fronts see them: the rewards of chosen seats under a scheme,
and the loop that lets the batched players decide, each for all the games where it is to act in
one call. The vector environment and the batched tournaments are built on it.

Every decision a batched player makes is checked before the engine applies it (:func:`check_actions`,
as the scalar table checks each agent's choice): ``batch.apply`` trusts its caller, so an action out
of range would otherwise fail deep in the rules and an illegal one would be played. The check is one
legal-action mask per pass (of the acting games' rows only, when they are few) and one fancy index
into it: about 3% of the time of a tournament or of the vector environment's steps at B = 4096,
with random or bayes_v1 players (``benchmarks/bench_batch.py --check-only``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import batch
from ..batch.agents import BatchAgent
from ..batch.state import BatchState
from ..engine.actions import DECISION_KINDS, N_ACTIONS, action_to_string
from . import rewards


def all_rewards(state: BatchState, scheme: str | rewards.Scheme) -> np.ndarray:
    """(B, 5) every seat's reward from the engine's last call under the scheme (0 at seats a game
    does not have). A game that ended in the call is read from ``state.record``, which holds it also
    after an automatic reset."""
    n = state.n.astype(np.int64)[:, None]
    return rewards.scheme(scheme).pay_batch(state.rewards, n, state.record.winners, state.terminated[:, None])


def seat_rewards(state: BatchState, seats: np.ndarray, scheme: str | rewards.Scheme) -> np.ndarray:
    """(B,) the reward of seat ``seats[b]`` of each game from the engine's last call, under the scheme."""
    return all_rewards(state, scheme)[np.arange(state.batch_size), seats]


def game_returns(state: BatchState, seats: np.ndarray, scheme: str | rewards.Scheme) -> np.ndarray:
    """(B,) what seat ``seats[b]`` of each finished game earned over it under the scheme: the sum of
    its rewards (its points; its points less the others' mean; its win reward)."""
    n = state.n.astype(np.int64)[:, None]
    returns = rewards.scheme(scheme).pay_batch(state.points.astype(np.float64), n, state.winners, True)
    return returns[np.arange(state.batch_size), seats]


Answer = tuple[BatchAgent, np.ndarray, Any]
"""A batched player's decisions: (the player, the games it was asked about, what its ``act`` returned)."""


def check_actions(state: BatchState, answers: Sequence[Answer]) -> np.ndarray:
    """(B,) int64: the actions of the answers' games (0 elsewhere), each checked as the scalar table
    checks an agent's choice. A ``ValueError`` names the player, and for its first few games at
    fault the game (its index in the batch), the seat, the action and the legal actions, when an
    answer is not an integer array of one action per game, or holds an action out of
    0..N_ACTIONS-1 or not legal in its game. Games must have a pending decision."""
    actions = np.zeros(state.batch_size, dtype=np.int64)
    answers = [(player, np.asarray(games, dtype=np.int64), chosen) for player, games, chosen in answers]
    for player, games, chosen in answers:
        chosen = np.asarray(chosen)
        if chosen.shape != games.shape or not np.issubdtype(chosen.dtype, np.integer):
            _refuse(
                state,
                player,
                games,
                None,
                f"returned {chosen.dtype} of shape {chosen.shape} for {len(games)} game(s), not one integer action per game",
            )
        inside = (chosen >= 0) & (chosen < N_ACTIONS)  # before the cast: a uint64 beyond 2**63 would wrap
        if not inside.all():
            _refuse(state, player, games[~inside], chosen[~inside], f"chose actions outside 0..{N_ACTIONS - 1}")
        actions[games] = chosen
    if answers:
        every = np.concatenate([games for _, games, _ in answers])
        if 2 * len(every) < state.batch_size:  # a few games (the vector env's many small passes): their rows only
            legal = batch.legal_action_mask(_Rows(state, every))[np.arange(len(every)), actions[every]]
        else:
            legal = batch.legal_action_mask(state)[every, actions[every]]
        if not legal.all():
            mask = batch.legal_action_mask(state)
            for player, games, _ in answers:
                fine = mask[games, actions[games]] == 1
                if not fine.all():
                    _refuse(state, player, games[~fine], actions[games[~fine]], "chose illegal actions", mask)
    return actions


class _Rows:
    """The games ``rows`` of a batch as a batch to read, each per-game array indexed when first read
    (``batch.state.subset`` copies all of them at once): ``legal_action_mask`` of a few games of a
    large batch then costs as much as their mask, not the batch's."""

    def __init__(self, state: BatchState, rows: np.ndarray) -> None:
        self._state = state
        self._rows = rows
        self.batch_size = len(rows)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._state, name)
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == self._state.batch_size:
            value = value[self._rows]  # a per-game array, by the test batch.state.subset applies
        setattr(self, name, value)
        return value


def _refuse(
    state: BatchState,
    player: BatchAgent,
    games: np.ndarray,
    chosen: np.ndarray | None,
    what: str,
    mask: np.ndarray | None = None,
    shown: int = 5,
) -> None:
    """Raise the check's ValueError: the player and what it did, with its first ``shown`` games at fault."""
    mask = batch.legal_action_mask(state) if mask is None else mask
    details = []
    for k, g in enumerate(games[:shown].tolist()):
        kind = int(state.pending_kind[g])
        decision = DECISION_KINDS[kind] if 0 <= kind < len(DECISION_KINDS) else "no pending decision"
        action = "" if chosen is None else f", action {chosen[k].item()!r}"
        legal = ", ".join(f"{a} ({action_to_string(a)})" for a in np.flatnonzero(mask[g]).tolist()) or "none"
        details.append(f"game {g} (seat {int(state.pending_seat[g])}, {decision}){action}, legal: {legal}")
    more = f" (the first {shown} of {len(games)} shown)" if len(games) > shown else ""
    raise ValueError(f"batched player {player!r} {what}: " + "; ".join(details) + more)


def play(
    state: BatchState,
    players: Sequence[BatchAgent],
    waiting: Callable[[], np.ndarray],
    player_of: Callable[[np.ndarray], np.ndarray],
    after: Callable[[], None] | None = None,
) -> None:
    """Until no game waits (``waiting()``: the games whose pending decision a player here makes):
    each player ``players[i]`` decides in one call for the waiting games where ``player_of`` says
    it acts; the actions are checked (:func:`check_actions`) and applied together, then ``after()``
    reads what the step gave."""
    while True:
        games = waiting()
        if not len(games):
            return
        who = player_of(games)
        answers = []
        for index in np.unique(who):
            acting = games[who == index]
            answers.append((players[index], acting, players[index].act(state, acting)))
        batch.apply(state, check_actions(state, answers), games=games)
        if after is not None:
            after()
