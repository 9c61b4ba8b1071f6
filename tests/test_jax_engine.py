"""The JAX engine against the NumPy batched engine: the same seeds and actions give the same
states, masks, rewards and round records, exactly, under every rule option, with player counts
mixed in each batch. The default run plays every option switched on (and the short games of a
small pool); ``-m slow`` adds a pairwise covering of the options (CI runs it: each combination of
static options is one compilation, about 20 s here) and every combination (576 compilations).

The NumPy batched engine is proved equal to the scalar engine (``test_batch_engine.py``), so a
seed deals the same game on all three engines.
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

OPTIONS = {
    "stasi": (False, True),
    "cafe_adler": (False, True),
    "reopen_windows": (False, True),
    "window_order": ("random", "clockwise_from_drawer", "clockwise_after_drawer"),
    "clue_face": ("random", "choose"),
    "non_accuser_white": ("chief_in_deck", "chief_uncaught"),
    "first_player": ("random", 2),
}


def pairwise(options: dict[str, tuple]) -> list[dict]:
    """A small set of combinations in which every pair of values of two options occurs (greedy)."""
    names = list(options)
    every = [dict(zip(names, values, strict=True)) for values in itertools.product(*options.values())]
    uncovered = {((a, x), (b, y)) for a, b in itertools.combinations(names, 2) for x in options[a] for y in options[b]}
    chosen = []

    def covers(combo: dict, uncovered: set) -> int:
        return sum(((a, combo[a]), (b, combo[b])) in uncovered for a, b in itertools.combinations(names, 2))

    while uncovered:
        best = max(every, key=lambda combo: covers(combo, uncovered))
        chosen.append(best)
        uncovered -= {((a, best[a]), (b, best[b])) for a, b in itertools.combinations(names, 2)}
    return chosen


COVERING = pairwise(OPTIONS)
EVERY = [dict(zip(OPTIONS, values, strict=True)) for values in itertools.product(*OPTIONS.values())]
SHORT = {"chip_pool": {"gold": [3, 4], "white": [1, 1, 2], "black": [0, -1, -1]}, "target_points": 6}
COUNTS = [3, 4, 5, 4, 5, 3]


def differences(numpy_state: batch.BatchState, rules, jax_state) -> list[str]:
    mine = to_batch(rules, jax_state)
    bad = [f.name for f in ARRAYS if not np.array_equal(getattr(numpy_state, f.name), getattr(mine, f.name))]
    bad += [
        f"record.{f.name}"
        for f in dataclasses.fields(RoundRecord)
        if not np.array_equal(getattr(numpy_state.record, f.name), getattr(mine.record, f.name))
    ]
    return bad


def play_both(config: GameConfig, steps: int, size: int = 48, seed: int = 3, each: bool = False) -> int:
    """Step both engines with the same seeds and random legal actions, comparing everything at every
    step; returns the number of games finished."""
    seeds = slot_seeds(seed, size)
    counts = (COUNTS * size)[:size]
    numpy_state = batch.init(config, seeds=seeds, num_players=counts)
    rules = rules_of(config)
    jax_state = game.init(rules, chance.keys_of_seeds(seeds), np.array(counts))
    stepper = game.step_each if each else game.step
    rng = np.random.default_rng(seed)
    finished = 0
    for t in range(steps):
        assert differences(numpy_state, rules, jax_state) == [], f"step {t}"
        mask = batch.legal_action_mask(numpy_state).astype(bool)
        assert np.array_equal(np.asarray(game.legal_action_mask(rules, jax_state)), mask), f"mask at step {t}"
        actions = (rng.random(mask.shape) * mask).argmax(1)
        batch.step(numpy_state, actions, autoreset=True)
        jax_state = stepper(rules, jax_state, actions.astype(np.int32), True)
        finished += int(numpy_state.terminated.sum())
        assert summary.round_summaries(rules, jax_state) == round_summaries(numpy_state)
    assert differences(numpy_state, rules, jax_state) == []
    return finished


ALL_ON = GameConfig(
    stasi=True,
    cafe_adler=True,
    reopen_windows=True,
    window_order="clockwise_after_drawer",
    clue_face="choose",
    non_accuser_white="chief_uncaught",
    first_player=2,
)
"""Every option away from its default: the default tests share its compilation."""


def test_every_option_on_same_games_as_numpy() -> None:
    play_both(ALL_ON, steps=150)


@pytest.mark.slow
@pytest.mark.parametrize("options", COVERING, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_every_option_pairwise_same_games_as_numpy(options: dict) -> None:
    play_both(GameConfig(**options), steps=120)


@pytest.mark.slow
@pytest.mark.parametrize("options", EVERY, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_every_option_combination_same_games_as_numpy(options: dict) -> None:
    play_both(GameConfig(**options), steps=200)


@pytest.mark.slow
def test_short_games_end_by_points_and_used_up_colours() -> None:
    """A small chip pool and a low target: games end by every reason, reset and go on."""
    finished = play_both(dataclasses.replace(ALL_ON, **SHORT), steps=120)
    assert finished > 20


def test_vmapped_single_game_steps_equal_the_batched_step() -> None:
    """``step_each`` (``vmap(step_one)``, what Pgx-style callers run) plays the same games."""
    play_both(ALL_ON, steps=60, each=True)


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
    assert differences(numpy_state, rules, state) == []
