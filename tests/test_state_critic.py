"""The asymmetric actor-critic: the vector environment's ``critic_state`` and ``critic_state: true`` runs
(training/state_critic.py): the critic reads the hidden state, the policy and its agent file never do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ckc_env.batch.scoring import chief_of
from ckc_env.engine.cards import N_CLUES
from ckc_env.envs.subproc_vector import SubprocVectorEnv
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.observation import CRITIC_STATE, ENV_VERSION, LAYOUTS

ROOT = Path(__file__).resolve().parents[1]


def play(env, steps: int, seed: int = 3) -> list[np.ndarray]:
    """The observations of ``steps`` steps of the last legal action (accusing often)."""
    observations, _ = env.reset(seed=seed)
    seen = [observations]
    for _ in range(steps):
        masks = env.action_masks()
        observations, *_ = env.step(np.array([np.flatnonzero(m)[-1] for m in masks]))
        seen.append(observations)
    return seen


@pytest.mark.slow
def test_the_critic_state_is_appended_to_the_unchanged_observation():
    """With ``critic_state`` the observation is the plain one (the same games, the same numbers)
    followed by the hidden state seen from the learner's seat: its clue row 0 is the learner's own,
    row r that of the player r places after it, zeros for seats the game lacks; the chief is the
    cat of all five clue values; chip values and points are the engine's."""
    plain = CheckpointCharlieVectorEnv(48, opponents="bayes_v2", belief_features="players", num_players=[3, 4, 5])
    with_state = CheckpointCharlieVectorEnv(
        48, opponents="bayes_v2", belief_features="players", num_players=[3, 4, 5], critic_state=True
    )
    size = LAYOUTS[ENV_VERSION]["players"].size
    assert with_state.single_observation_space.shape == (size + CRITIC_STATE.size,)
    assert plain.single_observation_space.shape == (size,)
    for ours, theirs in zip(play(with_state, 30), play(plain, 30), strict=True):
        assert np.array_equal(ours[:, :size], theirs)
        assert with_state.single_observation_space.contains(ours[0])
    state, seats = with_state.state, with_state.seat
    hidden = ours[:, size:]
    for b in range(with_state.num_envs):
        n = int(state.n[b])
        clues = CRITIC_STATE.view(hidden[b], "state_clues")
        for r in range(5):
            if r < n:
                assert clues[r].argmax() == state.clues[b, (seats[b] + r) % n] and clues[r].sum() == 1
            else:
                assert not clues[r].any()
        chief = int(chief_of(state.clues[b : b + 1], state.bag[b : b + 1])[0])
        one_hot = CRITIC_STATE.view(hidden[b], "state_chief")
        assert one_hot.argmax() == chief and one_hot.sum() == 1
        values = CRITIC_STATE.view(hidden[b], "state_chip_values")
        for r in range(n):  # each relative seat's chips by value, hidden from every other seat
            assert np.allclose(values[r], state.value_counts[b, (seats[b] + r) % n] / 10)
        assert not values[n:].any()
        bag = np.flatnonzero(CRITIC_STATE.view(hidden[b], "state_bag"))
        assert sorted(bag) == sorted(int(c) for c in state.bag[b, : 5 - n])
        points = CRITIC_STATE.view(hidden[b], "state_points")
        assert np.allclose(points[:n], [state.points[b, (seats[b] + r) % n] / 10 for r in range(n)])
        assert not points[n:].any()
    assert hidden[:, CRITIC_STATE.slice("state_clues")].reshape(-1, 5, N_CLUES).sum(2).max() == 1


def test_critic_state_must_be_a_flag_and_splits_across_workers():
    with pytest.raises(ValueError, match=r"critic_state='yes': accepted values are True or False"):
        CheckpointCharlieVectorEnv(4, critic_state="yes")
    one = CheckpointCharlieVectorEnv(8, opponents="bayes_v1", critic_state=True)
    split = SubprocVectorEnv(8, workers=2, opponents="bayes_v1", critic_state=True)
    try:
        assert split.single_observation_space.shape == one.single_observation_space.shape
        assert play(split, 5)[-1].shape == (8, LAYOUTS[ENV_VERSION][False].size + CRITIC_STATE.size)
    finally:
        split.close()


pytest.importorskip("sb3_contrib")


def config_for(start: Path, **overrides):
    from ckc_env.training.config import parse_config

    return parse_config(
        {
            "seed": 4,
            "total_timesteps": 1024,
            "game": {"num_players": [3, 4]},
            "reward": "win",
            "belief_features": "players",
            "opponents": ["bayes_v2"],
            "init_from": str(start),
            "critic_state": True,
            "ppo": {"n_steps": 8, "batch_size": 64, "n_epochs": 1},
            "policy": {"net_arch": [256, 256]},
            "vector": {"num_envs": 32},
            **overrides,
        }
    )


def test_the_config_takes_critic_state_on_the_vector_path_only():
    from ckc_env.training.config import parse_config

    assert parse_config({"vector": {"num_envs": 8}, "critic_state": True}).critic_state is True
    assert parse_config({}).critic_state is False
    with pytest.raises(ValueError, match=r"critic_state=True: accepted values are false without a vector section"):
        parse_config({"critic_state": True})
    with pytest.raises(ValueError, match=r"critic_state=1: accepted values are true or false"):
        parse_config({"vector": {"num_envs": 8}, "critic_state": 1})
    with pytest.raises(ValueError, match="clone in a run of its own"):
        parse_config({"vector": {"num_envs": 8}, "critic_state": True, "pretrain": {"teacher": "bayes_v1"}})


@pytest.mark.slow
def test_a_state_critic_run_starts_as_its_file_and_exports_a_plain_agent_file(tmp_path):
    """From ``init_from`` the policy plays as the file's and both critics value as the file's
    (the state's inputs start at zero weights); a PPO update moves the state critic and the
    observation critic; the exported agent file reads the plain observation: its logits are the
    policy's, its value the observation critic's, whatever the state says."""
    import torch

    from ckc_env.players import agent_file
    from ckc_env.training.envs import make_vector_env
    from ckc_env.training.imitation.finetune import init_from
    from ckc_env.training.trainers.sb3 import trainer as sb3
    from ckc_env.training.trainers.sb3.vec_env import SB3VecEnv

    start = ROOT / "checkpoints" / "ppo_all_counts_mixed_34p"
    config = config_for(start)
    env = SB3VecEnv(make_vector_env(config))
    model = sb3.build_model(config, env)
    init_from(model, start, config)
    size = LAYOUTS[ENV_VERSION]["players"].size
    observations = np.concatenate(play(env.env, 6))
    source = agent_file.torch_policy(agent_file.card_path(start))
    full, plain = torch.as_tensor(observations), torch.as_tensor(observations[:, :size])
    policy = model.policy
    with torch.no_grad():
        ours, theirs = policy.get_distribution(full), source.get_distribution(plain)
        assert torch.allclose(ours.distribution.logits, theirs.distribution.logits, atol=1e-5)
        assert torch.allclose(policy.predict_values(full), source.predict_values(plain), atol=1e-5)
        assert torch.allclose(policy.observation_values(full), source.predict_values(plain), atol=1e-5)
    before = {name: p.detach().clone() for name, p in policy.named_parameters()}
    model.learn(1024)
    moved = {name for name, p in policy.named_parameters() if not torch.equal(p, before[name])}
    assert {"mlp_extractor.policy_net.0.weight", "observation_value_net.0.weight", "observation_value.weight"} <= moved
    state_inputs = policy.mlp_extractor.value_net[0].weight[:, size:]
    assert state_inputs.shape[1] == CRITIC_STATE.size and state_inputs.abs().sum() > 0  # the critic reads the state
    assert policy.mlp_extractor.policy_net[0].weight.shape[1] == size  # the policy cannot
    card_path = sb3.save_model(model, tmp_path / "exported", config)
    card = agent_file.read_card(card_path)
    assert card.layout.size == size and card.belief_features == "players"
    exported = agent_file.load_agent(card_path)
    with torch.no_grad():
        logits = policy.get_distribution(full).distribution.logits.numpy()
        values = policy.observation_values(full).numpy()[:, 0]
    raw = exported.logits(observations[:, :size]).astype(np.float64)
    normalised = raw - raw.max(1, keepdims=True)
    normalised -= np.log(np.exp(normalised).sum(1, keepdims=True))  # torch's logits are log-probabilities
    assert np.allclose(normalised, logits, atol=1e-3)
    assert np.allclose(exported.values(observations[:, :size]), values, atol=1e-4)
    env.close()
