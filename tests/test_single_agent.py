"""The single-agent view (gymnasium id CheckpointCharlie-v1): checkers, rewards, masks, illegal actions."""

import re

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ckc_env  # noqa: F401  (registers the gymnasium id)
from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent

CONFIGS = [
    {"opponents": "random"},
    {"opponents": "bayes_v1", "num_players": 3, "belief_features": True},
    {"opponents": ["random", "eager", "passive"], "num_players": 4, "stasi": True, "cafe_adler": True},
    {"opponents": "passive", "clue_face": "choose", "learner_seat": 2, "reward": "win"},
]


@pytest.mark.parametrize("config", CONFIGS)
def test_gymnasium_checker(config):
    check_env(gym.make("CheckpointCharlie-v1", **config).unwrapped, skip_render_check=True)


@pytest.mark.parametrize("config", CONFIGS)
def test_stable_baselines3_checker(config):
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker", reason="needs the train extra")
    sb3_checker.check_env(CheckpointCharlieSingleAgent(**config))


def play(env: CheckpointCharlieSingleAgent, seed: int):
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, terminated, steps = 0.0, False, 0
    while not terminated:
        mask = env.action_masks()
        legal = np.flatnonzero(env.table.action_mask(env.seat))
        assert np.array_equal(np.flatnonzero(mask), legal)  # masks agree with the environment
        assert mask.sum() >= 2
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert not truncated
        total += reward
        steps += 1
    return total, info, steps


def test_rewards_sum_to_the_final_points_even_when_another_seat_ends_the_game():
    env = CheckpointCharlieSingleAgent(opponents="eager", num_players=5, summary_infos=True)
    ended_elsewhere = 0
    for seed in range(60):
        total, info, _ = play(env, seed)
        assert total == pytest.approx(info["final"]["totals"][info["seat"]])
        # Did the last decision belong to an opponent? Then the final rewards came from their step.
        ended_elsewhere += env.table.game.summaries[-1]["accusations"][-1]["seat"] != info["seat"]
    assert ended_elsewhere > 10


def test_win_reward_reaches_the_learner():
    env = CheckpointCharlieSingleAgent(opponents="eager", reward="win", num_players=3, summary_infos=True)
    for seed in range(30):
        total, info, _ = play(env, seed)
        winners = info["final"]["winners"]
        expected = 1 / len(winners) if info["seat"] in winners else -1 / (3 - len(winners))
        assert total == pytest.approx(expected)
        assert info["win_share"] == (1 / len(winners) if info["seat"] in winners else 0.0)


def test_margin_reward_sums_to_the_lead_over_the_others_mean():
    env = CheckpointCharlieSingleAgent(opponents="eager", reward="margin", num_players=4, summary_infos=True)
    for seed in range(30):
        total, info, _ = play(env, seed)
        totals = info["final"]["totals"]
        others = [t for s, t in enumerate(totals) if s != info["seat"]]
        assert total == pytest.approx(totals[info["seat"]] - sum(others) / 3)
    with pytest.raises(ValueError, match="'points', 'win', 'margin'"):
        CheckpointCharlieSingleAgent(reward="score")


def test_learner_seat_fixed_or_random():
    seats = set()
    env = CheckpointCharlieSingleAgent(opponents="random")
    for seed in range(40):
        env.reset(seed=seed)
        seats.add(env.seat)
    assert seats == set(range(5))
    fixed = CheckpointCharlieSingleAgent(opponents="random", learner_seat=3, summary_infos=True)
    for seed in range(5):
        assert fixed.reset(seed=seed)[1]["seat"] == 3 and fixed.seat == 3


def test_same_seed_same_episode():
    a, b = CheckpointCharlieSingleAgent(opponents="bayes_v1"), CheckpointCharlieSingleAgent(opponents="bayes_v1")
    assert play(a, 7) == play(b, 7)


def test_an_illegal_action_ends_the_game_with_the_penalty():
    env = CheckpointCharlieSingleAgent(opponents="random", illegal_penalty=-2.5)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] and info["legal_actions"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opponents": ["random"] * 3}, "5 players need 4 opponents"),
        ({"opponents": ["random"] * 2, "num_players": 4}, "4 players need 3 opponents"),
        ({"opponents": "nobody"}, "unknown player 'nobody'"),
        ({"learner_seat": 5}, "accepted values are 'random' or 0 to 4"),
        ({"num_players": 6}, "num_players"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CheckpointCharlieSingleAgent(**kwargs)


def test_several_player_counts_draw_a_count_per_episode_with_its_own_opponents():
    env = CheckpointCharlieSingleAgent(
        num_players=[5, 3, 4],
        opponents={3: "bayes_v1", 4: ["random", "eager", "passive"], 5: "random"},
        summary_infos=True,
    )
    assert env.counts == (3, 4, 5)
    seen = {}
    for seed in range(40):
        observation, info = env.reset(seed=seed)
        n = info["num_players"]
        assert observation.shape == env.observation_space.shape and env.table.config.num_players == n
        after = [(info["seat"] + k) % n for k in range(1, n)]  # seat order after the learner
        seen[n] = [env._opponents[seat].name for seat in after]
    assert seen == {3: ["bayes_v1"] * 2, 4: ["random", "eager", "passive"], 5: ["random"] * 4}
    # One seed, one game: the count too.
    assert env.reset(seed=7)[1]["num_players"] == env.reset(seed=7)[1]["num_players"]


@pytest.mark.parametrize(
    "kwargs, named",
    [
        ({"num_players": [3, 6]}, "[3, 4, 5]"),
        ({"num_players": []}, "num_players"),
        ({"num_players": [3, 4], "opponents": {3: "random"}}, "exactly the counts [3, 4]"),
        ({"num_players": [3, 4], "learner_seat": 3}, "0 to 2"),
    ],
)
def test_several_player_counts_misconfigured_are_named(kwargs, named):
    with pytest.raises(ValueError, match=re.escape(named)):
        CheckpointCharlieSingleAgent(**kwargs)
