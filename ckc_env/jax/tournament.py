"""A tournament's games on the JAX engine: the whole game loop on the device, one jitted call.

Why: ``evaluation.tournament.play_batched`` steps the NumPy engine from Python, a host round trip
per step and per player; here every step of every game (each player deciding where its seat acts,
the engine's step, the rounds and chief catches counted) runs inside one ``lax.while_loop`` until
every game is over, so an accelerator plays a chunk of games without leaving the device.

    from ckc_env.jax.tournament import play_jax
    records = play_jax(["bayes_v1", "random", "eager"], {"num_players": 3}, seed=0, game_ids=range(600))

:func:`play_jax` has :func:`~ckc_env.evaluation.tournament.play_batched`'s contract and records:
game g is dealt ``derive_seed(seed, "game", g)`` (``chance.keys_of_seeds``), seated by
``arrangements[g % len]`` (default rotation), and the player at seat s draws from the stream keyed
``key_of(derive_seed(seed, "agent", g, s))``. Every JAX player decides as its NumPy twin on the same
position and stream, so the records are the batched engine's, game for game, but where a float32
near-tie turns a bayes_v1, bayes_v2 or agent decision the other way (``jax.players``,
``jax.players_posterior``, ``jax.policy``).

Players are the specs of :mod:`ckc_env.players.specs`, checked by ``players.resolve``:

| spec | JAX form |
|---|---|
| a name of ``jax.registry.REGISTRY`` (``random``, ``passive``, ``eager``, ``bayes_v1``, ``cheater``, ``bayes_v2``), with parameters | that :class:`~ckc_env.jax.players.Player` |
| a safe agent file (card or run folder), ``deterministic`` as a parameter | its :mod:`~ckc_env.jax.policy` network on the observation of its layout; the ``players_*`` pieces from a reading kept per (game, seat), brought up to date at its own decisions as ``BatchPolicyAgent``'s readers are |
| anything else (bayes_v3, rollout, search, a zip, an RLlib checkpoint, a ``second_order`` layout) | none: :func:`missing` names them |

A lineup's equal players share one carry: the carries are per seat (streams, readings), so this is
what the NumPy tournament's one object per lineup entry computes. The loop is compiled once per
set of distinct players, batch size (a chunk is padded to a power of two) and the options that shape
the arrays (``game.STATIC_OPTIONS``): the player count and the other options are data in each game,
so the tables of 3, 4 and 5 players of the same players share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..config import COLOURS, GameConfig
from ..engine.actions import N_ACTIONS
from ..engine.chance import key_of
from ..files import short
from ..layout import Layout
from ..players.build import resolve
from ..players.specs import PlayerSpec, label
from ..seeding import derive_seed
from ..table.rewards import win_share
from . import compiled, game, observation, policy
from . import players as jax_players
from .registry import REGISTRY, make_player
from .state import Rules, State, split_keys

SEATS = 5
JAX_GAMES = 8192
"""The most games one jitted call plays (a chunk is padded to a power of two, at least
:data:`MIN_GAMES`, so that few shapes are compiled)."""
MIN_GAMES = 16
CHUNK_SHARE = 4
"""Each player decides for the games where it acts :data:`CHUNK_SHARE` times fewer than the batch
at a time (:func:`decide_where`): about one pass per step for a player at one seat of four."""


def accepted() -> str:
    """What has a JAX form, for the refusals."""
    return f"JAX players are {sorted(REGISTRY)} (with parameters) and safe agent files without second_order_* pieces"


# ---------------------------------------------------------------------------------------------- forms
def _with_keys(carry: Any, keys: jax.Array) -> Any:
    """``carry`` with every :class:`~ckc_env.jax.players.Streams` in it restarted on ``keys``
    (5, 2): the tournament's per-seat streams instead of the game key's ``seat_keys``."""

    def restart(x: Any) -> Any:
        if isinstance(x, jax_players.Streams):
            return jax_players.Streams(keys, jnp.zeros_like(x.counters))
        return x

    return jax.tree_util.tree_map(restart, carry, is_leaf=lambda x: isinstance(x, jax_players.Streams))


@dataclass(frozen=True)
class Scripted:
    """A registered JAX player, vmapped over the batch."""

    player: jax_players.Player

    def weights(self) -> Any:
        return None

    def identity(self) -> Any:
        """What makes two lineup entries one player (one carry): the player itself."""
        return self.player

    def start(self, game_key: jax.Array, seat_keys: jax.Array) -> Any:
        return _with_keys(self.player.start(game_key), seat_keys)

    def act(self, rules: Rules, states: State, carries: Any, weights: Any) -> tuple[jax.Array, Any]:
        return jax.vmap(partial(self.player.act, rules))(states, carries)


class AgentCarry(NamedTuple):
    """An agent's carry in one game: its streams (drawn only when sampling) and, for a layout with
    the ``players_*`` pieces, its reading of the other players (``jax.players_posterior.Reading``)."""

    streams: jax_players.Streams
    reading: Any


@dataclass(frozen=True, eq=False)
class Agent:
    """A safe agent file: one batched forward pass over the observations of every game's acting
    seat (``BatchPolicyAgent``). Its weights travel as an argument of the jitted loop, not as
    constants folded into the compiled code, so two agents compare equal (and share compiled code)
    when their networks have the same shapes, activations and layout: a training run's evaluations
    of its successive models compile the loop once. Within a lineup, :meth:`identity` tells agents
    apart (one carry and one set of weights each)."""

    policy: policy.AgentPolicy
    deterministic: bool = True

    def structure(self) -> tuple[Any, ...]:
        params = self.policy.params
        shapes = tuple(
            (tuple(layer.weight.shape), layer.activation)
            for layers in (params.policy, params.value)
            for layer in layers
        )
        return (self.layout, self.deterministic, shapes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Agent) and self.structure() == other.structure()

    def __hash__(self) -> int:
        return hash(self.structure())

    def identity(self) -> Any:
        """What makes two lineup entries one player: the same loaded file, played alike."""
        return (id(self.policy), self.deterministic)

    @property
    def layout(self) -> Layout:
        return self.policy.layout

    @property
    def reads_players(self) -> bool:
        return "players_chief" in self.layout.offsets

    def weights(self) -> Any:
        return self.policy.params

    def start(self, game_key: jax.Array, seat_keys: jax.Array) -> AgentCarry:
        reading = None
        if self.reads_players:
            from .players_posterior import init

            reading = init()
        return AgentCarry(jax_players.Streams(seat_keys, jnp.zeros(SEATS, jnp.uint32)), reading)

    def act(self, rules: Rules, states: State, carries: AgentCarry, weights: Any) -> tuple[jax.Array, AgentCarry]:
        seats = jnp.clip(states.pending_seat.astype(jnp.int32), 0)
        observe = partial(observation.observe_reading, rules, self.layout)
        obs, reading = jax.vmap(observe)(states, seats, carries.reading)
        mask = jax.vmap(partial(jax_players.legal_mask, rules))(states)
        streams = carries.streams
        if self.deterministic:
            actions = policy.act(weights, obs, mask)
        else:  # one word of the acting seat's stream per decision (BatchAgent.draw)
            rows = jnp.arange(seats.shape[0])
            actions = policy.act(
                weights, obs, mask, streams.keys[rows, seats], streams.counters[rows, seats], deterministic=False
            )
            live = states.pending_kind >= 0
            streams = streams._replace(counters=streams.counters.at[rows, seats].add(live.astype(jnp.uint32)))
        return actions, AgentCarry(streams, reading)


Form = Scripted | Agent


def jax_form(spec: PlayerSpec, trust_checkpoint: bool = False) -> Form:
    """The JAX form of a player spec (checked by ``players.resolve``); a ValueError names the
    player and what has a JAX form when it has none."""
    player = resolve(spec, trust_checkpoint)
    parsed = player.parsed
    if parsed.kind == "agent":
        if parsed.name not in REGISTRY:
            raise ValueError(f"player {short(player.label)} has no JAX form: {accepted()}")
        return Scripted(make_player(parsed.name, **parsed.params))
    source = player.source
    if player.network is None or source is None or source.kind != "card":
        raise ValueError(f"player {short(player.label)} is not a safe agent file, so has no JAX form: {accepted()}")
    loaded = policy.load(source)
    if "second_order_chief" in loaded.layout.offsets:
        raise ValueError(
            f"player {short(player.label)} reads the second_order_* pieces (no JAX reader), so has no JAX form: "
            f"{accepted()}"
        )
    return Agent(loaded, bool(parsed.params.get("deterministic", True)))


def missing(lineup: Sequence[PlayerSpec], trust_checkpoint: bool = False) -> list[str]:
    """The labels of the players of a lineup that have no JAX form."""
    out = []
    for spec in lineup:
        try:
            jax_form(spec, trust_checkpoint)
        except ValueError as exc:
            if "no JAX form" not in str(exc):
                raise  # a bad spec: its own message
            out.append(label(spec))
    return out


# ---------------------------------------------------------------------------------------------- the loop
class Played(NamedTuple):
    """What the loop hands back per game: the final tables and the counts taken along the way."""

    winners: jax.Array  # (B, 5) bool
    points: jax.Array  # (B, 5)
    chip_table: jax.Array  # (B, 5, 4)
    rounds: jax.Array  # (B,) int32
    caught: jax.Array  # (B, 5) int32: chief catches per seat
    illegal: jax.Array  # () int32: illegal actions chosen (refused on the host)
    steps: jax.Array  # () int32: batched steps taken


def where_games(flags: jax.Array, new: Any, old: Any) -> Any:
    """The pytree ``new`` in the games where ``flags`` (B,), ``old`` elsewhere."""
    return jax.tree_util.tree_map(lambda a, b: jnp.where(flags.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), new, old)


def decide_where(flags: jax.Array, decide: Any, state: State, carry: Any, chunk: int) -> tuple[jax.Array, Any]:
    """``decide(states, carries) -> (actions, carries)`` (batched) for the games where ``flags``,
    gathered ``chunk`` at a time into batches of their own, the carries written back there; elsewhere
    action 0 and the carry unchanged. A player acts in a share of the games at each step (and in
    none of those already over), so its posterior is computed for those, not for the whole batch
    (``game.on_games`` does the same for the rounds' ends)."""
    size = flags.shape[0]
    if chunk >= size:
        chosen, moved = decide(state, carry)
        return jnp.where(flags, chosen, 0), where_games(flags, moved, carry)

    def one_chunk(loop: tuple) -> tuple:
        actions, carry, waiting = loop
        games = jnp.nonzero(waiting, size=chunk, fill_value=size)[0]
        take = jnp.minimum(games, size - 1)
        chosen, moved = decide(*jax.tree_util.tree_map(lambda x: x[take], (state, carry)))
        actions = actions.at[games].set(chosen, mode="drop")
        carry = jax.tree_util.tree_map(lambda x, y: x.at[games].set(y, mode="drop"), carry, moved)
        return actions, carry, waiting.at[games].set(False, mode="drop")

    start = (jnp.zeros(size, jnp.int32), carry, flags)
    actions, carry, _ = lax.while_loop(lambda loop: loop[2].any(), one_chunk, start)
    return actions, carry


def _count_rounds(state: State, rounds: jax.Array, caught: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``play_batched``'s ``count_rounds``: a round more in each game whose round just ended, and
    a catch for each seat served for accusing its chief spy."""
    ended = state.round_ended
    record = state.record
    slots = jnp.arange(record.served_cat.shape[-1])
    served = slots[None, :] < record.served_count.astype(jnp.int32)[:, None]
    hit = ended[:, None] & served & (record.served_cat == record.round_chief[:, None])
    at_seat = record.served_seat.astype(jnp.int32)[:, :, None] == jnp.arange(SEATS)
    return rounds + ended.astype(jnp.int32), caught + jnp.sum(hit[:, :, None] & at_seat, axis=1, dtype=jnp.int32)


@compiled.entry(static=("rules", "forms"), keep=8, what="a tournament's games", first="about 20 s")
def play_games(
    rules: Rules,
    forms: tuple[Form, ...],
    state: State,
    seat_form: jax.Array,
    seat_keys: jax.Array,
    weights: tuple[Any, ...],
) -> Played:
    """Play B dealt games (``state``, from ``game.init``) to their end on the device:
    ``forms[seat_form[b, s]]`` decides for seat s of game b ((B, 5) int32), the streams of seat s
    keyed ``seat_keys[b, s]`` ((B, 5, 2) uint32); ``weights[i]`` is ``forms[i].weights()``. The
    deal stays outside (:func:`deal`): compiled once per rules and batch size, whatever the lineup."""
    size = seat_form.shape[0]
    chunk = max(1, size // CHUNK_SHARE)
    carries = tuple(jax.vmap(form.start)(state.key, seat_keys) for form in forms)
    rows = jnp.arange(size)

    def live(carry: tuple) -> jax.Array:
        return jnp.any(carry[0].pending_kind >= 0)

    def one_step(carry: tuple) -> tuple:
        state, carries, rounds, caught, illegal, steps = carry
        acting = state.pending_kind >= 0
        who = seat_form[rows, jnp.clip(state.pending_seat.astype(jnp.int32), 0)]
        actions = jnp.zeros(size, jnp.int32)
        moved = []
        for i, (form, mine_carry, mine_weights) in enumerate(zip(forms, carries, weights, strict=True)):
            decide = partial(form.act, rules, weights=mine_weights)
            chosen, after = decide_where(acting & (who == i), decide, state, mine_carry, chunk)
            actions = actions + chosen  # one form decides in each game, the others give 0
            moved.append(after)
        legal = game.legal_action_mask(rules, state)[rows, jnp.clip(actions, 0, N_ACTIONS - 1)]
        illegal = illegal + jnp.sum(acting & ~legal, dtype=jnp.int32)
        state = game.step(rules, state, actions)
        rounds, caught = _count_rounds(state, rounds, caught)
        return state, tuple(moved), rounds, caught, illegal, steps + 1

    start = (
        state,
        carries,
        jnp.zeros(size, jnp.int32),
        jnp.zeros((size, SEATS), jnp.int32),
        jnp.int32(0),
        jnp.int32(0),
    )
    state, _, rounds, caught, illegal, steps = lax.while_loop(live, one_step, start)
    return Played(state.winners, state.points, state.chip_table, rounds, caught, illegal, steps)


def deal(config: GameConfig, game_ids: np.ndarray, seed: int) -> tuple[Rules, State]:
    """Games ``game_ids`` of a tournament under ``config`` with root ``seed``, dealt and run to their
    first decision (game g from ``derive_seed(seed, "game", g)``), and the rules to play them by:
    those of the options that shape the arrays alone (``game.STATIC_OPTIONS``), the player count and
    the other options being data in each game, so that every table of the same variants and chip
    pool shares compiled code (``game.init_games``)."""
    return game.init_games([config] * len(game_ids), [derive_seed(seed, "game", int(g)) for g in game_ids])


def player_keys(game_ids: np.ndarray, seed: int, n: int) -> np.ndarray:
    """(B, 5, 2) uint32: the stream of seat s in game g keyed ``key_of(derive_seed(seed, "agent", g, s))``
    (the scalar player's seed at that seat), zeros for seats the games do not have."""
    keys = np.zeros((len(game_ids), SEATS), dtype=np.uint64)
    for s in range(n):
        keys[:, s] = [key_of(derive_seed(seed, "agent", int(g), s)) for g in game_ids]
    return split_keys(keys)


def distinct_forms(seated: Sequence[Form], unseated: Sequence[Form] = ()) -> tuple[tuple[Form, ...], np.ndarray]:
    """The distinct forms of a lineup (and of ``unseated`` companions, held but never seated) in a
    canonical order (so that tables of the same players, in any order, share compiled code), and
    each lineup entry's index among them. Equal players share a carry: the carries are kept per
    seat (streams, readings)."""
    distinct = list({form.identity(): form for form in reversed([*seated, *unseated])}.values())
    forms = tuple(sorted(distinct, key=repr))
    index = {form.identity(): k for k, form in enumerate(forms)}
    return forms, np.array([index[f.identity()] for f in seated], dtype=np.int32)


def _padded(count: int) -> int:
    """The batch a chunk of ``count`` games is played in: a power of two, so few shapes compile."""
    return max(MIN_GAMES, 1 << max(0, count - 1).bit_length())


def play_jax(
    lineup: Sequence[PlayerSpec],
    config: dict[str, Any],
    seed: int,
    game_ids: Sequence[int],
    trust: bool = False,
    arrangements: Sequence[Sequence[int]] | None = None,
    companions: Sequence[PlayerSpec] = (),
) -> list[tuple[int, dict[str, Any]]]:
    """The games ``game_ids`` on the JAX engine, seated and seeded as ``play_batched`` seats and
    seeds them (``arrangements``: game g plays ``arrangements[g % len]``; default rotation), in
    chunks of at most :data:`JAX_GAMES`; the same per-game records. ``companions``: players held in
    the compiled loop but not seated, so that tables of different players share one program (an
    unseated form never acts: its carry is started and left alone, and the seated players' streams
    are keyed by game and seat alone)."""
    n = len(lineup)
    ids = np.asarray(list(game_ids), dtype=np.int64)
    if arrangements is None:  # evaluation.seating's "rotate": game g seats slot (s - g) % n at seat s
        arrangements = [[(s - g) % n for s in range(n)] for g in range(n)]
    arrangements = np.asarray(arrangements)
    table = GameConfig.from_dict(config)
    forms, form_of = distinct_forms(
        [jax_form(spec, trust) for spec in lineup], [jax_form(spec, trust) for spec in companions]
    )
    weights = tuple(form.weights() for form in forms)
    out = []
    for begin in range(0, len(ids), JAX_GAMES):
        part = ids[begin : begin + JAX_GAMES]
        count = len(part)
        size = min(JAX_GAMES, _padded(count))
        padded = np.concatenate([part, np.repeat(part[:1], size - count)])  # copies of the first game
        at_seat = arrangements[padded % len(arrangements)]  # (size, n): the lineup index at each seat
        seat_form = np.zeros((size, SEATS), dtype=np.int32)
        seat_form[:, :n] = form_of[at_seat]
        rules, state = deal(table, padded, seed)
        keys = jnp.asarray(player_keys(padded, seed, n))
        played = jax.device_get(play_games(rules, forms, state, jnp.asarray(seat_form), keys, weights))
        if played.illegal:
            raise ValueError(f"a JAX player chose an illegal action {int(played.illegal)} time(s): a bug in its form")
        winners = np.asarray(played.winners)[:count, :n]
        share = win_share(winners, winners.sum(1, keepdims=True))
        rounds = np.asarray(played.rounds)[:count]
        caught = np.asarray(played.caught)[:count, :n].astype(float)
        points = np.asarray(played.points)[:count, :n].astype(float)
        chips = np.asarray(played.chip_table)[:count, :n].astype(float)
        for k, g in enumerate(part):
            out.append(
                (
                    int(g),
                    {
                        "win": share[k].tolist(),
                        "points": points[k].tolist(),
                        **{COLOURS[c]: chips[k, :, c].tolist() for c in range(3)},
                        "chief_rate": (caught[k] / rounds[k]).tolist(),
                        "rounds": int(rounds[k]),
                        "seating": at_seat[k].tolist(),
                    },
                )
            )
    return out


__all__ = [
    "JAX_GAMES",
    "Agent",
    "Played",
    "Scripted",
    "accepted",
    "deal",
    "decide_where",
    "distinct_forms",
    "jax_form",
    "missing",
    "play_games",
    "play_jax",
    "player_keys",
    "where_games",
]
