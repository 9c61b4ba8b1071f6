"""The table's view of the JAX engine: B games in which every game advances by exactly one decision
per step, whoever acts, for a training loop compiled whole on the device.

Why: the learner's view (:mod:`ckc_env.jax.vector_env`) plays the opponents inside its step until
every game waits for its learner, so each learner step costs the slowest game's opponent decisions
at full batch. Here nothing waits: at each step every live game's acting seat decides, the learner's
network where the seat is the learner's, a scripted JAX player (or a safe agent file's network)
elsewhere, each form for the games where it acts (``tournament.decide_where``). Where the learner
holds several seats of a table (self-play with shared parameters: ``self_play.shared``), each of its
decisions is a learner step. The rewards are every seat's (B, 5), so a training loop can keep each
seat's transitions and compute its advantages along that seat's own decisions
(``training/trainers/jax/decisions.py``).

    env = TableEnv.build(game, tables, learner_seat, belief_features, reward)
    ts = reset(env, key, 4096)                       # dealt, the roles of every seat drawn
    seat, learner = acting(ts)                       # each game's acting seat, and whether it is the learner's
    obs, mask = observe(env, ts, seat, where=learner)  # its observation (the learner's games alone), legal actions
    ts, out = step(env, ts, learner_actions)         # every game one decision; ended games dealt again

A role per (game, seat): :data:`LEARNER`, a form's index (``env.forms``), or :data:`EMPTY` past the
game's player count. The deals, counts, seats and tables are drawn as the learner's view draws them
(``vector_env``'s dealing), so a slot's games are the same games whichever view plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from . import game, observation
from .state import State
from .tournament import decide_where, where_games
from .vector_env import (
    F32,
    I32,
    SEATS,
    SHARED,
    SNAPSHOT,
    VectorEnv,
    _draws,
    _results,
    _start_carries,
    deal_again,
    seat_rewards,
)

OPPONENT_SHARE = 4
"""An opponent that holds a small share of the seats decides for its games a quarter of the batch at
a time (``tournament.decide_where``; :meth:`TableEnv.opponent_chunk`)."""
LEARNER = -1
"""A seat the learner's network plays (its own, and the ``self`` seats with shared parameters)."""
EMPTY = -2
"""A seat a game of fewer players does not have."""
FROZEN = -4
"""A seat one of the learner's snapshots plays (a ``self`` opponent without ``self_play.shared``)."""


@dataclass(frozen=True, eq=False)
class TableEnv(VectorEnv):
    """What is fixed for a training run (a ``jax.jit`` static argument, hashable by identity): the
    learner's view's rules, forms and tables (``seat_form`` also marking the ``self`` seats,
    ``vector_env.SHARED`` or ``SNAPSHOT``), and how many snapshots the device keeps."""

    snapshots: int = 0  # the snapshots kept on the device for the FROZEN seats (self_play.keep)
    member_slot: tuple[int, ...] = ()  # per table: the snapshot its FROZEN seats play (-1: one drawn per deal)

    def chunk(self, size: int) -> int:
        """How many games the learner's observations are computed for at a time: all of them where
        it holds half the seats or more (self-play), else ``game.pass_size(size, 4)`` (a sixteenth
        of the batch on a CPU: against four bayes_v1 a random learner acts in about 3 games of 100
        at a step)."""
        held = 1 + (self.seat_form == SHARED).sum(axis=-1)  # (members, 6): its seats per table and count
        counts = np.arange(6)[None, :]
        share = np.max(np.where(np.isin(counts, self.counts), held / np.maximum(counts, 1), 0.0))
        if share >= 0.5:
            return size
        return game.pass_size(size, 4)

    def opponent_chunk(self, size: int, role: int) -> int:
        """How many games an opponent's ``role`` (a form's index, or :data:`FROZEN`) decides for at a
        time: all of them where it holds half the seats or more (its largest share of a table's
        seats over the counts dealt, averaged over the tables), so that nothing is gathered where
        it acts in most games (four bayes_v1: about 96 games of 100 at a step, and gathering their
        states cost 10% of the step on a CPU); else a quarter of the batch (:data:`OPPONENT_SHARE`)."""
        held = np.where(self.seat_form == SNAPSHOT, FROZEN, self.seat_form) == role  # (members, 6, 5)
        counts = np.arange(6)
        share = held.sum(axis=-1) / np.maximum(counts, 1)  # (members, 6)
        share = np.where(np.isin(counts, self.counts)[None, :], share, 0.0).max(axis=-1).mean()
        return size if share >= 0.5 else max(1, size // OPPONENT_SHARE)

    @staticmethod
    def build(
        game_options: dict[str, Any],
        tables: Sequence[Any],
        learner_seat: int | str = "random",
        belief_features: bool | str = True,
        reward: str = "points",
        trust_checkpoint: bool = False,
        snapshots: int = 0,
        member_slot: Sequence[int] = (),
    ) -> TableEnv:
        """As :meth:`VectorEnv.build`, where a ``"self"`` opponent is a seat the learner holds
        (shared parameters), or with ``snapshots`` (how many are kept) a seat one of its snapshots
        plays, drawn at every deal; ``member_slot`` (one per table, or none) binds a table's ``self``
        seats to one snapshot instead (a population's snapshot members: -1 for the others). The
        ``players`` layout keeps a reading per seat the learner's view keeps for one: not here (a
        ValueError says so)."""
        if belief_features == "players":
            raise ValueError(
                "belief_features='players' is not played one decision per step (the learner's reading "
                "is kept for one seat): use vector.loop: learner, or belief_features true or false"
            )
        vector = VectorEnv.build(
            game_options,
            tables,
            learner_seat,
            belief_features,
            reward,
            trust_checkpoint,
            self_seats="snapshots" if snapshots else "shared",
        )
        member_slot = tuple(int(slot) for slot in member_slot)
        if member_slot and (len(member_slot) != len(tables) or not all(-1 <= s < snapshots for s in member_slot)):
            raise ValueError(
                f"member_slot={member_slot}: one entry per table ({len(tables)}), each -1 or a snapshot "
                f"from 0 to {snapshots - 1}"
            )
        vector_fields = {field.name: getattr(vector, field.name) for field in fields(VectorEnv)}
        return TableEnv(**vector_fields, snapshots=snapshots, member_slot=member_slot)


class TableState(NamedTuple):
    """B slots: each game, every seat's role, the learner's own seat (its results are the table's),
    the table drawn, the forms' carries, the population's weights and the key of the next draws."""

    games: State
    role: jax.Array  # (B, 5) int32: LEARNER, a form's index or EMPTY
    seat: jax.Array  # (B,) int32: the learner's own seat
    member: jax.Array  # (B,) int32
    carries: tuple[Any, ...]
    dealt: jax.Array  # (B, 5) float32: what each seat earned as its game was dealt, paid at its first decision
    weights: jax.Array  # (members,) float32
    key: jax.Array
    frozen: Any = None  # the snapshots' networks, stacked (env.snapshots, ...), for the FROZEN seats
    taken: Any = None  # () int32: how many of them are in use (0: the FROZEN seats play uniformly at random)
    pick: Any = None  # (B,) int32: the snapshot each game's FROZEN seats play, drawn at the deal


class Decision(NamedTuple):
    """One step of every game (all (B, ...)): who acted and how, every seat's reward for it, whether
    the game ended, and the learner's results in that game (read where it ended)."""

    seat: jax.Array  # the acting seat (0 where the game had none)
    learner: jax.Array  # bool: the learner's network decided
    reward: jax.Array  # (B, 5) float32: every seat's reward of the scheme for this step
    done: jax.Array  # bool: the game ended in this step (it is dealt again)
    win_share: jax.Array
    points: jax.Array
    margin: jax.Array
    member: jax.Array


# ---------------------------------------------------------------------------------------------- dealing
def _roles(env: TableEnv, n: jax.Array, seat: jax.Array, member: jax.Array) -> jax.Array:
    """(B, 5) every seat's role: the learner's seat LEARNER, seat s the form |s - seat| seats after it."""
    seats = jnp.arange(SEATS)[None, :]
    offset = (seats - seat[:, None]) % jnp.maximum(n, 1)[:, None]
    form = jnp.asarray(env.seat_form)[member[:, None], n[:, None], offset]
    role = jnp.where((offset == 0) | (form == SHARED), LEARNER, jnp.where(form == SNAPSHOT, FROZEN, form))
    return jnp.where(seats < n[:, None], role, EMPTY).astype(I32)


def reset(env: TableEnv, key: jax.Array, size: int, weights: jax.Array | None = None, frozen: Any = None) -> TableState:
    """``size`` new games dealt to their first decision, each seat's role drawn; ``frozen``: the
    stack of ``env.snapshots`` networks the FROZEN seats draw from (none in use yet)."""
    key, deal_key, draw_key = jax.random.split(key, 3)
    weights = jnp.ones(env.members, F32) if weights is None else jnp.asarray(weights, F32)
    n, seat, member = _draws(env, draw_key, size, weights)
    keys = jax.random.bits(deal_key, (size, 2), jnp.uint32)
    options = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(jnp.asarray(x), (size,)), env.options)
    games = game.init(env.rules, keys, n, jnp.full(size, env.first_player, I32), options)
    dealt = seat_rewards(env.scheme, games)
    role = _roles(env, n, seat, member)
    snapshots = {}
    if env.snapshots:
        pick = _member_pick(env, member, jnp.zeros(size, I32))
        snapshots = {"frozen": frozen, "taken": jnp.int32(0), "pick": pick}
    return TableState(games, role, seat, member, _start_carries(env, games), dealt, weights, key, **snapshots)


def _deal_again(env: TableEnv, ts: TableState, flags: jax.Array) -> TableState:
    """The next game of each slot where ``flags`` (``vector_env.deal_again``: the learner's view's
    deals), its seats' roles, what they earned at the deal, and its snapshot."""
    dealt = deal_again(env, ts.games, ts.carries, ts.seat, ts.member, ts.key, ts.weights, flags)
    games, key = dealt.games, dealt.key
    role = jnp.where(flags[:, None], _roles(env, games.n.astype(I32), dealt.seat, dealt.member), ts.role)
    paid = jnp.where(flags[:, None], seat_rewards(env.scheme, games), ts.dealt)
    if env.snapshots:  # each new game's snapshot: its member's, else uniformly among those in use (SnapshotOpponent)
        key, pick_key = jax.random.split(key)
        pick = jax.random.randint(pick_key, (flags.shape[0],), 0, jnp.maximum(ts.taken, 1))
        pick = _member_pick(env, dealt.member, pick)
        ts = ts._replace(pick=jnp.where(flags, pick, ts.pick))
    return ts._replace(
        games=games, role=role, seat=dealt.seat, member=dealt.member, carries=dealt.carries, dealt=paid, key=key
    )


def _member_pick(env: TableEnv, member: jax.Array, drawn: jax.Array) -> jax.Array:
    """(B,) the snapshot of each game's FROZEN seats: its table's own (a population's snapshot
    member), else ``drawn``."""
    if not env.member_slot:
        return drawn
    slot = jnp.asarray(env.member_slot, I32)[member]
    return jnp.where(slot >= 0, slot, drawn)


# ---------------------------------------------------------------------------------------------- a step
def acting(ts: TableState) -> tuple[jax.Array, jax.Array]:
    """(B,) each game's acting seat (0 where none) and whether the learner's network decides there."""
    games = ts.games
    seat = jnp.clip(games.pending_seat.astype(I32), 0)
    live = games.pending_kind >= 0
    return seat, live & (ts.role[jnp.arange(seat.shape[0]), seat] == LEARNER)


def observe(
    env: TableEnv, ts: TableState, seats: jax.Array | None = None, where: jax.Array | None = None
) -> tuple[jax.Array, jax.Array]:
    """(B, layout.size) the observation of ``seats`` (default: each game's acting seat), computed
    for the games ``where`` alone (default all; zeros elsewhere: the bots' games need none), and
    (B, 40) the legal actions of the acting seat."""
    return observed(env, ts, lambda obs: obs, seats, where)


def observed(
    env: TableEnv,
    ts: TableState,
    then: Any,
    seats: jax.Array | None = None,
    where: jax.Array | None = None,
    extras: tuple = (),
    mask: jax.Array | None = None,
) -> tuple[Any, jax.Array]:
    """:func:`observe`, with ``then(obs, *extras)`` (batched: e.g. the observations with a network's
    logits and value, or its sampled action given the legal actions and a key per game in
    ``extras``, each (B, ...)) applied to the observations in the same gathered chunks: the network
    runs for the games ``where`` the learner acts, not over the batch (zeros elsewhere), and the
    legal actions (``mask``, where the caller has them already)."""
    if seats is None:
        seats = acting(ts)[0]
    one = partial(observations, env)
    if mask is None:
        mask = game.legal_action_mask(env.rules, ts.games)
    if where is None:
        return then(one(ts.games, seats), *extras), mask
    inputs = (ts.games, seats, *extras)
    chunk = env.chunk(seats.shape[0])
    return computed_where(where, lambda g, s, *more: then(one(g, s), *more), inputs, chunk), mask


def observations(env: TableEnv, games: State, seats: jax.Array) -> jax.Array:
    """(b, layout.size) the observation of each of ``games``' seat ``seats`` ((b,) each)."""
    return jax.vmap(partial(observation.observe, env.rules, layout=env.layout))(games, seats)


def computed_where(flags: jax.Array, fun: Any, inputs: Any, chunk: int) -> Any:
    """``fun(*inputs)`` (batched) for the games where ``flags``, gathered ``chunk`` at a time; zeros
    elsewhere (``tournament.decide_where``'s gathering, for a function without a carry)."""
    size = flags.shape[0]
    if chunk >= size:
        out = fun(*inputs)
        return where_games(flags, out, jax.tree_util.tree_map(jnp.zeros_like, out))
    shapes = jax.eval_shape(fun, *jax.tree_util.tree_map(lambda x: x[:chunk], inputs))
    zeros = jax.tree_util.tree_map(lambda s: jnp.zeros((size, *s.shape[1:]), s.dtype), shapes)

    def one_chunk(loop: tuple) -> tuple:
        out, waiting = loop
        games = jnp.nonzero(waiting, size=chunk, fill_value=size)[0]
        part = fun(*jax.tree_util.tree_map(lambda x: x[jnp.minimum(games, size - 1)], inputs))
        out = jax.tree_util.tree_map(lambda x, y: x.at[games].set(y, mode="drop"), out, part)
        return out, waiting.at[games].set(False, mode="drop")

    return jax.lax.while_loop(lambda loop: loop[1].any(), one_chunk, (zeros, flags))[0]


def step(env: TableEnv, ts: TableState, learner_actions: jax.Array) -> tuple[TableState, Decision]:
    """Every live game one decision: ``learner_actions`` where the learner's seat acts, each
    opponent form where its seat acts; every seat's reward (the acting seat's with what it earned
    as its game was dealt, at its first decision, as the learner's view pays it); the games that end
    dealt again."""
    games = ts.games
    size = learner_actions.shape[0]
    seat, learner = acting(ts)
    live = games.pending_kind >= 0
    who = ts.role[jnp.arange(size), seat]
    actions = jnp.where(learner, jnp.asarray(learner_actions, I32), 0)
    carries = []
    for i, (form, carry) in enumerate(zip(env.forms, ts.carries, strict=True)):
        decide = partial(form.act, env.rules, weights=form.weights())
        chosen, moved = decide_where(live & (who == i), decide, games, carry, env.opponent_chunk(size, i))
        actions = actions + chosen
        carries.append(moved)
    if env.snapshots:
        key, noise_key = jax.random.split(ts.key)
        noise = jax.random.gumbel(noise_key, (size, 40), F32)
        frozen = partial(_frozen_actions, env, ts.frozen, ts.taken)
        inputs = (games, seat, ts.pick, noise)
        chunk = env.opponent_chunk(size, FROZEN)
        actions = actions + computed_where(live & (who == FROZEN), frozen, inputs, chunk)
        ts = ts._replace(key=key)
    games = game.step(env.rules, games, actions)
    first = jax.nn.one_hot(seat, SEATS, dtype=bool) & live[:, None]  # the acting seat: paid what it earned at the deal
    reward = seat_rewards(env.scheme, games) + jnp.where(first, ts.dealt, 0.0)
    ts = ts._replace(dealt=jnp.where(first, 0.0, ts.dealt))
    done = games.pending_kind < 0
    share, points, margin = _results(games, ts.seat)
    out = Decision(seat, learner, reward, done, share, points, margin, ts.member)
    ts = ts._replace(games=games, carries=tuple(carries))
    return _deal_again(env, ts, done), out


def _frozen_actions(
    env: TableEnv, frozen: Any, taken: jax.Array, games: State, seats: jax.Array, pick: jax.Array, noise: jax.Array
) -> jax.Array:
    """The actions of the games' FROZEN seats: snapshot ``pick`` samples from its masked softmax
    (``noise``: Gumbel noise, (b, 40)), as SB3's snapshot opponents play (not deterministic); before
    the first snapshot, uniformly among the legal actions."""
    from . import policy

    obs = jax.vmap(partial(observation.observe, env.rules, layout=env.layout))(games, seats)
    mask = jax.vmap(partial(game.legal_mask_one, env.rules))(games)
    every = jax.vmap(lambda params: policy.raw_logits(params, obs))(frozen)  # (snapshots, b, 40)
    logits = every[pick, jnp.arange(pick.shape[0])]
    logits = jnp.where(taken > 0, logits, 0.0)
    return jnp.argmax(jnp.where(mask, logits + noise, -jnp.inf), axis=-1).astype(I32)


__all__ = [
    "EMPTY",
    "FROZEN",
    "LEARNER",
    "Decision",
    "TableEnv",
    "TableState",
    "acting",
    "observations",
    "observe",
    "observed",
    "reset",
    "step",
]
