"""The JAX engine against the NumPy batched engine: the same seeds and actions give the same
states, masks, rewards, round records and round summaries, exactly, under every combination of
the rule options, with every player count.

The options that shape the arrays (``game.STATIC_OPTIONS``: the Stasi and Cafe Adler variants,
the chip pool) are one compilation each; every other option is data, so one JAX batch holds a
game of every combination of them (window order, ``reopen_windows``, ``clue_face``,
``non_accuser_white``, a fixed or drawn first player, the targets) at 3, 4 and 5 players, and each
combination is played beside it by its own NumPy batch: with both variants in the default run,
the other three variant combinations with ``-m slow``, which also adds a small chip pool,
``lax.scan``, longer games and the vmapped single-game step (CI runs them all). The NumPy batched
engine is proved equal to the scalar engine (``test_batch_engine.py``), so a seed deals the same
game on all three engines.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from ckc_env import batch  # noqa: E402
from ckc_env.batch.chance import slot_seeds  # noqa: E402
from ckc_env.batch.state import ARRAYS, RoundRecord  # noqa: E402
from ckc_env.batch.summary import round_summaries  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.engine.chance import key_of, next_key, word  # noqa: E402
from ckc_env.jax import chance, game, summary  # noqa: E402
from ckc_env.jax.state import from_batch, join_keys, rules_of, split_keys, to_batch  # noqa: E402

DATA_OPTIONS = {
    "window_order": ("random", "clockwise_from_drawer", "clockwise_after_drawer"),
    "reopen_windows": (False, True),
    "clue_face": ("random", "choose"),
    "non_accuser_white": ("chief_in_deck", "chief_uncaught"),
    "first_player": ("random", 2),
    "target_points": (10, 5),
    "max_rounds": (5, 2),
}
COMBINATIONS = [dict(zip(DATA_OPTIONS, values, strict=True)) for values in itertools.product(*DATA_OPTIONS.values())]
COUNTS = (3, 4, 5)
SMALL_POOL = {"gold": [3, 4], "white": [1, 1, 2], "black": [0, -1, -1]}


def differences(numpy_state: batch.BatchState, mine: batch.BatchState, rows: slice) -> list[str]:
    bad = [f.name for f in ARRAYS if not np.array_equal(getattr(numpy_state, f.name), getattr(mine, f.name)[rows])]
    bad += [
        f"record.{f.name}"
        for f in dataclasses.fields(RoundRecord)
        if not np.array_equal(getattr(numpy_state.record, f.name), getattr(mine.record, f.name)[rows])
    ]
    return bad


def play_every_combination(static: dict, steps: int, seed: int = 3, each: bool = False) -> int:
    """One JAX batch with a game of every combination of the data options at every player count,
    each combination also played by a NumPy batch of its own, the same random legal actions in
    both; everything compared at every step. Returns the number of games finished."""
    configs = [GameConfig(**static, **combination) for combination in COMBINATIONS]
    seeds = slot_seeds(seed, len(configs) * len(COUNTS))
    numpy_batches = [
        batch.init(config, seeds=seeds[k * len(COUNTS) : (k + 1) * len(COUNTS)], num_players=list(COUNTS))
        for k, config in enumerate(configs)
    ]
    per_game = [dataclasses.replace(config, num_players=n) for config in configs for n in COUNTS]
    rules, state = game.init_games(per_game, seeds)
    stepper = game.step_each if each else game.step
    rng = np.random.default_rng(seed)
    finished = 0
    for t in range(steps):
        mine = to_batch(rules, state)
        mask = np.asarray(game.legal_action_mask(rules, state))
        actions = np.zeros(len(seeds), dtype=np.int32)
        for k, numpy_state in enumerate(numpy_batches):
            rows = slice(k * len(COUNTS), (k + 1) * len(COUNTS))
            assert differences(numpy_state, mine, rows) == [], f"{COMBINATIONS[k]} at step {t}"
            legal = batch.legal_action_mask(numpy_state).astype(bool)
            assert np.array_equal(mask[rows], legal), f"mask of {COMBINATIONS[k]} at step {t}"
            actions[rows] = (rng.random(legal.shape) * legal).argmax(1)
            batch.step(numpy_state, actions[rows], autoreset=True)
            finished += int(numpy_state.terminated.sum())
        state = stepper(rules, state, actions, True)
        ended = np.flatnonzero(np.asarray(state.round_ended))
        expected = [
            summary
            for k, numpy_state in enumerate(numpy_batches)
            for summary in round_summaries(numpy_state)  # in game order, as the JAX batch's
        ]
        assert summary.round_summaries(rules, state, ended) == expected, f"round summaries at step {t}"
    return finished


VARIANTS = [(stasi, cafe_adler) for stasi in (False, True) for cafe_adler in (False, True)]


@pytest.mark.slow
@pytest.mark.parametrize(("stasi", "cafe_adler"), VARIANTS)
def test_every_option_combination_same_games_as_numpy(stasi: bool, cafe_adler: bool) -> None:
    finished = play_every_combination({"stasi": stasi, "cafe_adler": cafe_adler}, steps=40)
    assert finished > 30  # games end (by every reason: max_rounds 2, target 5) and the slots go on


@pytest.mark.slow
def test_vmapped_single_game_steps_equal_the_batched_step() -> None:
    """``step_each`` (``vmap(step_one)``, what Pgx-style callers run) plays the same games."""
    play_every_combination({"stasi": True, "cafe_adler": True}, steps=25, each=True)


@pytest.mark.slow
def test_a_small_pool_runs_out_of_colours() -> None:
    finished = play_every_combination({"stasi": True, "cafe_adler": False, "chip_pool": SMALL_POOL}, steps=80)
    assert finished > 50


@pytest.mark.slow
def test_long_runs_same_games_as_numpy() -> None:
    """Late rounds and games' ends, both variants on (every variant combination is played for 40
    steps above, with every combination of the data options)."""
    play_every_combination({"stasi": True, "cafe_adler": True}, steps=200, seed=11)


def test_batches_share_the_options_that_shape_arrays() -> None:
    with pytest.raises(ValueError, match="stasi=False and stasi=True differ"):
        game.init_games([GameConfig(), GameConfig(stasi=True)], [0, 1])


ALL_ON = GameConfig(stasi=True, cafe_adler=True, reopen_windows=True, clue_face="choose", first_player=2)


@pytest.mark.slow
def test_steps_inside_lax_scan_equal_steps_one_by_one() -> None:
    rules = rules_of(ALL_ON)
    state = game.init(rules, chance.keys_of_seeds(range(32)))
    actions = jax.random.randint(jax.random.PRNGKey(0), (20, 32), 0, 1000)

    def legal(state, noise):  # a legal action from noise: the (noise mod count)-th legal one
        mask = game.legal_action_mask(rules, state)
        pick = noise % jax.numpy.maximum(mask.sum(1), 1)
        return jax.numpy.argmax(jax.numpy.cumsum(mask, 1) > pick[:, None], 1).astype(jax.numpy.int32)

    @jax.jit
    def scanned(state, actions):
        def one(state, noise):
            return game.step(rules, state, legal(state, noise), True), state.rewards.sum()

        return jax.lax.scan(one, state, actions)[0]

    by_scan = scanned(state, actions)
    for noise in actions:
        state = game.step(rules, state, legal(state, noise), True)
    for a, b in zip(jax.tree_util.tree_leaves(by_scan), jax.tree_util.tree_leaves(state), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_a_seed_is_the_same_stream_on_every_engine() -> None:
    """SplitMix64 in uint32 pairs: words, keys, reductions and orders equal ``engine.chance``'s."""
    for seed in (0, 1, 2**63 + 5, 2**64 - 1):
        key = key_of(seed)
        hi, lo = chance.words(jax.numpy.asarray(split_keys(np.array([key], np.uint64))[0]), jax.numpy.uint32(7), 40)
        words = [word(key, 7 + i) for i in range(40)]
        assert join_keys(np.stack([np.asarray(hi), np.asarray(lo)], -1)).tolist() == words
        for bound in (2, 3, 5, 6, 24, 61, 120):
            assert np.asarray(chance.below(hi, lo, bound)).tolist() == [w % bound for w in words]
        assert np.asarray(chance.ordered(hi, lo)).tolist() == sorted(range(40), key=words.__getitem__)
        assert join_keys(np.asarray(chance.next_key(jax.numpy.asarray(split_keys(np.array([key], np.uint64))[0])))) == (
            next_key(key)
        )
        assert join_keys(np.asarray(chance.keys_of_seeds([seed])))[0] == key
    tied = chance.ordered(
        jax.numpy.array([1, 1, 0, 1], jax.numpy.uint32), jax.numpy.array([5, 5, 9, 2], jax.numpy.uint32)
    )
    assert np.asarray(tied).tolist() == [2, 3, 0, 1]  # a stable sort, as ``sorted``


def test_from_batch_and_to_batch_are_inverse() -> None:
    numpy_state = batch.init(ALL_ON, batch_size=16, seed=5)
    rules, state = from_batch(numpy_state)
    assert differences(numpy_state, to_batch(rules, state), slice(None)) == []
