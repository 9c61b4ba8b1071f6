"""Checkpoints as players: loading, layout checks, and playing in a tournament."""

import gymnasium as gym
import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib", reason="checkpoints need the train extra")

from ckc_env.observation import (  # noqa: E402
    OBSERVATION,
    OBSERVATION_V0,
    OBSERVATION_V0_WITH_BELIEFS,
    OBSERVATION_WITH_BELIEFS,
)
from ckc_env.policy import PolicyAgent, resolve_checkpoint  # noqa: E402
from ckc_env.tournament import run_tournament  # noqa: E402


class _Stub(gym.Env):
    """A minimal env with given spaces, only to create and save an untrained model."""

    def __init__(self, size: int, actions: int = 40) -> None:
        self.observation_space = gym.spaces.Box(-3.0, 15.0, (size,), np.float32)
        self.action_space = gym.spaces.Discrete(actions)

    def reset(self, seed=None, options=None):
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}

    def action_masks(self):
        return np.ones(self.action_space.n, bool)


def save_untrained(tmp_path, size: int, actions: int = 40, name: str = "model.zip"):
    model = sb3_contrib.MaskablePPO("MlpPolicy", _Stub(size, actions), n_steps=8, batch_size=8, seed=0, device="cpu")
    path = tmp_path / name
    model.save(path)
    return path


@pytest.mark.parametrize(
    "layout",
    [OBSERVATION, OBSERVATION_WITH_BELIEFS, OBSERVATION_V0, OBSERVATION_V0_WITH_BELIEFS],
    ids=["plain", "beliefs", "v0-plain", "v0-beliefs"],
)
def test_a_checkpoint_plays_every_seat_count(tmp_path, layout):
    path = save_untrained(tmp_path, layout.size)
    agent = PolicyAgent(path)
    assert agent.layout is layout
    for n in (3, 4, 5):
        result = run_tournament([str(path)] + ["random"] * (n - 1), games=n, seed=1, workers=1)
        assert result.games == n
        assert abs(sum(s["win"].mean for s in result.stats()) - 1.0) < 1e-9  # every game has winners


def test_a_run_folder_resolves_to_its_best_model(tmp_path):
    save_untrained(tmp_path, OBSERVATION.size, name="final_model.zip")
    assert resolve_checkpoint(tmp_path).name == "final_model.zip"
    save_untrained(tmp_path, OBSERVATION.size, name="best_model.zip")
    assert resolve_checkpoint(tmp_path).name == "best_model.zip"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"neither best_model\.zip nor final_model\.zip"):
        resolve_checkpoint(empty)


def test_a_checkpoint_for_another_layout_is_refused_with_both_sizes(tmp_path):
    wrong = save_untrained(tmp_path, 100)
    sizes = r"\(731,\) \(v0\), \(845,\) \(v0, belief_features=True\), \(736,\) \(v1\), \(850,\)"
    with pytest.raises(ValueError, match=sizes):
        PolicyAgent(wrong)
    with pytest.raises(ValueError, match=sizes):
        run_tournament([str(wrong), "random", "random"], games=3, workers=1)
    wrong_actions = save_untrained(tmp_path, OBSERVATION.size, actions=12, name="actions.zip")
    with pytest.raises(ValueError, match=r"Discrete\(40\)"):
        PolicyAgent(wrong_actions)


def test_missing_and_broken_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint at"):
        PolicyAgent(tmp_path / "nope.zip")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a MaskablePPO checkpoint"):
        PolicyAgent(broken)


def test_a_rewritten_checkpoint_is_loaded_again(tmp_path):
    """Training rewrites latest_model.zip before every evaluation: a cached old model must not play."""
    path = save_untrained(tmp_path, OBSERVATION.size)
    first = PolicyAgent(path).model
    assert PolicyAgent(path).model is first  # cached while the file is unchanged
    model = sb3_contrib.MaskablePPO("MlpPolicy", _Stub(OBSERVATION.size), n_steps=8, batch_size=8, seed=1, device="cpu")
    model.save(path)
    assert PolicyAgent(path).model is not first


def test_the_direct_forward_pass_matches_sb3_predict(tmp_path):
    """PolicyAgent calls the network itself (for speed): its choices must be MaskablePPO's own,
    deterministic ones exactly, sampled ones legal and reproducible from the agent's seed."""
    from ckc_env.single_agent import CheckpointCharlieSingleAgent

    path = save_untrained(tmp_path, OBSERVATION_WITH_BELIEFS.size)
    env = CheckpointCharlieSingleAgent(opponents="bayes_v1", num_players=4, belief_features=True)
    greedy = PolicyAgent(path)
    sampled = [PolicyAgent(path, seed=7, deterministic=False) for _ in range(2)]
    obs, _ = env.reset(seed=3)
    for _ in range(300):
        mask = env.action_masks()
        observation = {"observation": obs, "action_mask": mask.astype(np.int8)}
        expected, _ = greedy.model.predict(obs, action_masks=mask, deterministic=True)
        assert greedy.act(None, observation) == int(expected)
        draws = [agent.act(None, observation) for agent in sampled]
        assert draws[0] == draws[1] and mask[draws[0]]
        obs, _, done, _, _ = env.step(draws[0])
        if done:
            obs, _ = env.reset()
