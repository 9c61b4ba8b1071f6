"""Ray RLlib: the MultiAgentEnv under RLlib's own checker, masking end to end, ckc-rllib-train's
run folder and --resume, and an RLlib checkpoint as a player (skipped without the ``rllib`` extra;
the config checks are in test_rllib_config.py)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import numpy as np
import pytest

from ckc_env.evaluation.tournament import run_tournament

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------------------- the env
ray = pytest.importorskip("ray", reason="the rllib extra: pip install -e '.[rllib]'")


def _play(env, seed: int, rng: np.random.Generator) -> tuple[dict, list[str]]:
    """A whole game with masked random actions; returns the summed rewards and the acting agents."""
    obs, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    acting = []
    while True:
        (agent,) = obs
        assert obs[agent]["action_mask"].dtype == np.float32 and obs[agent]["action_mask"].sum() >= 2
        acting.append(agent)
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        for a, r in rewards.items():
            totals[a] = totals.get(a, 0.0) + r
        if terminateds["__all__"]:
            assert not truncateds["__all__"] and set(obs) == set(rewards) == set(terminateds) - {"__all__"}
            return totals, acting


def test_rllib_own_env_checker_passes():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from ckc_env.envs.rllib import CheckpointCharlieMultiAgentEnv

    for config in ({"num_players": 3}, {"num_players": 5, "learning_seats": 2, "opponents": "bayes_v1"}):
        check_multiagent_environments(CheckpointCharlieMultiAgentEnv(config))


def test_self_play_rewards_sum_to_the_final_points():
    from ckc_env.envs.rllib import CheckpointCharlieMultiAgentEnv

    env = CheckpointCharlieMultiAgentEnv({"num_players": 4, "stasi": True, "cafe_adler": True})
    rng = np.random.default_rng(0)
    for seed in range(5):
        totals, acting = _play(env, seed, rng)
        final = env.table.game.final["totals"]
        assert set(acting) <= set(env.possible_agents)
        for agent, total in totals.items():
            assert total == pytest.approx(final[int(agent.split("_")[1])])


def test_scripted_seats_play_inside_the_env():
    from ckc_env.envs.rllib import CheckpointCharlieMultiAgentEnv

    env = CheckpointCharlieMultiAgentEnv(
        {"num_players": 5, "learning_seats": 1, "opponents": ["bayes_v1", "eager", "random", "passive"]}
    )
    rng = np.random.default_rng(1)
    seats = set()
    for seed in range(6):
        _, acting = _play(env, seed, rng)
        assert len(set(acting)) == 1  # one learning seat per game, drawn at random
        seats |= set(acting)
    assert len(seats) > 1


def test_illegal_actions_end_the_game_with_the_penalty():
    """RLlib's checker samples unmasked actions: the game ends, flagged, rather than crashing."""
    from ckc_env.envs.rllib import CheckpointCharlieMultiAgentEnv

    env = CheckpointCharlieMultiAgentEnv({"num_players": 3, "illegal_penalty": -5})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    _, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert terminateds["__all__"] and rewards[agent] == -5 and infos[agent]["illegal_action"]


def test_bad_env_config_names_the_accepted_values():
    from ckc_env.envs.rllib import CheckpointCharlieMultiAgentEnv

    with pytest.raises(ValueError, match=r"unknown env_config key\(s\) \['seats'\].*learning_seats"):
        CheckpointCharlieMultiAgentEnv({"seats": 1})
    with pytest.raises(ValueError, match=r"learning_seats=0.*'all' or 1 to 3"):
        CheckpointCharlieMultiAgentEnv({"num_players": 3, "learning_seats": 0})


# ---------------------------------------------------------------------------------------- training
@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory) -> Path:
    """ckc-rllib-train's smoke config: one iteration, then --resume to a second."""
    from ckc_env.training.commands import rllib as rllib_train

    run = tmp_path_factory.mktemp("rllib") / "run"
    rllib_train.main(["smoke", "--run-dir", str(run)])
    rllib_train.main(["--resume", str(run), "--iterations", "2", "--trust-checkpoint"])  # its own run: trusted
    return run


def test_train_leaves_a_run_folder_and_resumes(smoke_run):
    for name in ("config.yaml", "command.txt", "history.json", "evaluations.json", "summary.json", "final_model.json"):
        assert (smoke_run / name).is_file(), name
    assert list((smoke_run / "tensorboard").iterdir())
    history = json.loads((smoke_run / "history.json").read_text())
    assert [h["iteration"] for h in history] == [1, 2]
    assert history[1]["env_steps"] > history[0]["env_steps"]  # the counters came back with the checkpoint
    assert all(h["illegal_actions"] == 0 for h in history)  # masking end to end


def test_the_checkpoint_plays_as_its_exported_agent_file(smoke_run):
    """The RLlib checkpoint (a player spec, loaded by RLlib with trust) and the safe agent file
    exported from it play the same games (on the scalar engine, where the checkpoint plays: it has no
    batched form)."""
    lineups = [
        [str(smoke_run / "checkpoint"), "random", "random"],
        [str(smoke_run / "final_model.json"), "random", "random"],
    ]
    results = [
        run_tournament(lineup, games=12, seed=3, workers=1, trust_checkpoint=True, engine="scalar")
        for lineup in lineups
    ]
    assert results[0].per_game == results[1].per_game


def test_rllib_example_runs():
    example = runpy.run_path(str(ROOT / "examples" / "rllib_ppo.py"), run_name="example_rllib")
    assert 0.0 <= example["train_and_play"](iterations=1, games=9) <= 1.0
