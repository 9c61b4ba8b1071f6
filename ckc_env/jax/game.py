"""The state machine for one game in JAX, vmapped over a batch: ``batch/game.py``'s rules as pure
functions of fixed-shape arrays.

``init_one(rules, key, n)`` deals a game and plays it to its first decision; ``step_one(rules,
state, action, autoreset)`` applies an action to the pending decision and plays on, in a
``lax.while_loop`` over the phases (``lax.switch``), everything that needs no decision (draws,
placements, single-option accusations, hand-outs, the next round's deal) until the game has a
decision with at least two legal actions or is over, exactly as the scalar ``engine.game._advance``
and the batched ``batch.game._advance`` do. With ``autoreset`` a game that ends is replaced in the
same step by the next game of its slot (key ``chance.next_key``), as ``batch.step(autoreset=True)``
does: ``terminated``, ``rewards`` and ``record`` still describe the game that ended.

:func:`init`, :func:`step` and :func:`legal_action_mask` are the batched forms (``jax.vmap``),
compiled once per :class:`~ckc_env.jax.state.Rules` (a static argument).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..batch.state import SEATS, RoundRecord
from ..config import GOLD, GameConfig
from ..engine.actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    FORCED_ACCUSATION,
    KEEP,
    N_ACTIONS,
    PASS,
    SWAP,
    WINDOW,
)
from ..engine.cards import N_CATS
from ..engine.state import GAME_OVER, SCORING, SWAPPING
from . import chance, compiled
from .round_setup import choosing_faces, new_game, start_round
from .scoring import (
    adler_swap,
    game_end_reasons,
    return_stasi_chip,
    scoring,
    settle_winners,
    swap_targets,
    swapping,
)
from .state import Options, Rules, State, choose, empty, options_of, put, rules_of, set_at
from .suspicion import accuse, drawing, forced, in_window, targets

_SEATS = np.arange(SEATS)


def keep_record(state: State) -> State:
    """``RoundRecord.keep``: the round that just ended, kept through the next deal."""
    record = state.record
    same = {name: getattr(state, name).astype(getattr(record, name).dtype) for name in RoundRecord.SAME_NAME}
    return state.replace(
        record=record.replace(
            **same,
            chip_colours=state.chip_table[:, :3].astype(record.chip_colours.dtype),
            totals=state.points.astype(record.totals.dtype),
            gold=state.chip_table[:, GOLD].astype(record.gold.dtype),
        )
    )


DEALING = GAME_OVER + 1
"""A phase of this engine alone: the round is over and the game goes on; the next round is dealt
once the loop of :func:`advance` has settled every game (never seen between steps)."""


def finish_round(rules: Rules, state: State) -> State:
    """6 and 7: end the game, or return the Stasi chip and go on to the next round's deal."""
    reasons = game_end_reasons(rules, state)
    if rules.stasi_id >= 0:
        taker = state.stasi_taker.astype(jnp.int32)
        back = (taker >= 0) & (reasons == 0)  # if the game ends, its taker keeps it (-2)
        state = choose(back, return_stasi_chip(rules, state, taker), state)
    over = reasons != 0
    ended = settle_winners(put(state, end_reasons=reasons, phase=GAME_OVER, game_over=True, terminated=True))
    state = keep_record(put(choose(over, ended, state), round_ended=True))
    return choose(over, state, put(state, round_index=state.round_index + 1, phase=DEALING))


def _swap_or_finish(rules: Rules, state: State) -> State:
    """The Cafe Adler decisions of the scoring phase, then the round's end."""
    state, through = swapping(rules, state)
    return choose(through, finish_round(rules, state), state)


def _draw_and_accuse(rules: Rules, state: State) -> State:
    """Play the transitions of the suspicion phase that need no decision (clue faces asked, cards
    drawn, windows opened and closed, forced accusations), up to a decision or the scoring."""
    handlers = [partial(f, rules) for f in (choosing_faces, drawing, in_window, forced)]
    # by phase: CHOOSING_FACES, DRAWING, IN_WINDOW, FORCED

    def settling(s: State) -> jax.Array:
        return (s.pending_kind < 0) & (s.phase < SCORING)

    return lax.while_loop(settling, lambda s: lax.switch(s.phase, handlers, s), state)


def _score_and_swap(rules: Rules, state: State) -> State:
    """The scoring phase: the chips handed out, then the Cafe Adler decisions up to a decision or
    the round's end (the game's end, or a deal to make)."""
    state = choose(state.phase == SCORING, scoring(rules, state), state)

    def swapping_on(s: State) -> jax.Array:
        return (s.pending_kind < 0) & (s.phase == SWAPPING)

    return lax.while_loop(swapping_on, partial(_swap_or_finish, rules), state)


def advance(rules: Rules, state: State, autoreset: bool = False) -> State:
    """Play everything that needs no decision, up to the next decision or the game's end.

    The phases run in their order, each at most once per step, since a round needs decisions: the
    suspicion phase's loop, then :func:`_end_round_and_go_on` (the scoring, the Cafe Adler loop and
    the round's end, the deal of the next round or, with ``autoreset``, of the slot's next game, and
    the new round's suspicion loop). A vmapped ``lax.switch`` computes every branch, so the shuffles
    of a deal and the hand-out are computed once per step this way, not in every pass of one loop."""
    return _end_round_and_go_on(rules, autoreset, _draw_and_accuse(rules, put(state, pending_kind=-1)))


def legal_mask_one(rules: Rules, state: State) -> jax.Array:
    """(40,) bool: the legal actions of the pending decision (none once over)."""
    kind = state.pending_kind
    accusing = (kind == WINDOW) | (kind == FORCED_ACCUSATION)
    cats = (targets(state) >> jnp.arange(N_CATS, dtype=jnp.uint32)) & 1 == 1
    seat = state.pending_seat.astype(jnp.int32)
    n = state.n.astype(jnp.int32)
    possible = swap_targets(rules, state, seat, state.pending_chip.astype(jnp.int32))
    offset = jnp.arange(1, 5)  # swap with the seat k places clockwise: SWAP + k - 1
    swaps = (offset < n) & possible[(seat + offset) % n]
    adler = kind == CAFE_ADLER
    return jnp.concatenate(
        [
            (kind == WINDOW)[None],
            accusing & cats,
            jnp.full(2, kind == CLUE_FACE),
            adler[None],
            adler & swaps,
        ]
    )


def _apply_action(rules: Rules, state: State, action: jax.Array) -> State:
    """The pending decision's action, before the game plays on (``batch.game.apply``)."""
    kind = state.pending_kind
    seat = state.pending_seat.astype(jnp.int32)
    action = action.astype(jnp.int32)
    cat = jnp.clip(action - ACCUSE, 0, N_CATS - 1)
    step_on = put(state, queue_pos=state.queue_pos + 1)

    passing = put(step_on, window_passed=step_on.window_passed | (1 << seat))
    accused = accuse(step_on, seat, cat)  # a window's accusation or a forced one
    reopened = put(accused, window_owed=accused.window_owed | accused.window_passed, window_passed=0)
    window = choose(action == PASS, passing, choose(state.options.reopen_windows, reopened, accused))
    face = put(step_on, clues=set_at(step_on.clues, seat, 2 * step_on.tiles[seat] + (action - CLUE_FACE_A)))
    out = choose(
        kind == WINDOW, window, choose(kind == FORCED_ACCUSATION, accused, choose(kind == CLUE_FACE, face, state))
    )
    if rules.config.cafe_adler:
        swapping = (kind == CAFE_ADLER) & (action != KEEP)
        other = (seat + action - SWAP + 1) % state.n
        out = lax.cond(swapping, lambda s: adler_swap(rules, s, seat, other), lambda s: out, state)
    return out


def step_one(rules: Rules, state: State, action: jax.Array, autoreset: bool = False) -> State:
    """Apply the action to the pending decision and play on to the next one (a game that is over
    ignores its action). The action is not checked: :func:`legal_mask_one` says which are legal."""
    state = put(state, rewards=jnp.zeros(SEATS), terminated=False, round_ended=False)
    live = state.pending_kind >= 0
    played = advance(rules, _apply_action(rules, state, action), autoreset)
    return choose(live, played, state)


def init_one(
    rules: Rules, key: jax.Array, n: jax.Array, first_player: jax.Array | None = None, options: Options | None = None
) -> State:
    """A new game with this key ((2,) uint32) and player count, run to its first decision; its
    first player (-1: drawn) and options default to ``rules.config``'s."""
    state = empty(rules)
    option = rules.config.first_player
    state = put(
        state.replace(options=state.options if options is None else options),
        key=key,
        n=n,
        first_player_option=(-1 if option == "random" else option) if first_player is None else first_player,
    )
    state = state.replace(record=put(state.record, n=n))
    # a dealt round has a decision before its scoring (the step's deals rely on it too), so of
    # ``advance`` only the suspicion loop is traced: a deal compiles in half the time
    return _draw_and_accuse(rules, put(start_round(rules, new_game(rules, state)), pending_kind=-1))


@compiled.entry(static=("rules",), what="the games' deal", first="about 15 s")
def init(
    rules: Rules,
    keys: jax.Array,
    n: jax.Array | None = None,
    first_player: jax.Array | None = None,
    options: Options | None = None,
) -> State:
    """B new games: (B, 2) uint32 keys (``chance.keys_of_seeds``); (B,) player counts, first players
    (-1: drawn) and :class:`~ckc_env.jax.state.Options` of (B,) arrays, each defaulting to the
    configuration's (:func:`init_games` builds them from one configuration per game); each game run
    to its first decision."""
    size = keys.shape[0]
    if n is None:
        n = jnp.full(size, rules.config.num_players, dtype=jnp.int32)
    if first_player is None:
        option = rules.config.first_player
        first_player = jnp.full(size, -1 if option == "random" else option, dtype=jnp.int32)
    if options is None:
        options = jax.tree_util.tree_map(jnp.asarray, options_of([rules.config] * size))
    return jax.vmap(partial(init_one, rules))(keys, n, first_player, options)


STATIC_OPTIONS = ("stasi", "cafe_adler", "chip_pool")
"""The options that shape the arrays (the chip pool and the variants' chips in it): one
compilation per value. The others are data (``state.options``), free to differ between games."""


def init_games(configs: Sequence[GameConfig], seeds: Sequence[int]) -> tuple[Rules, State]:
    """Games seeded ``seeds``, game b under ``configs[b]`` (player counts and every option but
    :data:`STATIC_OPTIONS` may differ from game to game), with the rules to step them by: one
    compilation serves every combination of the other options."""
    configs = list(configs)
    if len(configs) != len(seeds) or not configs:
        raise ValueError(f"one configuration per seed: {len(configs)} configurations for {len(seeds)} seeds")
    first = configs[0]
    for config in configs[1:]:
        for name in STATIC_OPTIONS:
            if getattr(config, name) != getattr(first, name):
                raise ValueError(
                    f"the games of a batch share {list(STATIC_OPTIONS)}: {name}={getattr(first, name)!r} and "
                    f"{name}={getattr(config, name)!r} differ (run one batch per value)"
                )
    rules = rules_of(GameConfig(**{name: getattr(first, name) for name in STATIC_OPTIONS}))
    first_player = np.array([-1 if c.first_player == "random" else c.first_player for c in configs], np.int32)
    state = init(
        rules,
        chance.keys_of_seeds(seeds),
        np.array([c.num_players for c in configs], np.int32),
        first_player,
        jax.tree_util.tree_map(jnp.asarray, options_of(configs)),
    )
    return rules, state


ROUND_END_SHARE = 8
"""The batched :func:`step` ends rounds in at most ``pass_size(B, ROUND_END_SHARE)`` games per pass
(more passes if more games end a round in one step): between one game in 40 (thoughtful players)
and one in 8 (random play, whose rounds are short) does in a step."""


def pass_size(size: int, share: int) -> int:
    """How many of ``size`` games :func:`on_games` (and its kin) gathers per pass for a transition
    that about one game in ``share`` needs at a step: ``size // share`` on an accelerator, where a
    pass costs about what the whole batch does (few passes), four times fewer on a CPU, where a
    pass costs its games (more passes, less padding)."""
    return max(1, size // (share * (4 if jax.default_backend() == "cpu" else 1)))


def _end_round_and_go_on(rules: Rules, autoreset: bool, state: State) -> State:
    """The rest of ``advance`` for a game whose suspicion phase is over: scoring, Cafe Adler
    decisions, the round's end, the next deal and its suspicion loop."""
    state = _score_and_swap(rules, state)
    dealing = state.phase == DEALING
    if autoreset:
        renewed = state.phase == GAME_OVER
        state = choose(renewed, new_game(rules, put(state, key=chance.next_key(state.key))), state)
        dealing = dealing | renewed
    return _draw_and_accuse(rules, choose(dealing, start_round(rules, state), state))


def on_games(flags: jax.Array, play: Any, state: State, chunk: int) -> State:
    """``play`` (a batched function of a state) applied to the games where ``flags``, gathered
    ``chunk`` at a time into a batch of their own and written back; the others unchanged. What a
    NumPy engine does with index arrays, at fixed shapes: the rare, costly transitions (a round's
    end, a deal) are computed for the games that need them, not selected away for all the others."""
    size = flags.shape[0]

    def one_chunk(carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        state, waiting = carry
        games = jnp.nonzero(waiting, size=chunk, fill_value=size)[0]
        part = jax.tree_util.tree_map(lambda x: x[jnp.minimum(games, size - 1)], state)
        done = play(part)
        state = jax.tree_util.tree_map(lambda x, y: x.at[games].set(y, mode="drop"), state, done)
        return state, waiting.at[games].set(False, mode="drop")

    return lax.while_loop(lambda carry: carry[1].any(), one_chunk, (state, flags))[0]


def suspicion_steps(rules: Rules, state: State, actions: jax.Array) -> State:
    """The common part of :func:`step`, vmapped over every game: the action applied and the
    suspicion phase played on, up to the next decision or the scoring."""

    def suspicion(s: State, action: jax.Array) -> State:
        s = put(s, rewards=jnp.zeros(SEATS), terminated=False, round_ended=False)
        live = s.pending_kind >= 0
        played = _draw_and_accuse(rules, put(_apply_action(rules, s, action), pending_kind=-1))
        return choose(live, played, s)

    return jax.vmap(suspicion)(state, actions)


def round_ending(was_live: jax.Array, state: State) -> jax.Array:
    """(B,) bool: the games that reached the scoring in this step (live before it, ``was_live``)."""
    return was_live & (state.pending_kind < 0) & ((state.phase == SCORING) | (state.phase == SWAPPING))


def end_rounds(rules: Rules, was_live: jax.Array, state: State, autoreset: bool = False) -> State:
    """The rest of :func:`step` after :func:`suspicion_steps`: the games :func:`round_ending` names
    played on (scoring, Cafe Adler, the round's end, the next deal) by :func:`on_games`."""
    chunk = pass_size(state.pending_kind.shape[0], ROUND_END_SHARE)
    play = jax.vmap(partial(_end_round_and_go_on, rules, autoreset))
    return on_games(round_ending(was_live, state), play, state, chunk)


@compiled.entry(static=("rules", "autoreset"), what="the games' step", first="about 15 s")
def step(rules: Rules, state: State, actions: jax.Array, autoreset: bool = False) -> State:
    """``step_one`` for every game of the batch ((B,) actions), the same games and arrays: each
    game's suspicion loop runs vmapped over the batch, and the games that reach the scoring are
    played on by :func:`on_games`, so a step costs what its common case needs."""
    was_live = state.pending_kind >= 0
    return end_rounds(rules, was_live, suspicion_steps(rules, state, actions), autoreset)


@compiled.entry(static=("rules", "autoreset"), what="the games' step (an action per game)", first="about 15 s")
def step_each(rules: Rules, state: State, actions: jax.Array, autoreset: bool = False) -> State:
    """``jax.vmap(step_one)``: the same results as :func:`step`, every transition selected in
    every game (what a caller that vmaps ``step_one`` itself, as Pgx users do, runs)."""
    return jax.vmap(partial(step_one, rules, autoreset=autoreset))(state, actions)


@compiled.entry(static=("rules",), what="the legal actions")
def legal_action_mask(rules: Rules, state: State) -> jax.Array:
    """(B, 40) bool legal actions of every game's pending decision."""
    return jax.vmap(partial(legal_mask_one, rules))(state)


def current_seat(state: State) -> jax.Array:
    """The seat to act (-1 where the game is over)."""
    return jnp.where(state.pending_kind >= 0, state.pending_seat, -1)


assert N_ACTIONS == 1 + N_CATS + 2 + 1 + 4
