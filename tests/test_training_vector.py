"""Training on the batched engine: the ``vector`` config section, the teacher's demonstrations
collected on a batch, and a run of ckc-train on the vector path."""

from __future__ import annotations

import json

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

from ckc_env import configs
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.training.config import load_config, parse_config
from ckc_env.training.imitation.cloning import collect_batched


def test_the_vector_section_is_validated():
    config = parse_config({"vector": {"num_envs": 64}, "ppo": {"n_steps": 8, "batch_size": 512}})
    assert config.vector.num_envs == 64 and config.vector.threads == 1
    assert config.to_dict()["vector"] == {"num_envs": 64, "threads": 1, "workers": 1, "loop": "learner"}
    assert parse_config({"vector": {"num_envs": 64, "workers": 2}}).vector.workers == 2
    with pytest.raises(ValueError, match=r"vector\.workers=65: accepted values are 1 to vector\.num_envs = 64"):
        parse_config({"vector": {"num_envs": 64, "workers": 65}})
    with pytest.raises(ValueError, match=r"vector\.workers=0"):
        parse_config({"vector": {"num_envs": 64, "workers": 0}})
    assert parse_config({}).vector is None
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['vector.envs'\]"):
        parse_config({"vector": {"envs": 64}})
    with pytest.raises(ValueError, match=r"vector\.num_envs=0"):
        parse_config({"vector": {"num_envs": 0}})
    with pytest.raises(ValueError, match="n_envs=2: accepted values are 1 with vector"):
        parse_config({"n_envs": 2, "vector": {"num_envs": 64}})
    with pytest.raises(ValueError, match=r"at most n_steps x vector\.num_envs = 256"):
        parse_config({"vector": {"num_envs": 32}, "ppo": {"n_steps": 8, "batch_size": 512}})
    reference = {"name": "bayes_v2", "follow": 0.9}
    duplicate = parse_config({"vector": {"num_envs": 64}, "duplicate": reference})
    assert duplicate.duplicate == reference and duplicate.to_dict()["duplicate"] == reference
    with pytest.raises(ValueError, match=r"duplicate='bayes_v2': accepted values are a reference player with a vector"):
        parse_config({"duplicate": "bayes_v2"})
    with pytest.raises(ValueError, match=r"invalid duplicate='nobody'"):
        parse_config({"vector": {"num_envs": 64}, "duplicate": "nobody"})
    shipped = load_config(configs.preset("train", "full_vector"))
    assert shipped.vector.num_envs * shipped.ppo["n_steps"] >= 4096


def test_the_teacher_plays_every_slot_and_returns_are_discounted():
    env = CheckpointCharlieVectorEnv(32, opponents="bayes_v1", reward="points")
    data = collect_batched(env, "cheater", 400, gamma=0.9, seed=0)
    assert len(data) >= 400
    assert data.masks[np.arange(len(data)), data.actions].all()  # every recorded action was legal
    assert data.observations.shape == (len(data), env.single_observation_space.shape[0])
    assert np.isfinite(data.returns).all() and data.returns.max() > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("workers", "duplicate"),
    [(1, ""), (2, ""), (2, "duplicate: eager\nfinetune: {critic_fit: 300, critic_fit_epochs: 1}\n")],
)
def test_ckc_train_runs_on_the_vector_path(tmp_path, workers, duplicate):
    from ckc_env.training.commands import train

    config = tmp_path / "vector.yaml"
    config.write_text(
        f"seed: 0\ntotal_timesteps: 1024\nreward: margin\n{duplicate}opponents: [random]\n"
        "pretrain: {teacher: cheater, decisions: 300, epochs: 1, batch_size: 128}\n"
        "ppo: {n_steps: 8, batch_size: 128, n_epochs: 1}\npolicy: {net_arch: [32]}\n"
        "eval: {every: 512, games: 10, opponents: {vs_random: [random]}}\n"
        f"vector: {{num_envs: 64, workers: {workers}}}\n"
    )
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    history = json.loads((run / "evaluations.json").read_text())
    assert [h["timesteps"] for h in history][-1] >= 1024
    assert (run / "final_model.json").is_file() and (run / "pretrain.json").is_file()
    assert (run / "critic_fit.json").is_file() == bool(duplicate)  # the critic fitted after the cloning
    assert (yaml.safe_load((run / "config.yaml").read_text()).get("duplicate") is not None) == bool(duplicate)
    with pytest.raises(SystemExit):  # self-play snapshots have no batched form: refused before anything runs
        config.write_text(config.read_text().replace("[random]\npretrain", "[self]\npretrain"))
        train.main([str(config), "--run-dir", str(tmp_path / "other"), "--no-progress"])
