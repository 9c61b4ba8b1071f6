"""Checkpoints as players: loading, layout checks, and playing in a tournament."""

import gymnasium as gym
import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib", reason="making checkpoints needs the train extra")

from ckc_env.evaluation.tournament import run_tournament  # noqa: E402
from ckc_env.observation import (  # noqa: E402
    OBSERVATION,
    OBSERVATION_V0,
    OBSERVATION_V0_WITH_BELIEFS,
    OBSERVATION_WITH_BELIEFS,
)
from ckc_env.players.agent_file import save_sb3  # noqa: E402
from ckc_env.players.loading import locate  # noqa: E402
from ckc_env.players.policy import PolicyAgent  # noqa: E402


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


def untrained(size: int, actions: int = 40, seed: int = 0, **policy_kwargs):
    return sb3_contrib.MaskablePPO(
        "MlpPolicy", _Stub(size, actions), n_steps=8, batch_size=8, seed=seed, device="cpu", policy_kwargs=policy_kwargs
    )


def save_untrained(tmp_path, size: int, actions: int = 40, name: str = "model", seed: int = 0):
    """An untrained model as SB3's zip and as the safe agent file; returns the card's path."""
    model = untrained(size, actions, seed)
    model.save(tmp_path / f"{name}.zip")
    return save_sb3(model, tmp_path / name, players=[3, 4, 5])


@pytest.mark.parametrize(
    "layout",
    [OBSERVATION, OBSERVATION_WITH_BELIEFS, OBSERVATION_V0, OBSERVATION_V0_WITH_BELIEFS],
    ids=["plain", "beliefs", "v0-plain", "v0-beliefs"],
)
def test_a_checkpoint_plays_every_seat_count(tmp_path, layout):
    card = save_untrained(tmp_path, layout.size)
    for path in (card, card.with_suffix(".safetensors"), tmp_path / "model.zip"):
        assert PolicyAgent(path, trust_checkpoint=path.suffix == ".zip").layout is layout
    for n in (3, 4, 5):
        result = run_tournament([str(card)] + ["random"] * (n - 1), games=n, seed=1, workers=1)
        assert result.games == {3: 6, 4: 24, 5: 20}[n]  # one balanced seating design
        assert abs(sum(s["win"].mean for s in result.stats()) - 1.0) < 1e-9  # every game has winners


def test_a_run_folder_plays_its_safe_best_model(tmp_path):
    untrained(OBSERVATION.size).save(tmp_path / "final_model.zip")
    assert locate(tmp_path).path.name == "final_model.zip"  # an old run folder: the zip, with trust
    save_untrained(tmp_path, OBSERVATION.size, name="best_model")
    assert locate(tmp_path).path.name == "best_model.json"  # the safe file before any zip
    (tmp_path / "best_model.json").unlink()
    save_untrained(tmp_path, OBSERVATION.size, name="final_model")
    assert locate(tmp_path).path.name == "final_model.json"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"folder .* holds no agent: a run folder holds best_model\.json"):
        locate(empty)


def test_a_zip_for_another_layout_is_refused_with_every_size(tmp_path):
    wrong = tmp_path / "wrong.zip"
    untrained(100).save(wrong)
    sizes = r"\(731,\) \(v0\), \(845,\) \(v0, belief_features=True\), \(736,\) \(v1\), \(850,\)"
    with pytest.raises(ValueError, match=sizes):
        PolicyAgent(wrong, trust_checkpoint=True)
    with pytest.raises(ValueError, match=sizes):
        run_tournament([str(wrong), "random", "random"], games=3, workers=1, trust_checkpoint=True)
    wrong_actions = tmp_path / "actions.zip"
    untrained(OBSERVATION.size, actions=12).save(wrong_actions)
    with pytest.raises(ValueError, match=r"Discrete\(40\)"):
        PolicyAgent(wrong_actions, trust_checkpoint=True)
    with pytest.raises(ValueError, match=r"not a checkpoint_charlie policy .* 40 actions"):
        save_sb3(untrained(OBSERVATION.size, actions=12), tmp_path / "actions", players=[5])


def test_missing_and_broken_checkpoints(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint at"):
        PolicyAgent(tmp_path / "nope.zip")
    with pytest.raises(ValueError, match="no checkpoint at"):
        PolicyAgent(tmp_path / "nope.json")
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"broken\.zip is not a zip archive"):
        PolicyAgent(broken, trust_checkpoint=True)
    broken.write_bytes(b"PK\x03\x04 but no archive")
    with pytest.raises(ValueError, match="not a MaskablePPO checkpoint"):
        PolicyAgent(broken, trust_checkpoint=True)
    other = tmp_path / "model.pt"
    other.write_bytes(b"anything")
    with pytest.raises(ValueError, match=r"model\.pt is not an agent file: give an agent card \(\.json\)"):
        PolicyAgent(other, trust_checkpoint=True)


def test_a_rewritten_checkpoint_is_loaded_again(tmp_path):
    """Training rewrites latest_model before every evaluation: a cached old network must not play."""
    card = save_untrained(tmp_path, OBSERVATION.size)
    first = PolicyAgent(card).network
    assert PolicyAgent(card).network is first  # cached while the file is unchanged
    save_untrained(tmp_path, OBSERVATION.size, seed=1)
    assert PolicyAgent(card).network is not first


def test_the_numpy_policy_plays_as_sb3_predict(tmp_path):
    """PolicyAgent plays the safe file in NumPy: its choices must be MaskablePPO's own deterministic
    ones, sampled ones legal and reproducible from the agent's seed."""
    from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent

    model = untrained(OBSERVATION_WITH_BELIEFS.size)
    card = save_sb3(model, tmp_path / "model", players=[4])
    env = CheckpointCharlieSingleAgent(opponents="bayes_v1", num_players=4, belief_features=True)
    greedy = PolicyAgent(card)
    sampled = [PolicyAgent(card, seed=7, deterministic=False) for _ in range(2)]
    obs, _ = env.reset(seed=3)
    for _ in range(300):
        mask = env.action_masks()
        observation = {"observation": obs, "action_mask": mask.astype(np.int8)}
        expected, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert greedy.act(None, observation) == int(expected)
        draws = [agent.act(None, observation) for agent in sampled]
        assert draws[0] == draws[1] and mask[draws[0]]
        obs, _, done, _, _ = env.step(draws[0])
        if done:
            obs, _ = env.reset()
