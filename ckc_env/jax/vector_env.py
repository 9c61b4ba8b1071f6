"""The learner's view of the JAX engine: B single-agent games as pure functions, for a training loop
compiled whole on the device.

Its NumPy twin: ckc_env/envs/vector.py (``CheckpointCharlieVectorEnv``). The same view: each slot's
learner holds one seat (fixed, or drawn at every deal), the other seats are played inside
:func:`step` by the JAX players (``jax.registry`` names and safe agent files, ``jax.tournament``'s
forms) until every game waits for its learner; the reward is the scheme's (``points``, ``margin``,
``win``), everything the learner earned since its previous decision; a game that ends is dealt
again in the same step (gymnasium's ``SAME_STEP`` autoreset): the observation returned is the next
game's first, and ``Step.done`` marks the transition that ended one.

    env = VectorEnv.build(config)                       # static: rules, players, layout, scheme
    state, obs, mask = reset(env, key, 4096)            # jax.random key: deals, seats, tables
    state, out = step(env, state, actions)              # out: obs, mask, reward, done, results
    jax.lax.scan(lambda s, a: step(env, s, a), ...)     # inside a jitted rollout

Everything is branch-free and of fixed shape, so ``jax.jit`` and ``lax.scan`` take it; the only
Python-side choices are static (the players, the layout, the scheme, the player counts).

Differences from the NumPy twin, none of which changes the game: the learner never chooses an
illegal action (the policy samples from the legal ones; there is no illegal-action ending); the
deals of a slot's next games follow its key (``chance.next_key``), and the counts, seats and
tables are drawn with ``jax.random`` from the key the caller threads; the opponents' streams are
keyed by each game's key (``jax.players.seat_keys``), as the NumPy twin keys them. A population is
a list of opponents tables drawn at every deal by weights the caller passes in the state
(``EnvState.weights``), so a host loop can move them between compiled calls (prioritised fictitious
self-play).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ..config import GameConfig
from ..layout import Layout
from ..observation import ENV_VERSION, LAYOUTS
from ..players import specs
from ..table import options as table_options
from ..table import rewards
from . import chance, compiled, game, observation
from . import players as jax_players
from .game import STATIC_OPTIONS
from .state import Options, Rules, State, options_of, put, rules_of
from .tournament import Form, decide_where, jax_form, where_games

SEATS = 5
I32, F32 = jnp.int32, jnp.float32
SHARED = -3
"""In ``VectorEnv.seat_form``: a seat the learner itself holds (``self_seats="shared"``)."""
SNAPSHOT = -4
"""In ``VectorEnv.seat_form``: a seat one of the learner's snapshots plays (``self_seats="snapshots"``)."""


# ---------------------------------------------------------------------------------------------- the static part
@dataclass(frozen=True, eq=False)
class VectorEnv:
    """What is fixed for a training run: the rules, the opponents' forms, which form sits where, the
    observation's layout and the reward scheme. Hashable by identity (a ``jax.jit`` static argument:
    build it once per run)."""

    rules: Rules
    options: Options  # the game options every count shares (data; the count is drawn per deal)
    counts: tuple[int, ...]  # the counts a deal draws from (a count listed k times: k times as often)
    learner_seat: int  # -1: drawn uniformly at every deal
    scheme: str  # points | margin | win
    layout: Layout
    forms: tuple[Form, ...]  # the distinct opponents' forms
    seat_form: np.ndarray  # (members, 6, 5) int32: the form k seats after the learner at n players, -1 none
    first_player: int  # -1: drawn

    @property
    def members(self) -> int:
        return self.seat_form.shape[0]

    @property
    def reads_players(self) -> bool:
        return "players_chief" in self.layout.offsets

    @property
    def observation_size(self) -> int:
        return self.layout.size

    @staticmethod
    def build(
        game: dict[str, Any],
        tables: Sequence[Any],
        learner_seat: int | str = "random",
        belief_features: bool | str = True,
        reward: str = "points",
        trust_checkpoint: bool = False,
        self_seats: str | None = None,
    ) -> VectorEnv:
        """From a game's options (``num_players`` a count or a list), the opponents tables (each as
        ``opponents`` takes it: one spec, a list of n-1, or ``{count: ...}``; several make a
        population), the learner's seat, the layout and the reward scheme. Every player must have a
        JAX form (``jax.tournament.jax_form``: a ValueError names the ones that have none).
        ``self_seats``: a ``"self"`` opponent is a seat the learner holds (``"shared"``:
        :data:`SHARED`) or one of its snapshots plays (``"snapshots"``: :data:`SNAPSHOT`); the
        table's view, ``jax.table_env``, plays those."""
        rules_options = dict(game)
        counts = table_options.player_counts(rules_options.pop("num_players", 5))
        configs = table_options.game_configs(rules_options, sorted(set(counts)))
        first = configs[counts[0]]
        table_options.learner_seat(learner_seat, counts)
        scheme = rewards.scheme(reward).name
        if belief_features == "second_order":
            raise ValueError(
                "belief_features='second_order' has no JAX reader: the JAX engine trains with false, true or 'players'"
            )
        layout = LAYOUTS[ENV_VERSION][table_options.belief_features(belief_features)]
        forms: list[Form] = []
        by_label: dict[str, int] = {}
        held = {"shared": SHARED, "snapshots": SNAPSHOT}.get(self_seats or "")
        seat_form = np.full((len(tables), 6, SEATS), -1, dtype=np.int32)
        for m, table in enumerate(tables):
            by_count = table_options.opponents_by_count(table, list(sorted(set(counts))), what=f"population[{m}]")
            for n, row in by_count.items():
                for k, spec in enumerate(row, start=1):
                    label = specs.label(spec)
                    if held is not None and label == specs.SELF:  # the table's view plays these
                        seat_form[m, n, k] = held
                        continue
                    if label not in by_label:
                        by_label[label] = len(forms)
                        forms.append(jax_form(spec, trust_checkpoint))
                    seat_form[m, n, k] = by_label[label]
        seat = -1 if learner_seat == "random" else int(learner_seat)
        option = first.first_player
        return VectorEnv(
            rules=rules_of(GameConfig(**{name: getattr(first, name) for name in STATIC_OPTIONS})),
            options=options_of(first),
            counts=tuple(counts),
            learner_seat=seat,
            scheme=scheme,
            layout=layout,
            forms=tuple(forms),
            seat_form=seat_form,
            first_player=-1 if option == "random" else int(option),
        )


# ---------------------------------------------------------------------------------------------- the state
class EnvState(NamedTuple):
    """B slots: each game, the learner's seat and table, the opponents' carries (one batch per
    form), the learner's reading of the other players (layouts with ``players_*``; else None), the
    reward earned in a new game before the learner's first decision, the population's weights and
    the key of the next draws."""

    games: State
    seat: jax.Array  # (B,) int32
    member: jax.Array  # (B,) int32
    carries: tuple[Any, ...]
    reading: Any
    pending: jax.Array  # (B,) float32
    weights: jax.Array  # (members,) float32, the population's sampling weights
    key: jax.Array  # a jax.random key


class Step(NamedTuple):
    """What one learner step gives per slot (all (B, ...)): the next observation and legal actions
    (of the next game where one ended), the reward, whether a game ended, and that game's results."""

    obs: jax.Array
    mask: jax.Array
    reward: jax.Array
    done: jax.Array
    win_share: jax.Array  # the learner's share of the win (1/k for each of k winners)
    points: jax.Array
    margin: jax.Array  # its points less the others' mean
    member: jax.Array  # the table the ended game was played against


# ---------------------------------------------------------------------------------------------- rewards
def seat_rewards(scheme: str, games: State) -> jax.Array:
    """(B, 5) the scheme's reward of every seat for the engine's last step (``table.rewards``; 0 at
    the seats a game does not have)."""
    n = games.n.astype(F32)[:, None]
    present = jnp.arange(SEATS)[None, :] < games.n.astype(I32)[:, None]
    gained = jnp.where(present, games.rewards.astype(F32), 0.0)
    if scheme == "points":
        return gained
    if scheme == "margin":
        return jnp.where(present, rewards.margin(gained, gained.sum(1, keepdims=True), n), 0.0)
    winners = games.winners & present
    count = winners.sum(1, keepdims=True).astype(F32)
    won = winners.astype(F32)
    paid = won / jnp.maximum(count, 1.0) - (1.0 - won) / jnp.maximum(n - count, 1.0)  # rewards.win, in jnp
    return jnp.where(present & games.terminated[:, None], paid, 0.0)


def _learner_reward(env: VectorEnv, games: State, seat: jax.Array) -> jax.Array:
    """(B,) the scheme's reward of each learner for the engine's last step."""
    return seat_rewards(env.scheme, games)[jnp.arange(seat.shape[0]), seat]


def _results(games: State, seat: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(B,) the learner's win share, points and margin in each game as it stands (read at its end)."""
    rows = jnp.arange(seat.shape[0])
    present = jnp.arange(SEATS)[None, :] < games.n.astype(I32)[:, None]
    winners = games.winners & present
    won = winners[rows, seat].astype(F32)
    share = won / jnp.maximum(winners.sum(1), 1).astype(F32)
    points = jnp.where(present, games.points.astype(F32), 0.0)
    own = points[rows, seat]
    return share, own, rewards.margin(own, points.sum(1), games.n.astype(F32))


# ---------------------------------------------------------------------------------------------- dealing
def _draws(env: VectorEnv, key: jax.Array, size: int, weights: jax.Array) -> tuple[jax.Array, ...]:
    """(B,) a count, a learner seat and a table for each of ``size`` new games."""
    k_count, k_seat, k_member = jax.random.split(key, 3)
    counts = jnp.asarray(env.counts, I32)
    n = counts[jax.random.randint(k_count, (size,), 0, len(env.counts))]
    if env.learner_seat >= 0:
        seat = jnp.full(size, env.learner_seat, I32)
    else:
        seat = jnp.floor(jax.random.uniform(k_seat, (size,)) * n).astype(I32)
    if env.members == 1:
        member = jnp.zeros(size, I32)
    else:
        member = jax.random.categorical(k_member, jnp.log(weights), shape=(size,)).astype(I32)
    return n, seat, member


def _start_carries(env: VectorEnv, games: State) -> tuple[Any, ...]:
    """Each form's carries for the games as dealt: streams keyed by each game's key (``seat_keys``)."""
    seat_keys = jax.vmap(jax_players.seat_keys)(games.key)
    return tuple(jax.vmap(form.start)(games.key, seat_keys) for form in env.forms)


def _start_reading(env: VectorEnv, size: int) -> Any:
    if not env.reads_players:
        return None
    from .players_posterior import init

    return jax.vmap(lambda _: init())(jnp.arange(size))


class Dealt(NamedTuple):
    """What dealing again gives a view: the next key, the games, the forms' carries, and each
    slot's learner seat and table (the new ones where dealt, the old elsewhere)."""

    key: jax.Array
    games: State
    carries: tuple[Any, ...]
    seat: jax.Array
    member: jax.Array


def deal_again(
    env: Any, games: State, carries: tuple[Any, ...], seat: jax.Array, member: jax.Array, key: jax.Array,
    weights: jax.Array, flags: jax.Array,
) -> Dealt:  # fmt: skip
    """The next game of each slot where ``flags``: its next key (``chance.next_key``), a new count,
    seat and table drawn from ``key``, the forms' carries started anew; both views deal this way."""
    key, draw_key = jax.random.split(key)
    size = flags.shape[0]
    n, new_seat, new_member = _draws(env, draw_key, size, weights)
    renewed = put(games, n=jnp.where(flags, n, games.n.astype(I32)), key=chance.next_key(games.key))

    def deal(part: State) -> State:
        return jax.vmap(partial(game.init_one, env.rules))(
            part.key, part.n.astype(I32), part.first_player_option.astype(I32), part.options
        )

    games = game.on_games(flags, deal, where_games(flags, renewed, games), game.pass_size(size, 8))
    carries = tuple(where_games(flags, new, old) for new, old in zip(_start_carries(env, games), carries, strict=True))
    return Dealt(key, games, carries, jnp.where(flags, new_seat, seat), jnp.where(flags, new_member, member))


def _deal_again(env: VectorEnv, es: EnvState, flags: jax.Array) -> EnvState:
    """The next game of each slot where ``flags``: its next key, a new count, seat and table."""
    dealt = deal_again(env, es.games, es.carries, es.seat, es.member, es.key, es.weights, flags)
    reading = es.reading
    if env.reads_players:
        reading = where_games(flags, _start_reading(env, flags.shape[0]), reading)
    return es._replace(
        games=dealt.games,
        seat=dealt.seat,
        member=dealt.member,
        carries=dealt.carries,
        reading=reading,
        key=dealt.key,
    )


# ---------------------------------------------------------------------------------------------- playing on
def _opponents_act(env: VectorEnv, es: EnvState, waiting: jax.Array) -> tuple[jax.Array, tuple[Any, ...]]:
    """The actions of the opponents in the games where one is to act (0 elsewhere), each form
    deciding for its games (``decide_where``), and the forms' carries."""
    games = es.games
    size = waiting.shape[0]
    n = games.n.astype(I32)
    offset = (jnp.clip(games.pending_seat.astype(I32), 0) - es.seat) % jnp.maximum(n, 1)
    who = jnp.asarray(env.seat_form)[es.member, n, offset]
    actions = jnp.zeros(size, I32)
    carries = []
    for i, (form, carry) in enumerate(zip(env.forms, es.carries, strict=True)):
        decide = partial(form.act, env.rules, weights=form.weights())
        chosen, moved = decide_where(waiting & (who == i), decide, games, carry, max(1, size // 4))
        actions = actions + chosen
        carries.append(moved)
    return actions, tuple(carries)


class _Settling(NamedTuple):
    es: EnvState
    paid: jax.Array  # the reward of the transition being completed
    done: jax.Array  # the learner's game ended in this step
    renewed: jax.Array  # the slot has been dealt again in this step
    share: jax.Array
    points: jax.Array
    margin: jax.Array
    member: jax.Array


def _settle(env: VectorEnv, carry: _Settling) -> _Settling:
    """Until every game waits for its learner: deal again the games that are over (recording the
    learner's results where its game ended), and let the opponents act where they are to."""

    def unsettled(c: _Settling) -> jax.Array:
        games = c.es.games
        over = games.pending_kind < 0
        waiting = (games.pending_kind >= 0) & (games.pending_seat.astype(I32) != c.es.seat)
        return jnp.any(over | waiting)

    def body(c: _Settling) -> _Settling:
        es = c.es
        over = es.games.pending_kind < 0
        ended = over & ~c.renewed  # the learner's game: its transition ends the episode
        share, points, margin = _results(es.games, es.seat)
        c = c._replace(
            done=c.done | ended,
            share=jnp.where(ended, share, c.share),
            points=jnp.where(ended, points, c.points),
            margin=jnp.where(ended, margin, c.margin),
            member=jnp.where(ended, es.member, c.member),
        )
        # a game dealt in this step that ends before its learner decides is dealt again, unpaid
        es = es._replace(pending=jnp.where(over & c.renewed, 0.0, es.pending))
        es = _deal_again(env, es, over)
        renewed = c.renewed | over
        waiting = (es.games.pending_kind >= 0) & (es.games.pending_seat.astype(I32) != es.seat)
        actions, carries = _opponents_act(env, es, waiting)
        stepped = game.step(env.rules, es.games, actions)
        games = where_games(waiting, stepped, es.games)
        earned = jnp.where(waiting, _learner_reward(env, games, es.seat), 0.0)
        es = es._replace(games=games, carries=carries, pending=es.pending + jnp.where(renewed, earned, 0.0))
        return c._replace(es=es, paid=c.paid + jnp.where(renewed, 0.0, earned), renewed=renewed)

    return jax.lax.while_loop(unsettled, body, carry)


def _observe(env: VectorEnv, es: EnvState) -> tuple[EnvState, jax.Array, jax.Array]:
    """Every learner's observation (its reading of the other players brought up to date) and legal actions."""
    observe = partial(observation.observe_reading, env.rules, env.layout)
    obs, reading = jax.vmap(observe)(es.games, es.seat, es.reading)
    mask = game.legal_action_mask(env.rules, es.games)
    return es._replace(reading=reading), obs, mask


# ---------------------------------------------------------------------------------------------- the API
def _empty_settling(es: EnvState, paid: jax.Array) -> _Settling:
    zeros = jnp.zeros_like(paid)
    false = jnp.zeros(paid.shape, bool)
    return _Settling(es, paid, false, false, zeros, zeros, zeros, jnp.zeros(paid.shape, I32))


@compiled.entry(static=("env", "size"), keep=2, what="the learner's first deal (reset)", first="up to a minute")
def reset(
    env: VectorEnv, key: jax.Array, size: int, weights: jax.Array | None = None
) -> tuple[EnvState, jax.Array, jax.Array]:
    """``size`` new games, each played up to its learner's first decision: the state, the
    observations (size, layout.size) and the legal actions (size, 40). ``weights``: the
    population's sampling weights (default equal)."""
    key, deal_key, draw_key = jax.random.split(key, 3)
    weights = jnp.ones(env.members, F32) if weights is None else jnp.asarray(weights, F32)
    n, seat, member = _draws(env, draw_key, size, weights)
    keys = jax.random.bits(deal_key, (size, 2), jnp.uint32)
    options = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(jnp.asarray(x), (size,)), env.options)
    games = game.init(env.rules, keys, n, jnp.full(size, env.first_player, I32), options)
    es = EnvState(
        games=games,
        seat=seat,
        member=member,
        carries=_start_carries(env, games),
        reading=_start_reading(env, size),
        pending=jnp.zeros(size, F32),
        weights=weights,
        key=key,
    )
    settled = _settle(env, _empty_settling(es, jnp.zeros(size, F32)))
    # the rewards of the first games before their learner's first decision are paid at its first step
    # (a game that ended before it is gone, and so is what was earned in it)
    es = settled.es._replace(pending=settled.es.pending + jnp.where(settled.done, 0.0, settled.paid))
    return _observe(env, es)


def step(env: VectorEnv, es: EnvState, actions: jax.Array) -> tuple[EnvState, Step]:
    """Every learner's action (each game waits for its learner), then the opponents until every
    game waits for its learner again; the games that end are dealt again (``Step.done``)."""
    games = game.step(env.rules, es.games, jnp.asarray(actions, I32))
    paid = es.pending + _learner_reward(env, games, es.seat)
    es = es._replace(games=games, pending=jnp.zeros_like(es.pending))
    settled = _settle(env, _empty_settling(es, paid))
    es, obs, mask = _observe(env, settled.es)
    out = Step(obs, mask, settled.paid, settled.done, settled.share, settled.points, settled.margin, settled.member)
    return es, out


__all__ = ["EnvState", "Step", "VectorEnv", "reset", "step"]
