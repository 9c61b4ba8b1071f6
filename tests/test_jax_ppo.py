"""PPO on the device (training/jax_ppo.py, ``engine: jax``) and its environment (ckc_env/jax/vector_env.py),
on JAX's CPU backend: the config's checks, the rewards the learner is paid against the games' results,
a tiny run end to end whose agent file gives the trainer's own logits on the AEC env, the NumPy
engines and torch, a resume, one seed giving one run, and init_from."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

jax = pytest.importorskip("jax")
pytest.importorskip("optax")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jax.numpy as jnp  # noqa: E402

import ckc_env  # noqa: E402
from ckc_env.jax import policy  # noqa: E402
from ckc_env.jax import vector_env as venv  # noqa: E402
from ckc_env.jax.tournament import distinct_forms, jax_form  # noqa: E402
from ckc_env.observation import ENV_VERSION, LAYOUTS  # noqa: E402
from ckc_env.players import agent_file  # noqa: E402
from ckc_env.training.commands import checks, train  # noqa: E402
from ckc_env.training.config import parse_config  # noqa: E402
from ckc_env.training.trainers.jax import network, update  # noqa: E402
from ckc_env.training.trainers.jax import state as jax_state  # noqa: E402
from ckc_env.training.trainers.jax import trainer as jax_trainer  # noqa: E402

TINY = {
    "seed": 5,
    "engine": "jax",
    "total_timesteps": 128,
    "game": {"num_players": [4, 5]},
    "reward": "margin",
    "belief_features": True,
    "learner_seat": "random",
    "opponents": ["random"],
    "ppo": {"n_steps": 4, "batch_size": 32, "n_epochs": 2, "learning_rate": 0.001, "ent_coef": 0.01},
    "policy": {"net_arch": [32, 32]},
    "eval": {"every": 64, "games": 16, "opponents": {"vs_random": ["random"]}},
    "vector": {"num_envs": 16},
}


# ---------------------------------------------------------------------------------------------- the config
@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"vector": None}, ["engine", "vector"]),
        ({"vector": {"num_envs": 16, "workers": 2}}, ["vector.workers", "1 with engine: jax"]),
        ({"engine": "torch"}, ["engine", "'sb3' or 'jax'"]),
        ({"duplicate": "bayes_v2"}, ["duplicate", "NumPy engine"]),
        ({"critic_state": True}, ["critic_state", "NumPy engine"]),
        ({"pretrain": {"teacher": "bayes_v1"}}, ["pretrain.teacher", "init_from"]),
        ({"opponents": ["self"]}, ["self-play", "vector.loop: decision"]),
        ({"finetune": {"critic_fit": 1000}}, ["critic_fit"]),
        ({"belief_features": "second_order"}, ["belief_features", "second-order"]),
        ({"ppo": {"n_steps": 4, "batch_size": 48}}, ["ppo.batch_size", "a divisor of n_steps x vector.num_envs = 64"]),
        ({"ppo": {"n_step": 4}}, ["unknown key", "n_steps"]),
    ],
)
def test_engine_jax_refuses_what_it_does_not_train_naming_the_key(change, words):
    data = {**TINY, **change}
    if data.get("vector") is None:
        data.pop("vector")
    with pytest.raises(ValueError) as caught:
        parse_config(data)
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))


def test_every_shipped_jax_config_loads_and_has_jax_forms():
    config = parse_config(yaml.safe_load((ROOT / "configs/train/scratch_jax.yaml").read_text()))
    assert config.engine == "jax" and config.eval.reference == "bayes_v2"
    checks.check_players(config, False)
    shipped = [path for path in sorted((ROOT / "configs/train").rglob("*.yaml")) if "engine: jax" in path.read_text()]
    assert len(shipped) >= 3
    for path in shipped:
        checks.check_players(parse_config(yaml.safe_load(path.read_text())), False)
    self_play = parse_config(yaml.safe_load((ROOT / "configs/train/self_play_jax.yaml").read_text()))
    assert self_play.self_play.shared and self_play.vector.loop == "decision"
    with pytest.raises(ValueError, match="no JAX form"):
        checks.check_players(parse_config({**TINY, "opponents": ["bayes_v3"]}), False)


# ---------------------------------------------------------------------------------------------- the environment
@pytest.mark.slow
@pytest.mark.parametrize("reward", ["margin", "win"])
def test_the_rewards_of_an_episode_add_up_to_its_result(reward):
    """Every game waits for its learner after each step, and what a slot is paid over a game (its
    rewards from the step after the previous game's end to the step that ends it) is the scheme's
    return of that game's result (the margin, or the win reward from the win share; points are the
    margin's first term, each program compiled here takes about two minutes on the 2-core CPU)."""
    env = venv.VectorEnv.build({"num_players": [3, 4, 5]}, [["random"]], "random", False, reward)
    size = 24
    state, obs, mask = venv.reset(env, jax.random.key(3), size)
    step = jax.jit(venv.step, static_argnums=0)
    paid = np.zeros(size)
    checked = 0
    key = jax.random.key(4)
    for _ in range(60):
        games = state.games
        assert bool(jnp.all((games.pending_kind >= 0) & (games.pending_seat == state.seat)))
        assert bool(jnp.all(mask.any(1))) and obs.shape == (size, LAYOUTS[ENV_VERSION][False].size)
        key, sample = jax.random.split(key)
        action = jax.random.categorical(sample, jnp.where(mask, 0.0, -1e9))
        n = np.asarray(games.n)
        state, out = step(env, state, action)
        paid += np.asarray(out.reward)
        for b in np.flatnonzero(np.asarray(out.done)):
            share = float(out.win_share[b])
            if reward == "margin":
                expected = float(out.margin[b])
            elif reward == "points":
                expected = float(out.points[b])
            elif share == 0:  # -1/(n - k) for each of the n - k who did not win
                assert -1.0 <= paid[b] < 0
                paid[b] = 0.0
                continue
            else:  # +1/k for each of k winners
                expected = share
            assert paid[b] == pytest.approx(expected, abs=1e-4), (b, n[b])
            paid[b] = 0.0
            checked += 1
        mask, obs = out.mask, out.obs
    assert checked > 20


@pytest.mark.slow
def test_a_population_draws_its_tables_by_weight():
    env = venv.VectorEnv.build({"num_players": 4}, [["random"], ["passive"]], 0, False, "points")
    assert len(env.forms) == 2 and env.members == 2
    state, _, _ = venv.reset(env, jax.random.key(0), 256, jnp.array([1.0, 3.0]))
    share = float(jnp.mean(state.member == 1))
    assert 0.65 < share < 0.85
    assert bool(jnp.all(state.seat == 0))


def test_agents_of_one_architecture_share_compiled_code_but_stay_two_players():
    lineup = ["checkpoints/ppo_all_counts", "checkpoints/ppo_all_counts_finetuned", "random"]
    seated = [jax_form(str(ROOT / spec)) if spec != "random" else jax_form(spec) for spec in lineup]
    assert seated[0] == seated[1] and hash(seated[0]) == hash(seated[1])  # the jit cache's key
    forms, index = distinct_forms(seated)
    assert len(forms) == 3 and len(set(index.tolist())) == 3


# ---------------------------------------------------------------------------------------------- a run
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("jax_ppo")
    config = folder / "tiny.yaml"
    config.write_text(yaml.safe_dump(TINY))
    run = train.main([str(config), "--run-dir", str(folder / "run"), "--no-progress"])
    return run, config


@pytest.mark.slow
def test_a_tiny_run_writes_the_run_folder_of_the_sb3_path(tiny_run):
    run, _config = tiny_run
    for name in ("run.json", "config.yaml", "command.txt", "evaluations.json", "summary.json", "progress.csv"):
        assert (run / name).is_file(), name
    for model in ("best_model", "final_model", "latest_model"):
        assert (run / f"{model}.json").is_file() and (run / f"{model}.safetensors").is_file()
    assert not list(run.glob("*.zip"))
    history = json.loads((run / "evaluations.json").read_text())
    assert [h["timesteps"] for h in history] == [0, 64, 128]
    assert "vs_start" in history[-1] and history[-1]["results"]["vs_random"]["games"] >= 16
    card = json.loads((run / "final_model.json").read_text())
    assert card["players"] == [4, 5] and card["training"]["timesteps"] == 128
    assert card["training"]["algorithm"] == "PPO (JAX)" and card["training"]["config"]["engine"] == "jax"
    assert card["evaluation"]["results"] == history[-1]["results"]
    rows = (run / "progress.csv").read_text().splitlines()
    assert rows[0].startswith("time/total_timesteps") and len(rows) == 3  # one row per PPO iteration
    assert jax_state.state_timesteps(run / jax_state.STATE_FILE) == 128
    compile_times = json.loads((run / "summary.json").read_text())["compile"]  # seconds, and from the cache or not
    assert compile_times["the training iteration"]["seconds"] > 0
    assert {entry["cache"] for entry in compile_times.values()} <= {"off", "miss", "hit", "partly"}


def positions_of_the_aec_env(belief_features, count: int = 60):
    """Observations and masks of the acting agent at every decision of seeded AEC games (random play)."""
    rows, masks = [], []
    rng = np.random.default_rng(0)
    for seed, n in enumerate([4, 5, 4]):
        env = ckc_env.env(num_players=n, belief_features=belief_features)
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            rows.append(observation["observation"])
            masks.append(observation["action_mask"].astype(bool))
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            if len(rows) >= count * (seed + 1):
                break
    return np.asarray(rows, dtype=np.float32), np.asarray(masks)


@pytest.mark.slow
def test_the_agent_file_plays_the_trainers_logits_on_every_engine(tiny_run):
    """The trainer's own network (its saved train state) and the agent file it wrote give the same
    logits: the NumPy network the AEC env, the batched engine and ckc-play load, torch's MlpPolicy
    rebuilt from it, and the JAX engine's loader."""
    run, config_path = tiny_run
    from ckc_env.training.config import load_config

    config = load_config(config_path)
    env = jax_trainer.build_env(config)
    runner = jax_state.load_state(jax_trainer.start_runner(config, env, np.ones(1)), run / jax_state.STATE_FILE, config)
    obs, masks = positions_of_the_aec_env(True)
    trained = np.asarray(policy.logits(runner.params, obs, masks))
    agent = agent_file.load_agent(run / "final_model.json")
    numpy_logits = np.where(masks, agent.logits(obs), -np.inf)
    legal = masks
    assert np.abs(trained[legal] - numpy_logits[legal]).max() < 1e-5
    assert np.array_equal(np.isinf(trained), ~legal)
    loaded = policy.load(run / "final_model.json")
    assert np.abs(np.asarray(policy.logits(loaded.params, obs, masks))[legal] - trained[legal]).max() < 1e-5
    torch = pytest.importorskip("torch")
    module = agent_file.torch_policy(run / "final_model.json")
    with torch.no_grad():
        torch_logits = module.get_distribution(torch.as_tensor(obs)).distribution.logits.numpy()
    raw = np.asarray(policy.raw_logits(runner.params, obs))
    shifted = raw - np.log(np.exp(raw - raw.max(1, keepdims=True)).sum(1, keepdims=True)) - raw.max(1, keepdims=True)
    assert np.abs(torch_logits - shifted).max() < 1e-4  # torch's Categorical normalises its logits
    # the players of ckc-play and the tournaments: the file's greedy action is the trainer's argmax
    from ckc_env.players import resolve

    assert resolve(str(run / "final_model.json")).network is not None
    ordered = np.sort(np.where(legal, numpy_logits, -1e9), axis=1)
    clear = ordered[:, -1] - ordered[:, -2] > 1e-4  # no near-tie between the two best legal actions
    assert clear.sum() > 50
    assert np.array_equal(numpy_logits.argmax(1)[clear], trained.argmax(1)[clear])


@pytest.mark.slow
def test_a_resume_continues_the_run_and_one_seed_gives_one_run(tiny_run, tmp_path):
    run, config = tiny_run
    train.main(["--resume", str(run), "--total-timesteps", "192", "--no-progress"])
    history = json.loads((run / "evaluations.json").read_text())
    assert [h["timesteps"] for h in history] == [0, 64, 128, 192]
    assert jax_state.state_timesteps(run / jax_state.STATE_FILE) == 192
    assert len((run / "progress.csv").read_text().splitlines()) == 4
    elapsed = [h["elapsed_seconds"] for h in history]
    assert elapsed == sorted(elapsed)
    again = train.main([str(config), "--run-dir", str(tmp_path / "again"), "--no-progress"])
    first = json.loads((again / "evaluations.json").read_text())
    assert [h["results"] for h in first] == [h["results"] for h in history[:3]]
    assert (again / "start_games.json").read_bytes() == (run / "start_games.json").read_bytes()


def test_a_resume_refuses_a_run_without_its_train_state(tmp_path, capsys):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "evaluations.json").write_text("[]")
    with pytest.raises(Exception, match=r"no train_state\.safetensors"):
        checks.jax_resume_point(folder, [], None)
    bad = folder / jax_state.STATE_FILE
    bad.write_bytes(b'\x10\x00\x00\x00\x00\x00\x00\x00{"a": 1}        ')
    with pytest.raises(Exception, match="not a JAX train state"):
        jax_state.state_timesteps(bad)


def test_init_from_writes_the_files_tensors_back_exactly_and_widens_a_smaller_layout():
    card = ROOT / "checkpoints/ppo_5p_scratch/best_model.json"
    start = network.start_network(str(card), LAYOUTS[ENV_VERSION][True].size)
    _network, tensors = network.tensors_of(start)
    _, original = agent_file._read(card)
    assert set(tensors) == set(original)
    for name, tensor in original.items():
        assert np.array_equal(tensors[name], tensor), name
    wide = network.start_network(str(card), LAYOUTS[ENV_VERSION]["players"].size)
    first = np.asarray(wide.policy[0].weight)
    assert first.shape[0] == LAYOUTS[ENV_VERSION]["players"].size
    assert not first[LAYOUTS[ENV_VERSION][True].size :].any()


def test_a_fresh_network_is_mlp_policys():
    config = parse_config({**TINY, "policy": {"net_arch": {"pi": [16], "vf": [8, 8]}, "activation_fn": "relu"}})
    params = network.init_network(jax.random.key(0), 850, config)
    assert [layer.weight.shape for layer in params.policy] == [(850, 16), (16, 40)]
    assert [layer.weight.shape for layer in params.value] == [(850, 8), (8, 8), (8, 1)]
    assert [layer.activation for layer in params.policy] == ["relu", "identity"]
    head = np.asarray(params.policy[-1].weight)  # orthogonal with gain 0.01: rows of norm 0.01
    assert np.allclose(np.linalg.norm(head, axis=1), 0.01, atol=1e-5)
    card, tensors = network.tensors_of(params)
    assert [layer["tensor"] for layer in card["policy"]] == ["mlp_extractor.policy_net.0", "action_net"]
    assert tensors["mlp_extractor.value_net.2.weight"].shape == (8, 8)
    assert config.replace(seed=1) != config


@pytest.mark.slow
def test_the_critic_warmup_freezes_the_policy_and_the_pull_to_the_start_runs():
    """``finetune.critic_warmup``: an iteration inside it moves the value network alone;
    ``kl_to_start``: the pass towards the start policy runs and reports its divergence."""
    config = parse_config({**TINY, "finetune": {"critic_warmup": 1000, "kl_to_start": 1.0}})
    env = jax_trainer.build_env(config)
    runner = jax_trainer.start_runner(config, env, np.ones(1))
    runner = runner._replace(start=runner.params)
    iterate = update.compile_chunk(env, config, 1)
    after, figures = iterate(runner)
    for before, now in zip(runner.params.policy, after.params.policy, strict=True):
        assert np.array_equal(np.asarray(before.weight), np.asarray(now.weight))
    assert any(
        not np.array_equal(np.asarray(b.weight), np.asarray(a.weight))
        for b, a in zip(runner.params.value, after.params.value, strict=True)
    )
    assert float(figures["critic_warmup"][0]) == 1.0 and float(figures["kl_weight"][0]) == 0.0
    later = after._replace(timesteps=jnp.float32(2000))  # past the warm-up: the policy moves, the pull runs
    moved, figures = iterate(later)
    assert not np.array_equal(np.asarray(moved.params.policy[0].weight), np.asarray(after.params.policy[0].weight))
    assert float(figures["kl_weight"][0]) == 1.0 and np.isfinite(figures["kl_to_start"][0])


@pytest.mark.slow
def test_the_players_posterior_layout_trains():
    """``belief_features: players``: the learner's reading of the other players kept per slot."""
    config = parse_config({**TINY, "belief_features": "players", "game": {"num_players": 4}})
    env = jax_trainer.build_env(config)
    runner = jax_trainer.start_runner(config, env, np.ones(1))
    assert runner.obs.shape == (16, LAYOUTS[ENV_VERSION]["players"].size)
    runner, figures = update.compile_chunk(env, config, 1)(runner)
    assert np.isfinite(figures["value_loss"][0]) and bool(jnp.all(runner.mask.any(1)))
