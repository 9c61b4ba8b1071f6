"""Training configs and a smoke run of training/train.py that the evaluator then plays."""

import json
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ckc_env import GameConfig  # noqa: E402
from ckc_env.evaluation.commands import evaluate  # noqa: E402
from ckc_env.training.commands import (  # noqa: E402
    pipeline,
    train,
)
from ckc_env.training.config import load_config, parse_config  # noqa: E402
from ckc_env.training.config import rllib as rllib_config  # noqa: E402
from ckc_env.training.config.learner import PPO  # noqa: E402
from ckc_env.training.run import folder as run_folder  # noqa: E402
from ckc_env.training.trainers.sb3 import trainer as sb3  # noqa: E402


@pytest.mark.parametrize("path", sorted((ROOT / "configs").rglob("*.yaml")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_config_file_loads(path):
    if path.parent.name == "rules":
        GameConfig.from_yaml(path)
    elif path.parent.name == "rllib":  # ckc-rllib-train's configs
        assert rllib_config.load_config(path).iterations > 0
    elif path.parent.name == "pipelines":  # ckc-train-pipeline's files: every stage's config checked
        assert pipeline.load_pipeline(path)
    else:
        config = load_config(path)
        assert config.total_timesteps > 0


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"total_steps": 10}, ["total_steps", "total_timesteps"]),
        ({"total_timesteps": "1e6"}, ["total_timesteps", "1_000_000"]),
        ({"ppo": {"lr": 0.001}}, ["ppo.lr", "learning_rate"]),
        ({"ppo": {"learning_rate": "3e-4"}}, ["ppo.learning_rate", "0.0003"]),
        ({"game": {"players": 5}}, ["game.players", "num_players"]),
        ({"game": {"num_players": 7}}, ["num_players", "3 to 5"]),
        ({"opponents": ["bayes_v1", "robot", "random", "random"]}, ["opponents[1]", "bayes_v1"]),
        ({"opponents": ["random", "random"]}, ["opponents", "list of 4"]),
        ({"reward": "score"}, ["reward", "'points', 'win', 'margin'"]),
        ({"belief_features": "yes"}, ["belief_features", "False, True, 'players'"]),
        ({"learner_seat": 9}, ["learner_seat", "0 to 4"]),
        ({"eval": {"every": 0}}, ["eval.every", ">= 1"]),
        ({"eval": {"tables": {}}}, ["eval.tables", "opponents"]),
        ({"self_play": {"snapshots": 3}}, ["self_play.snapshots", "snapshot_every"]),
        ({"policy": {"activation_fn": "gelu"}}, ["policy.activation_fn", "'tanh' or 'relu'"]),
        ({"pretrain": {"teacher": "bayes_v1", "samples": 10}}, ["pretrain.samples", "decisions"]),
        ({"pretrain": {"teacher": "self"}}, ["pretrain.teacher", "bayes_v1"]),
        ({"pretrain": {"teacher": "oracle"}}, ["pretrain.teacher", "bayes_v1"]),
        ({"pretrain": {"teacher": "bayes_v1", "epochs": 0}}, ["pretrain.epochs", ">= 1"]),
        ({"seed": -1}, ["seed", ">= 0"]),
        # PPO keys by range, not only by type (batch_size 0 used to fail inside torch; gamma 1.5 trained)
        ({"ppo": {"batch_size": 0}}, ["ppo.batch_size=0", "an integer >= 2"]),
        ({"ppo": {"batch_size": 4096, "n_steps": 1024}}, ["ppo.batch_size", "at most n_steps x n_envs = 1024"]),
        ({"ppo": {"gamma": 1.5}}, ["ppo.gamma=1.5", "a number > 0 and <= 1"]),
        ({"ppo": {"gamma": 0}}, ["ppo.gamma=0", "> 0"]),
        ({"ppo": {"gae_lambda": -0.1}}, ["ppo.gae_lambda", ">= 0 and <= 1"]),
        ({"ppo": {"n_steps": 1}}, ["ppo.n_steps=1", "an integer >= 2"]),
        ({"ppo": {"n_steps": 64.5}}, ["ppo.n_steps=64.5", "an integer"]),
        ({"ppo": {"n_epochs": 0}}, ["ppo.n_epochs=0", ">= 1"]),
        ({"ppo": {"learning_rate": 0}}, ["ppo.learning_rate=0", "a number > 0"]),
        ({"ppo": {"clip_range": 0}}, ["ppo.clip_range=0", "> 0 and <= 1"]),
        ({"ppo": {"clip_range_vf": -1}}, ["ppo.clip_range_vf=-1", "> 0 or null"]),
        ({"ppo": {"ent_coef": -0.01}}, ["ppo.ent_coef=-0.01", ">= 0"]),
        ({"ppo": {"vf_coef": "half"}}, ["ppo.vf_coef='half'", "a number >= 0"]),
        ({"ppo": {"max_grad_norm": 0}}, ["ppo.max_grad_norm=0", "> 0"]),
        ({"ppo": {"target_kl": 0}}, ["ppo.target_kl=0", "> 0 or null"]),
        ({"ppo": {"normalize_advantage": "yes"}}, ["ppo.normalize_advantage", "true or false"]),
        ({"ppo": {"rollout_buffer_class": "x"}}, ["ppo.rollout_buffer_class", "learning_rate"]),
        ({"policy": {"net_arch": [0, 64]}}, ["policy.net_arch", "layer widths from 1 to 4096"]),
        ({"policy": {"net_arch": {"pi": [64]}}}, ["policy.net_arch", "{pi: [...], vf: [...]}"]),
        ({"policy": {"ortho_init": 1}}, ["policy.ortho_init", "true or false"]),
    ],
)
def test_bad_configs_are_rejected_naming_the_key(data, words):
    with pytest.raises(ValueError) as info:
        parse_config(data)
    for word in words:
        assert word in str(info.value)


def test_every_ppo_argument_a_config_may_set_has_a_range():
    """The schema's PPO section covers MaskablePPO's signature: a new SB3 argument is not let through unchecked."""
    import inspect

    from sb3_contrib import MaskablePPO

    classes, kept = ("rollout_buffer_class", "rollout_buffer_kwargs"), ("self", "policy", "env", "seed")
    excluded = (*kept, "tensorboard_log", "verbose", "device", "_init_setup_model", "policy_kwargs", *classes)
    arguments = [p for p in inspect.signature(MaskablePPO.__init__).parameters if p not in excluded]
    assert set(PPO.model_fields) == set(arguments)


def test_a_new_run_never_overwrites_a_run_folder(tmp_path):
    """--run-dir holding a run is refused (naming --resume and --force); the default name moves on
    to the next free one; --force replaces a run folder (one with its marker), and only a run folder,
    and changes nothing on disk until the new run begins."""
    from ckc_env.training.run import folder as run_folder

    def plan(given, default, force):
        return run_folder.plan_new(given, default, force, train.TRAINER)

    run = tmp_path / "run"
    assert plan(str(run), "unused", False).path == run  # a new folder
    run.mkdir()
    (run / "config.yaml").write_text("seed: 0\n")
    with pytest.raises(
        ValueError, match=r"already holds a run: continue it with --resume .*run, replace it with --force"
    ):
        plan(str(run), "unused", False)
    assert plan(None, str(run), False).path == tmp_path / "run_2"
    (tmp_path / "run_2").mkdir()
    (tmp_path / "run_2" / "evaluations.json").write_text("[]")
    assert plan(None, str(run), False).path == tmp_path / "run_3"
    with pytest.raises(ValueError, match=r"not a run folder \(it has no run\.json"):
        plan(str(run), "unused", True)  # a config.yaml does not make a run folder
    (run / "run.json").write_text(json.dumps(run_folder.marker({}, {}, train.TRAINER)))
    replacing = plan(str(run), "unused", True)
    assert replacing.path == run and replacing.replaces and (run / "config.yaml").is_file()  # nothing moved yet
    other = tmp_path / "papers"
    other.mkdir()
    (other / "thesis.tex").write_text("")
    (other / "config.yaml").write_text("seed: 0\n")
    with pytest.raises(ValueError, match=r"not a run folder"):
        plan(str(other), "unused", True)
    assert (other / "thesis.tex").exists()


def test_train_refuses_an_existing_run_dir_on_the_command_line(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.yaml").write_text("seed: 0\n")
    with pytest.raises(SystemExit) as info:
        train.main(["quick", "--run-dir", str(tmp_path / "run")])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--resume" in err and "--force" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        train.main(["quick", "--total-timesteps", "0"])
    assert "argument --total-timesteps: 0 is out of range" in capsys.readouterr().err


def test_malformed_yaml_names_the_file(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo: {learning_rate: [0.1\n")
    with pytest.raises(ValueError, match=r"bad\.yaml"):
        load_config(bad)


SMOKE = """
seed: 3
total_timesteps: 512
game: {num_players: 4}
belief_features: true
opponents: [random, eager, self]
self_play: {snapshot_every: 256, keep: 1}
ppo: {n_steps: 128, batch_size: 64, n_epochs: 2}
policy: {net_arch: [32]}
eval: {every: 256, games: 8, opponents: {vs_random: [random], vs_bayes: [bayes_v1]}}
"""


def test_a_training_smoke_run_writes_a_run_folder_the_evaluator_plays(tmp_path, capsys):
    config = tmp_path / "smoke.yaml"
    config.write_text(SMOKE)
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    for name in ("config.yaml", "command.txt", "evaluations.json", "summary.json"):
        assert (run / name).is_file(), name
    for model in ("best_model", "final_model"):  # SB3's zip to resume from, the safe agent file to play
        for suffix in (".zip", ".json", ".safetensors"):
            assert (run / f"{model}{suffix}").is_file(), model + suffix
    assert list((run / "snapshots").glob("snapshot_*.safetensors"))
    assert not list((run / "snapshots").glob("*.zip"))  # snapshots are only played: safe files alone
    history = json.loads((run / "evaluations.json").read_text())
    assert [h["timesteps"] for h in history] == [0, 256, 512]  # the initial policy, then every eval.every steps
    card = json.loads((run / "final_model.json").read_text())
    assert card["players"] == [4] and card["training"]["seed"] == 3 and card["training"]["timesteps"] == 512
    assert card["evaluation"]["results"] == history[-1]["results"]
    assert set(history[0]["results"]) == {"vs_random", "vs_bayes"}
    assert load_config(run / "config.yaml") == load_config(config)  # the resolved config reloads
    # The evaluator plays the run folder in 3, 4 and 5-player games (one layout fits every count).
    for n in (3, 4, 5):
        evaluate.main(["--lineup", str(run), *["random"] * (n - 1), "--games", str(n), "--no-progress"])
    assert str(run) in capsys.readouterr().out
    # Resuming continues to a larger total and appends to the history.
    assert restored_and_loaded(run / "final_model.zip", load_config(run / "config.yaml")) == 512
    train.main(["--resume", str(run), "--total-timesteps", "640", "--no-progress"])
    history = json.loads((run / "evaluations.json").read_text())
    assert history[-1]["timesteps"] == 640
    # The wall clock runs on across the resume.
    elapsed = [h["elapsed_seconds"] for h in history]
    assert elapsed == sorted(elapsed) and elapsed[0] > 0
    assert json.loads((run / "summary.json").read_text())["wall_clock_seconds"] >= elapsed[-1]


def restored_and_loaded(path, config):
    """--resume rebuilds the model from the config and reads the zip without unpickling: it must
    hold what stable-baselines3's own (unpickling) load gives, weights, optimizer state and counters."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = DummyVecEnv([sb3.single_env(config, 0, path.parent / "snapshots")])
    ours = sb3.build_model(config, env)
    sb3.restore(ours, path)
    theirs = MaskablePPO.load(path, env=env, device="cpu")
    for name, tensor in theirs.policy.state_dict().items():
        assert torch.equal(ours.policy.state_dict()[name], tensor), name
    mine, reference = ours.policy.optimizer.state_dict(), theirs.policy.optimizer.state_dict()
    assert mine["param_groups"] == reference["param_groups"]
    for key, state in reference["state"].items():
        for name, value in state.items():
            assert torch.equal(torch.as_tensor(mine["state"][key][name]), torch.as_tensor(value)), (key, name)
    for counter in ("num_timesteps", "_n_updates", "_episode_num"):
        assert getattr(ours, counter) == getattr(theirs, counter), counter
    assert ours.num_timesteps > 0 and ours._n_updates > 0
    env.close()
    return ours.num_timesteps


def test_train_refuses_bad_arguments(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        train.main([])
    assert info.value.code == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("total_timesteps: 100\nopponents: [nobody]\n")
    with pytest.raises(SystemExit):
        train.main([str(bad)])
    assert "opponents[0]" in capsys.readouterr().err


@pytest.mark.slow
def test_behaviour_cloning_learns_the_teachers_accusations(tmp_path):
    """training/imitation.py: the teacher's decisions are recorded from the learner's seat with
    their returns, and fitting to them makes the policy choose what the teacher chose, including
    the accusations (a policy that always passes would score about 0 on those)."""
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO

    from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent
    from ckc_env.training.imitation.cloning import accuracy, collect, pretrain

    env = CheckpointCharlieSingleAgent(opponents="bayes_v1", num_players=5, belief_features=True)
    data = collect(env, "eager", decisions=3000, gamma=0.99, seed=1)
    assert len(data) >= 3000 and data.observations.shape == (len(data), env.observation_space.shape[0])
    assert all(data.masks[i, a] for i, a in enumerate(data.actions))  # the teacher's actions were legal
    assert (data.actions != 0).mean() > 0.1  # eager accuses at its first chance: plenty of accusations
    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu", policy_kwargs={"net_arch": [64, 64]})
    tensors = {"obs": torch.as_tensor(data.observations), "masks": torch.as_tensor(data.masks),
               "actions": torch.as_tensor(data.actions)}  # fmt: skip
    everything = np.arange(len(data))
    before = accuracy(model.policy, tensors, everything)["teacher_not_passing"]
    log = pretrain(model, data, epochs=8, batch_size=256, seed=0)
    after = log["epochs"][-1]["held_out_accuracy"]["teacher_not_passing"]
    assert after > max(before, 0.9), (before, after)  # an untrained network hits some by chance
    assert log["epochs"][-1]["value_loss"] < log["epochs"][0]["value_loss"]


MIXED = """
seed: 5
total_timesteps: 256
game: {num_players: [3, 5, 4]}
belief_features: players
opponents: {3: bayes_v1, 4: [random, eager, passive], 5: random}
pretrain: {teacher: {3: bayes_v2, 4: cheater, 5: cheater}, decisions: 300, epochs: 1, batch_size: 64}
ppo: {n_steps: 128, batch_size: 64, n_epochs: 1}
policy: {net_arch: [16]}
eval: {every: 256, games: 6, opponents: {vs_bayes_v1: [bayes_v1], vs_mixed: {3: [random, eager], 4: random, 5: random}}}
"""


def test_a_config_with_several_player_counts_resolves_each_table():
    config = parse_config(yaml.safe_load(MIXED))
    assert config.player_counts == (3, 4, 5) and config.game == {"num_players": [3, 4, 5]}
    assert config.opponents_at(3) == ["bayes_v1"] and config.opponents_at(4) == ["random", "eager", "passive"]
    assert config.teacher_at(3) == "bayes_v2" and config.teacher_at(5) == "cheater"
    assert config.eval_tables_at(3) == {"vs_bayes_v1": ["bayes_v1"], "vs_mixed": ["random", "eager"]}
    assert config.eval_tables_at(5)["vs_mixed"] == ["random"]
    assert parse_config(yaml.safe_load(yaml.safe_dump(config.to_dict()))) == config


@pytest.mark.parametrize(
    "data, named",
    [
        ({"game": {"num_players": [3, 6]}}, ["num_players", "[3, 4, 5]"]),
        ({"game": {"num_players": []}}, ["num_players", "a list of them"]),
        ({"game": {"num_players": [3, 5]}, "opponents": {3: "random"}}, ["opponents", "[3, 5]"]),
        ({"game": {"num_players": [3, 5]}, "opponents": {3: "random", 5: "oracle"}}, ["opponents.5", "bayes_v1"]),
        ({"game": {"num_players": [3, 5]}, "opponents": ["random", "eager"]}, ["opponents", "5 players need 4"]),
        ({"game": {"num_players": [3, 4]}, "pretrain": {"teacher": {3: "cheater"}}}, ["pretrain.teacher", "[3, 4]"]),
        ({"game": {"num_players": [3, 4]}, "learner_seat": 3}, ["learner_seat", "0 to 2"]),
    ],
)
def test_several_player_counts_misconfigured_are_named(data, named):
    with pytest.raises(ValueError) as error:
        parse_config(data)
    for text in named:
        assert text in str(error.value)


@pytest.mark.slow
def test_a_run_over_several_player_counts_clones_each_teacher_and_evaluates_each_count(tmp_path):
    config = tmp_path / "mixed.yaml"
    config.write_text(MIXED)
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    pretrain_log = json.loads((run / "pretrain.json").read_text())
    assert pretrain_log["teacher"] == {"3": "bayes_v2", "4": "cheater", "5": "cheater"}
    history = json.loads((run / "evaluations.json").read_text())
    for entry in history:
        for table in ("vs_bayes_v1", "vs_mixed"):
            result = entry["results"][table]
            assert set(result["by_count"]) == {"3", "4", "5"}
            assert result["games"] == sum(r["games"] for r in result["by_count"].values()) >= 18
            rates = [r["win_rate"] for r in result["by_count"].values()]
            assert result["win_rate"] == pytest.approx(sum(rates) / 3)
    card = json.loads((run / "final_model.json").read_text())
    assert card["players"] == [3, 4, 5] and card["environment"]["belief_features"] == "players"
    for n in (3, 4, 5):  # the one policy takes every seat count
        evaluate.main(["--lineup", str(run), *["random"] * (n - 1), "--games", str(n), "--no-progress"])


def test_vector_training_refuses_a_teacher_per_count_by_name(tmp_path, capsys):
    config = tmp_path / "vector_mixed.yaml"
    config.write_text(
        "game: {num_players: [3, 4]}\nbelief_features: true\nvector: {num_envs: 8}\n"
        "pretrain: {teacher: {3: cheater, 4: bayes_v1}}\n"
    )
    with pytest.raises(SystemExit):
        train.main([str(config), "--run-dir", str(tmp_path / "run")])
    error = capsys.readouterr().err
    assert "pretrain.teacher" in error and "one teacher" in error
    assert not (tmp_path / "run").exists()


TINY = """
seed: 11
total_timesteps: 256
game: {num_players: 3}
reward: margin
belief_features: true
opponents: [random]
pretrain: {teacher: cheater, decisions: 300, epochs: 1, batch_size: 64}
ppo: {n_steps: 128, batch_size: 64, n_epochs: 1}
policy: {net_arch: [16]}
eval: {every: 128, games: 24, opponents: {vs_random: [random]}}
"""


@pytest.mark.slow
def test_one_seed_gives_one_run(tmp_path):
    """A run is fixed by its config's seed (the README's quick demo reproduces from it): two runs
    give the same evaluations and the same weights, and another seed gives other weights."""
    import torch
    from safetensors.torch import load_file

    def run(name, seed):
        config = tmp_path / f"{name}.yaml"
        config.write_text(TINY.replace("seed: 11", f"seed: {seed}"))
        folder = train.main([str(config), "--run-dir", str(tmp_path / name), "--no-progress"])
        evaluations = json.loads((folder / "evaluations.json").read_text())
        for entry in evaluations:  # wall clock times differ, the numbers may not
            entry.pop("seconds"), entry.pop("elapsed_seconds")
        return evaluations, load_file(folder / "final_model.safetensors")

    first, weights = run("first", 11)
    second, same = run("second", 11)
    assert [e["timesteps"] for e in first] == [0, 128, 256]
    assert first == second
    # Every evaluation plays the same games with the learner in the same seats: each one after the
    # first is paired with the best model so far, its difference that of the two win rates.
    assert "vs_best" not in first[0] and "vs_start" not in first[0]
    best = start = first[0]
    for entry in first[1:]:
        rate = entry["results"]["vs_random"]["win_rate"]
        for key, earlier in (("vs_best", best), ("vs_start", start)):
            paired = entry[key]
            assert paired["timesteps"] == earlier["timesteps"] and paired["games"] == 24
            assert paired["difference"] == pytest.approx(rate - earlier["results"]["vs_random"]["win_rate"])
            assert paired["ci95"][0] <= paired["difference"] <= paired["ci95"][1]
        best = entry if rate > best["results"]["vs_random"]["win_rate"] else best
    assert weights.keys() == same.keys() and all(torch.equal(weights[k], same[k]) for k in weights)
    _, other = run("other", 12)
    assert not all(torch.equal(weights[k], other[k]) for k in weights)


def test_paired_differences_by_player_count(tmp_path):
    """With several player counts each evaluation is paired with the start at every count as well:
    each count's difference is that of its two win rates, and the pooled one their mean."""
    config = tmp_path / "counts.yaml"
    config.write_text(
        TINY.replace("total_timesteps: 256", "total_timesteps: 128").replace(
            "{num_players: 3}", "{num_players: [3, 4]}"
        )
    )
    folder = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    start, latest = json.loads((folder / "evaluations.json").read_text())
    paired = latest["vs_start"]
    assert set(paired["by_count"]) == {"3", "4"}
    for n, by_count in paired["by_count"].items():
        rates = [e["results"]["vs_random"]["by_count"][n]["win_rate"] for e in (latest, start)]
        assert by_count["games"] == latest["results"]["vs_random"]["by_count"][n]["games"]
        assert by_count["difference"] == pytest.approx(rates[0] - rates[1])
    counts = paired["by_count"].values()
    pooled = sum(c["difference"] * c["games"] for c in counts) / sum(c["games"] for c in counts)
    assert paired["difference"] == pytest.approx(pooled)


@pytest.mark.slow
def test_held_out_deals_are_other_deals_paired_with_the_start_and_survive_a_resume(tmp_path):
    """eval.held_out plays the first table again on other deals, which the pick of the best model
    never sees: each entry records the learner's win rate there and its paired difference from the
    start's (per count too), the best model is still picked on the evaluation deals, and a resumed
    run goes on pairing with the start's held-out games."""
    config = tmp_path / "held.yaml"
    config.write_text(
        TINY.replace("{num_players: 3}", "{num_players: [3, 4]}").replace(
            "opponents: {vs_random: [random]}}", "opponents: {vs_random: [random]}, held_out: 20}"
        )
    )
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    history = json.loads((run / "evaluations.json").read_text())
    assert [e["timesteps"] for e in history] == [0, 128, 256]
    start = history[0]["held_out"]
    assert "vs_start" not in start and start["table"] == "vs_random"
    assert set(start["by_count"]) == {"3", "4"} and all(c["games"] >= 20 for c in start["by_count"].values())
    assert start["seed"] != history[0]["seed"]
    wins = json.loads((run / "start_held_out.json").read_text())["wins"]
    evaluation = json.loads((run / "start_games.json").read_text())["wins"]
    assert len(wins) == start["games"] and wins != evaluation[: len(wins)]
    for entry in history[1:]:
        held = entry["held_out"]
        assert held["vs_start"]["difference"] == pytest.approx(pooled(held) - pooled(start))
        for n, paired in held["vs_start"]["by_count"].items():
            rates = held["by_count"][n]["win_rate"], start["by_count"][n]["win_rate"]
            assert paired["difference"] == pytest.approx(rates[0] - rates[1])
    summary = json.loads((run / "summary.json").read_text())
    picked = max(history, key=lambda e: e["results"]["vs_random"]["win_rate"])
    assert summary["best"]["timesteps"] == picked["timesteps"] and "held_out" in summary["best"]
    train.main(["--resume", str(run), "--total-timesteps", "384", "--no-progress"])
    history = json.loads((run / "evaluations.json").read_text())
    assert history[-1]["timesteps"] == 384 and history[-1]["held_out"]["vs_start"]["timesteps"] == 0


def pooled(result):
    """A several-count result's win rate over all its games (its ``win_rate`` is the counts' mean)."""
    counts = result["by_count"].values()
    return sum(c["win_rate"] * c["games"] for c in counts) / sum(c["games"] for c in counts)


def test_held_out_must_be_a_count():
    with pytest.raises(ValueError, match=r"eval\.held_out"):
        parse_config({"eval": {"held_out": -5}})


def test_a_critic_warmup_trains_the_critic_alone_and_a_resume_keeps_the_start(tmp_path):
    """finetune.critic_warmup freezes the policy's own weights: after it, the action head is the
    cloned one (start_policy.safetensors), the value network has moved; a resumed run reads the start
    back and goes on comparing every model with it."""
    import torch
    from safetensors.torch import load_file

    config = tmp_path / "warmup.yaml"
    config.write_text(TINY + "finetune: {critic_warmup: 100000, kl_to_start: 0.5, kl_decay: 1000}\n")
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    start = load_file(run / "start_policy.safetensors")
    final = restored_weights(run / "final_model.zip", load_config(run / "config.yaml"))
    actor = [k for k in start if k.startswith(("mlp_extractor.policy_net", "action_net"))]
    critic = [k for k in start if k.startswith(("mlp_extractor.value_net", "value_net"))]
    assert actor and critic
    assert all(torch.equal(start[k], final[k]) for k in actor)
    assert not all(torch.equal(start[k], final[k]) for k in critic)
    train.main(["--resume", str(run), "--total-timesteps", "384", "--no-progress"])
    history = json.loads((run / "evaluations.json").read_text())
    assert history[-1]["timesteps"] == 384 and history[-1]["vs_start"]["timesteps"] == 0


def restored_weights(path, config):
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = DummyVecEnv([sb3.single_env(config, 0, path.parent / "snapshots")])
    model = sb3.build_model(config, env)
    sb3.restore(model, path)
    env.close()
    return model.policy.state_dict()


def test_the_pull_towards_the_start_brings_the_policy_back(tmp_path):
    """finetune.kl_to_start: a pass over a rollout lowers the policy's divergence from its start."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ckc_env.training.imitation.finetune import _frozen_copy

    config = parse_config(yaml.safe_load(TINY) | {"finetune": {"kl_to_start": 5.0}})
    env = DummyVecEnv([sb3.single_env(config, 0, tmp_path)])
    model = sb3.build_model(config, env)
    model.learn(total_timesteps=128)  # a rollout in the buffer
    model.start_policy = _frozen_copy(model.policy)
    with torch.no_grad():  # move the policy away from its start
        for parameter in model.policy.action_net.parameters():
            parameter.add_(torch.randn_like(parameter))

    def divergence():
        total = 0.0
        for data in model.rollout_buffer.get(64):
            with torch.no_grad():
                p = model.start_policy.get_distribution(data.observations, action_masks=data.action_masks)
                q = model.policy.get_distribution(data.observations, action_masks=data.action_masks)
                p, log_q = p.distribution.probs, q.distribution.logits
                total += float((torch.special.xlogy(p, p) - p * log_q).sum(-1).mean())
        return total

    before = divergence()
    for _ in range(5):
        model.pull_towards_start()
    assert divergence() < 0.8 * before
    env.close()


def test_init_from_starts_from_an_agent_file_and_refuses_another_layout(tmp_path, capsys):
    """init_from fine-tunes a safe agent file: the run's start is that file's policy and critic,
    weight for weight; a file of another observation layout, of fewer player counts or beside a
    pretraining teacher is refused by name (exit 2, no traceback) before anything trains."""
    import numpy as np
    from safetensors.numpy import load_file

    source = train.main(
        [str(write(tmp_path / "source.yaml", TINY)), "--run-dir", str(tmp_path / "source"), "--no-progress"]
    )
    card = source / "final_model.json"
    start = TINY.replace("pretrain: {teacher: cheater, decisions: 300, epochs: 1, batch_size: 64}\n", "")
    start += f"init_from: {card}\nfinetune: {{critic_warmup: 100000}}\n"
    run = train.main([str(write(tmp_path / "start.yaml", start)), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    kept, given = load_file(run / "start_policy.safetensors"), load_file(source / "final_model.safetensors")
    assert kept.keys() == given.keys() and all(np.array_equal(kept[k], given[k]) for k in kept)
    first = json.loads((run / "evaluations.json").read_text())[0]
    assert first["timesteps"] == 0 and "init_from" in (run / "config.yaml").read_text()

    for name, text, expected in [
        ("layout", start.replace("belief_features: true", "belief_features: false"), "set belief_features to match"),
        (
            "counts",
            start.replace("{num_players: 3}", "{num_players: [3, 4]}"),
            "plays [3] players, the config also [4]",
        ),
        ("network", start.replace("net_arch: [16]", "net_arch: [32]"), "set policy.net_arch"),
        ("both", start + "pretrain: {teacher: cheater}\n", "not both"),
    ]:
        with pytest.raises(SystemExit) as info:
            train.main(
                [str(write(tmp_path / f"{name}.yaml", text)), "--run-dir", str(tmp_path / name), "--no-progress"]
            )
        err = capsys.readouterr().err
        assert info.value.code == 2 and expected in err and "Traceback" not in err, (name, err)


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.slow
def test_the_per_count_search_of_bayes_v2s_parameters_records_its_log_and_check(tmp_path):
    """training/tune_by_count.py on a few games: every parameter that matters at 3 players is tried
    (bar_late is not: the bar is bar_early throughout), each candidate with its paired difference,
    and the pick is checked on other deals."""
    import json

    from ckc_env.training.commands import tune_by_count

    out = tmp_path / "tune.json"
    tune_by_count.main(["--players", "3", "--games", "6", "--check-games", "6", "--out", str(out)])
    result = json.loads(out.read_text())
    assert {e["parameter"] for e in result["log"]} == {"sure", "bar_early", "margin_last", "follow"}
    for entry in result["log"]:
        assert entry["low"] <= entry["difference"] <= entry["high"]
        assert entry["value"] != entry["incumbent"][entry["parameter"]]
    assert set(result["best"]) == set(result["default"]) and result["check"]["seed"] != result["seed"]
    assert result["check"]["low"] <= result["check"]["difference"] <= result["check"]["high"]


@pytest.mark.slow
def test_the_critic_fit_moves_the_value_head_alone(tmp_path):
    """finetune.critic_fit: the start policy's own games regress the critic; the action head is left
    as it was, and the held-out explained variance rises from the start's."""
    import torch

    from ckc_env.training.envs import make_vector_env
    from ckc_env.training.imitation.finetune import critic_parameters, fit_critic
    from ckc_env.training.trainers.sb3.vec_env import SB3VecEnv

    start = ROOT / "checkpoints" / "ppo_5p_vector"
    tiny = {k: v for k, v in yaml.safe_load(TINY).items() if k != "pretrain"}
    config = parse_config(
        tiny
        | {
            "game": {"num_players": 5},
            "reward": "win",
            "init_from": str(start),
            "policy": {"net_arch": [256, 256]},
            "ppo": {"n_steps": 8, "batch_size": 64, "n_epochs": 1},
            "vector": {"num_envs": 64},
            "finetune": {"critic_fit": 6000, "critic_fit_epochs": 4},
        }
    )
    env = SB3VecEnv(make_vector_env(config))
    model = sb3.build_model(config, env)
    from ckc_env.training.imitation.finetune import init_from

    init_from(model, start, config)
    critic = {id(p) for p in critic_parameters(model.policy)}
    before = {name: p.detach().clone() for name, p in model.policy.named_parameters()}
    log = fit_critic(model, config, start / "best_model.json")
    env.close()
    moved = {name for name, p in model.policy.named_parameters() if not torch.equal(p, before[name])}
    assert moved and moved == {name for name, p in model.policy.named_parameters() if id(p) in critic}
    assert log["decisions"] >= 6000 and len(log["explained_variance"]) == 5
    assert log["explained_variance"][-1] > log["explained_variance"][0]
    with pytest.raises(ValueError, match=r"finetune\.critic_fit=10: accepted values are 0 without a vector section"):
        parse_config({"finetune": {"critic_fit": 10}})


@pytest.mark.slow
def test_init_from_extends_a_players_file_to_the_second_order_layout():
    """A "second_order" run may start from a "players" agent file: the inputs its layout appends
    start with zero weights, so the model's actions and values are the file's on the same
    positions; a layout that does not extend the file's is refused."""
    import numpy as np
    import torch

    from ckc_env.files import InputError
    from ckc_env.players import agent_file
    from ckc_env.training.envs import make_vector_env
    from ckc_env.training.imitation.finetune import check_init_from, init_from
    from ckc_env.training.trainers.sb3.vec_env import SB3VecEnv

    start = ROOT / "checkpoints" / "ppo_all_counts"
    tiny = {k: v for k, v in yaml.safe_load(TINY).items() if k != "pretrain"}
    config = parse_config(
        tiny
        | {
            "game": {"num_players": [3, 4, 5]},
            "belief_features": "second_order",
            "opponents": ["bayes_v2"],
            "init_from": str(start),
            "policy": {"net_arch": [256, 256]},
            "ppo": {"n_steps": 8, "batch_size": 64, "n_epochs": 1},
            "vector": {"num_envs": 24},
        }
    )
    env = SB3VecEnv(make_vector_env(config))
    model = sb3.build_model(config, env)
    init_from(model, start, config)
    observations = env.reset()
    for _ in range(6):  # positions where the second-order reading has read something
        masks = env.env.action_masks()
        observations, *_ = env.step(np.array([np.flatnonzero(m)[-1] for m in masks]))
    env.close()
    size = agent_file.read_card(agent_file.card_path(start)).layout.size
    assert observations.shape[1] > size and observations[:, size:].any()
    source = agent_file.torch_policy(agent_file.card_path(start))
    with torch.no_grad():
        ours = model.policy.get_distribution(torch.as_tensor(observations)).distribution.logits
        theirs = source.get_distribution(torch.as_tensor(observations[:, :size])).distribution.logits
        assert torch.allclose(ours, theirs, atol=1e-5)
        assert torch.allclose(
            model.policy.predict_values(torch.as_tensor(observations)),
            source.predict_values(torch.as_tensor(observations[:, :size])),
            atol=1e-5,
        )
    with pytest.raises(InputError, match="set belief_features to match"):
        check_init_from(start, parse_config(tiny | {"belief_features": True, "init_from": str(start)}))


def test_a_fine_tuned_card_lists_its_starts_player_counts_too(tmp_path):
    """A run fine-tuned from an agent file writes cards that list the start's player counts beside
    its own (what the start learned there is in the weights), so a model fine-tuned at 4 and 5
    players from an all-counts start can itself be fine-tuned at 3; a start that has since moved
    leaves the run's counts (a start that never played a count the config asks for is refused:
    test_init_from_starts_from_an_agent_file_and_refuses_another_layout)."""
    import shutil

    tiny = {k: v for k, v in yaml.safe_load(TINY).items() if k != "pretrain"}
    start = ROOT / "checkpoints" / "ppo_all_counts"  # trained at 3, 4 and 5 players
    config = parse_config(tiny | {"game": {"num_players": [4, 5]}, "init_from": str(start)})
    assert run_folder.trained_counts(config) == [3, 4, 5]
    assert run_folder.trained_counts(parse_config(tiny | {"game": {"num_players": [4, 5]}})) == [4, 5]

    moved = tmp_path / "start"
    shutil.copytree(start, moved, ignore=shutil.ignore_patterns("tensorboard"))
    config = parse_config(tiny | {"game": {"num_players": [4]}, "init_from": str(moved)})
    shutil.rmtree(moved)
    assert run_folder.trained_counts(config) == [4]
