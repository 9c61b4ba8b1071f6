"""Duplicate rewards in the vector environment (``duplicate=``): every deal is played a second time
with the reference in the learner's seat, and the learner's return is less the reference's. Checked
three ways: a learner that plays the reference's own decisions nets exactly 0 in every game (the
copy is the same deal, the same opponents' streams); the games, observations and infos are those of
the environment without it, only the final rewards move, by the baseline in ``final_info``; and a
reference without a batched form is refused with the accepted players named."""

from __future__ import annotations

import numpy as np
import pytest

from ckc_env.batch.agents import BATCH_REGISTRY, seat_keys, uniform_legal
from ckc_env.envs.vector import CheckpointCharlieVectorEnv


@pytest.mark.slow
@pytest.mark.parametrize(
    ("reward", "reference", "opponents"),
    [
        ("win", "bayes_v2", "bayes_v2"),
        ("margin", "bayes_v1", {3: ["random", "bayes_v2"], 4: "eager", 5: ["bayes_v1", "random", "passive", "eager"]}),
        ("points", "random", "random"),
    ],
)
def test_the_reference_itself_nets_zero_in_every_game(reward, reference, opponents):
    slots = 64
    env = CheckpointCharlieVectorEnv(
        slots, opponents=opponents, reward=reward, duplicate=reference, num_players=[3, 4, 5]
    )
    learner = BATCH_REGISTRY[reference](seed=0)
    env.reset(seed=11)
    learner.start(np.arange(slots), seat_keys(env.state.key))
    returns, finished, baselines = np.zeros(slots), [], []
    for _ in range(90):
        _, rewards, terminated, _, infos = env.step(learner.act(env.state, np.arange(slots)))
        returns += rewards
        ended = np.flatnonzero(terminated)
        if len(ended):
            finished += list(returns[ended])
            baselines += list(infos["final_info"]["baseline"][ended])
            returns[ended] = 0.0
            learner.start(ended, seat_keys(env.state.key[ended]))
    assert len(finished) > slots
    np.testing.assert_allclose(finished, 0.0, atol=1e-9)  # margin: a sum of steps against one formula
    assert np.std(baselines) > 0  # the deals differ: the baseline is the deal's, not a constant


@pytest.mark.slow
def test_the_games_are_those_of_the_plain_environment():
    """Same seed, same actions: everything but the final rewards is identical (the copies never
    touch the slots' games or their round records), and the final rewards differ by the baseline."""
    options = dict(
        opponents=["bayes_v2", "random", "bayes_v1"], reward="margin", num_players=4, belief_features="players"
    )
    plain = CheckpointCharlieVectorEnv(32, **options)
    duplicate = CheckpointCharlieVectorEnv(32, duplicate="bayes_v2", **options)
    rng = np.random.default_rng(3)
    observations = [env.reset(seed=5)[0] for env in (plain, duplicate)]
    assert np.array_equal(*observations)
    games = 0
    for _ in range(50):
        actions = uniform_legal(plain.action_masks().astype(np.int8), rng)
        assert np.array_equal(plain.action_masks(), duplicate.action_masks())
        (o1, r1, t1, _, i1), (o2, r2, t2, _, i2) = plain.step(actions), duplicate.step(actions)
        assert np.array_equal(o1, o2) and np.array_equal(t1, t2)
        assert np.array_equal(i1["seat"], i2["seat"]) and np.array_equal(i1["num_players"], i2["num_players"])
        baseline = np.where(t2, i2["final_info"]["baseline"], 0.0) if t2.any() else np.zeros(32)
        np.testing.assert_allclose(r2, r1 - baseline, atol=1e-12)
        if t1.any():
            games += int(t1.sum())
            for key in ("points", "margin", "win_share", "is_winner"):
                assert np.array_equal(i1["final_info"][key], i2["final_info"][key])
            assert "baseline" not in i1["final_info"]
        for field in ("winners", "totals", "chip_colours", "round_index"):
            assert np.array_equal(getattr(plain.state.record, field), getattr(duplicate.state.record, field))
    assert games > 20


def test_a_reference_needs_a_batched_form():
    with pytest.raises(ValueError, match=r"no batched form.*batched players are"):
        CheckpointCharlieVectorEnv(4, duplicate="rollout")
    with pytest.raises(ValueError, match="unknown player 'nobody'"):
        CheckpointCharlieVectorEnv(4, duplicate="nobody")
