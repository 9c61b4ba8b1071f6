"""The vector environment (ckc_env.envs.vector) and its stable-baselines3 adapter: gymnasium's vector
contract, the single-agent view's rewards and episodes, refusals, mixed player counts, checkpoint
opponents, and learners that take it unchanged."""

from __future__ import annotations

import math
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv

from ckc_env import batch
from ckc_env.batch.agents import uniform_legal
from ckc_env.batch.chance import next_keys
from ckc_env.batch.game import start_games
from ckc_env.batch.replay import Lockstep
from ckc_env.config import GameConfig
from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_BELIEFS, encode_observation
from ckc_env.players import batch_capable
from ckc_env.players.batch_policy import BatchPolicyAgent
from ckc_env.players.policy import load_policy

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = ROOT / "checkpoints" / "ppo_5p_distilled"


def random_actions(env: CheckpointCharlieVectorEnv, rng: np.random.Generator) -> np.ndarray:
    return uniform_legal(env.action_masks().astype(np.int8), rng)


def play_episodes(env: CheckpointCharlieVectorEnv, steps: int, seed: int = 0):
    """Random legal play; yields (slot, episode return, episode length, final info) per finished game."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    returns, lengths = np.zeros(env.num_envs), np.zeros(env.num_envs, dtype=np.int64)
    for _ in range(steps):
        _, rewards, terminated, truncated, infos = env.step(random_actions(env, rng))
        assert not truncated.any()
        returns += rewards
        lengths += 1
        for b in np.flatnonzero(terminated):
            final = {k: v[b] for k, v in infos["final_info"].items() if not k.startswith("_")}
            yield b, returns[b], lengths[b], final
            returns[b], lengths[b] = 0.0, 0


def test_gymnasium_vector_contract():
    env = CheckpointCharlieVectorEnv(16, opponents="bayes_v1", belief_features=True)
    assert isinstance(env, VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (OBSERVATION_WITH_BELIEFS.size,)
    assert env.single_action_space == gymnasium.spaces.Discrete(40)
    assert env.observation_space.shape == (16, OBSERVATION_WITH_BELIEFS.size)
    observations, infos = env.reset(seed=3)
    assert observations.dtype == np.float32 and observations.shape == (16, 850)
    assert all(env.single_observation_space.contains(row) for row in observations)
    masks = env.action_masks()
    assert masks.shape == (16, 40) and masks.dtype == bool and masks.any(1).all()
    again, _ = CheckpointCharlieVectorEnv(16, opponents="bayes_v1", belief_features=True).reset(seed=3)
    assert np.array_equal(observations, again)  # seeded: the same deals, seats and opponents
    rng = np.random.default_rng(0)
    for _ in range(30):
        observations, rewards, terminated, _, infos = env.step(random_actions(env, rng))
        assert observations.shape == (16, 850) and rewards.shape == (16,) and terminated.dtype == bool
        assert env.action_masks().any(1).all()  # every slot waits for its learner
        if terminated.any():
            assert np.array_equal(infos["_final_obs"], terminated)
            for b in np.flatnonzero(terminated):
                assert infos["final_obs"][b].shape == (850,)
                assert not np.array_equal(infos["final_obs"][b], observations[b])  # the next game's first


def test_sync_vector_env_calls_reach_the_slots():
    """Code written for ``SyncVectorEnv`` (``call("action_masks")``, ``get_attr("action_space")``)
    gets one answer per slot; other names and ``set_attr`` are refused naming what is accepted."""
    env = CheckpointCharlieVectorEnv(8, opponents="random")
    env.reset(seed=1)
    masks = env.call("action_masks")
    assert isinstance(masks, tuple) and len(masks) == 8
    assert np.array_equal(np.stack(masks), env.action_masks())
    assert np.array_equal(np.stack(env.get_attr("action_masks")), env.action_masks())
    assert env.get_attr("action_space") == (gymnasium.spaces.Discrete(40),) * 8
    assert env.call("observation_space") == (env.single_observation_space,) * 8
    assert env.get_attr("render_mode") == (None,) * 8
    with pytest.raises(AttributeError, match=r"no 'np_random'.*\['action_masks', 'observation_space'"):
        env.get_attr("np_random")
    with pytest.raises(AttributeError, match="share the environment's settings"):
        env.set_attr("reward", "win")


def test_gymnasium_vector_wrappers_step_it():
    """gymnasium's own vector wrapper reads the autoreset mode and counts the episodes."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    vector = CheckpointCharlieVectorEnv(32, opponents="random", reward="win")
    env = RecordEpisodeStatistics(vector, buffer_length=10_000)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    episodes = ended = 0
    for _ in range(100):
        _, _, terminated, _, infos = env.step(random_actions(vector, rng))
        ended += int(terminated.sum())
        if "episode" in infos:
            episodes += int(infos["_episode"].sum())
            assert np.all(np.abs(infos["episode"]["r"][infos["_episode"]]) <= 1.0)
    assert episodes == ended == len(env.return_queue) > 0


@pytest.mark.slow
@pytest.mark.parametrize("reward", ["points", "margin", "win"])
def test_rewards_add_up_to_the_game_result(reward):
    env = CheckpointCharlieVectorEnv(64, opponents=["bayes_v1", "random"], reward=reward, num_players=3)
    finished = 0
    for _, total, _, final in play_episodes(env, 80):
        finished += 1
        if reward == "points":
            assert total == final["points"]
        elif reward == "margin":
            assert math.isclose(total, final["margin"], abs_tol=1e-9)
        else:
            assert (total > 0) == final["is_winner"]
            if final["is_winner"]:
                assert math.isclose(total, final["win_share"])
    assert finished > 20


def same_episodes(episodes: int, slots: int, steps: int, reward: str = "points", **options) -> None:
    """Statistical equivalence with ``CheckpointCharlieSingleAgent`` (the two seed their games and seats
    differently, so the games differ): a random learner gets the same mean return, plays as
    many decisions per game and wins as often, within 4 standard errors."""
    rng = np.random.default_rng(1)
    scalar = {"return": [], "length": [], "win": []}
    env = CheckpointCharlieSingleAgent(reward=reward, summary_infos=True, **options)
    for episode in range(episodes):
        env.reset(seed=episode)
        total, length, done = 0.0, 0, False
        while not done:
            _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total, length = total + r, length + 1
        scalar["return"].append(total)
        scalar["length"].append(length)
        scalar["win"].append(info["win_share"])
    vector = {"return": [], "length": [], "win": []}
    for _, total, length, final in play_episodes(CheckpointCharlieVectorEnv(slots, reward=reward, **options), steps):
        vector["return"].append(total)
        vector["length"].append(length)
        vector["win"].append(final["win_share"])
    assert len(vector["return"]) > slots
    for key in scalar:
        a, b = np.asarray(scalar[key], float), np.asarray(vector[key], float)
        se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        assert abs(a.mean() - b.mean()) < 4 * se, (key, a.mean(), b.mean(), se)


@pytest.mark.slow
def test_same_episodes_as_the_single_agent_view():
    same_episodes(60, 256, 40, opponents="bayes_v1")


@pytest.mark.long
@pytest.mark.parametrize(
    ("reward", "options"),
    [
        ("margin", {"opponents": "bayes_v1"}),
        ("win", {"opponents": ["eager", "random"], "num_players": 3, "stasi": True}),
        ("points", {"opponents": "cheater", "num_players": 4, "cafe_adler": True, "clue_face": "choose"}),
    ],
)
def test_same_episodes_as_the_single_agent_view_at_scale(reward, options):
    same_episodes(400, 1024, 80, reward, **options)


def test_illegal_action_ends_that_game_only():
    env = CheckpointCharlieVectorEnv(8, opponents="passive", illegal_penalty=-3.0)
    env.reset(seed=0)
    actions = random_actions(env, np.random.default_rng(0))
    illegal = np.flatnonzero(~env.action_masks()[0])[0]
    actions[0] = illegal
    actions[1] = 99  # out of range: refused as illegal too
    _, rewards, terminated, _, infos = env.step(actions)
    assert terminated[0] and terminated[1] and rewards[0] == rewards[1] == -3.0
    assert infos["final_info"]["illegal_action"][:2].all()
    assert not infos["final_info"]["illegal_action"][2:].any()


def test_refusals_name_the_accepted_values(rllib_checkpoint):
    rllib = rllib_checkpoint
    with pytest.raises(ValueError, match=r"no batched form.*batched players are"):
        CheckpointCharlieVectorEnv(4, opponents=rllib, trust_checkpoint=True)
    with pytest.raises(ValueError, match="belief_features"):
        CheckpointCharlieVectorEnv(4, belief_features="everything")
    with pytest.raises(ValueError, match="num_envs"):
        CheckpointCharlieVectorEnv(0)
    with pytest.raises(ValueError, match="reward"):
        CheckpointCharlieVectorEnv(4, reward="chips")
    with pytest.raises(ValueError, match="num_players"):
        CheckpointCharlieVectorEnv(4, num_players=6)
    with pytest.raises(ValueError, match="missing \\[5\\]"):
        CheckpointCharlieVectorEnv(4, num_players=[3, 5], opponents={3: "random"})
    with pytest.raises(ValueError, match="unknown game option"):
        CheckpointCharlieVectorEnv(4, colour="red")
    env = CheckpointCharlieVectorEnv(4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(4, dtype=np.int64))
    env.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    assert batch_capable("bayes_v1") and batch_capable("bayes_v2") and batch_capable(str(CHECKPOINT))
    assert not batch_capable(rllib, trust_checkpoint=True)


@pytest.mark.slow
def test_mixed_player_counts():
    env = CheckpointCharlieVectorEnv(
        24, num_players=[3, 4, 5], opponents={3: "random", 4: ["eager", "passive", "random"], 5: "bayes_v1"}
    )
    seen = set()
    for b, _, _, final in play_episodes(env, 60):
        seen.add(int(env.state.n[b]))
        assert final["points"] > -30
    assert seen == {3, 4, 5}
    assert set(np.unique(env.state.n)) == {3, 4, 5}
    assert np.all(env.seat < env.state.n)


def test_a_slot_dealt_another_count_is_a_fresh_game():
    """A slot whose next game has another player count holds exactly what a new batch would."""
    config = GameConfig(num_players=5, stasi=True)
    state = batch.init(config, seeds=[7, 8], num_players=[5, 3])
    before = state.key.copy()
    state.n[0] = 4
    batch.reset(state, np.array([0]))
    fresh = batch.init(config, seeds=[0], num_players=[4])
    fresh.key[:] = next_keys(before[:1])
    start_games(fresh, np.array([0]))
    for name in ("n", "tiles", "clues", "deck", "deck_len", "supply", "holdings", "pending_kind", "pending_seat"):
        assert np.array_equal(getattr(state, name)[0], getattr(fresh, name)[0]), name
    assert np.array_equal(batch.observe(state)[:1], batch.observe(fresh))


def test_checkpoint_opponents_decide_as_the_scalar_network():
    """A checkpoint deciding for a batch takes the scalar policy's action on every position."""
    network = load_policy(CHECKPOINT)
    player = BatchPolicyAgent(str(CHECKPOINT))
    lock = Lockstep(GameConfig(num_players=5), seeds=range(24), autoreset=True)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        state = lock.state
        games = np.flatnonzero(state.pending_kind >= 0)
        chosen = player.act(state, games)
        for g, action in zip(games, chosen, strict=True):
            game = lock.games[g]
            vector = encode_observation(game, game.pending_seat, network.layout)
            logits = network.logits(vector).astype(np.float64)
            logits[batch.legal_action_mask(state)[g] == 0] = -np.inf
            assert int(np.argmax(logits)) == action
            checked += 1
        lock.step(uniform_legal(lock.legal_action_mask(), rng))
    assert checked > 500
    sampler = BatchPolicyAgent(str(CHECKPOINT), seed=0, deterministic=False)
    state = lock.state
    games = np.flatnonzero(state.pending_kind >= 0)
    drawn = np.stack([sampler.act(state, games) for _ in range(20)])
    assert batch.legal_action_mask(state)[games[None, :], drawn].all()  # drawn among the legal actions only
    env = CheckpointCharlieVectorEnv(16, opponents=str(CHECKPOINT), belief_features=False)
    assert env.reset(seed=0)[0].shape == (16, OBSERVATION.size)
    env.step(random_actions(env, rng))


@pytest.fixture
def one_torch_thread():
    """As ckc-train: on a shared 2-core machine torch's small products are fastest on one thread."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_maskable_ppo_learns_on_the_sb3_vec_env(one_torch_thread):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from ckc_env.training.trainers.sb3.vec_env import SB3VecEnv

    venv = VecMonitor(SB3VecEnv(CheckpointCharlieVectorEnv(32, opponents="random", reward="margin")))
    venv.seed(0)
    venv.reset()
    assert is_masking_supported(venv) and get_action_masks(venv).shape == (32, 40)
    model = MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(512)
    assert model.num_timesteps >= 512 and len(model.ep_info_buffer) > 0
    observations = venv.reset()
    for _ in range(20):
        actions, _ = model.predict(observations, action_masks=get_action_masks(venv))
        observations, _, dones, infos = venv.step(actions)
        for b in np.flatnonzero(dones):
            assert infos[b]["terminal_observation"].shape == observations[b].shape
            assert "episode" in infos[b]
    small = SB3VecEnv(CheckpointCharlieVectorEnv(2, opponents="random", reward="margin"))
    mean, _ = evaluate_policy(model, small, n_eval_episodes=2, use_masking=True, warn=False)
    assert np.isfinite(mean)
