"""ckc-best-response: a learner trained against a fixed player's table, and its paired gain over
that player in the same seat on held-out deals (training/commands/best_response.py, training/evaluation/best_response.py)."""

import json
from pathlib import Path

import pytest
from cli_helpers import refused

pytest.importorskip("sb3_contrib", reason="training needs the train extra")
from ckc_env.training.commands import best_response
from ckc_env.training.config import load_config
from ckc_env.training.evaluation import best_response as measured

AGENT = "checkpoints/ppo_all_counts_mixed_34p"
TINY = """\
seed: 0
total_timesteps: 256
game: {num_players: 3}
reward: margin
belief_features: true
learner_seat: random
opponents: [random]
ppo: {learning_rate: 0.0003, n_steps: 8, batch_size: 64, n_epochs: 1}
policy: {net_arch: [16]}
vector: {num_envs: 16}
"""


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    """A best response to ``random`` at 3 players on a tiny recipe: 256 steps, 12 games per evaluation
    and 12 held-out games."""
    root = tmp_path_factory.mktemp("best_response")
    recipe = root / "tiny.yaml"
    recipe.write_text(TINY)
    out = root / "run"
    argv = ["random", "--num-players", "3", "--steps", "256", "--eval-games", "12", "--games", "12"]
    best_response.main([*argv, "--recipe", str(recipe), "--out", str(out), "--seed", "3", "--no-progress"])
    return out


def test_the_run_trains_against_the_fixed_players_table_and_pairs_its_evaluations_with_it(tiny_run):
    config = load_config(tiny_run / "config.yaml")
    assert config.opponents == ["random"] and config.player_counts == (3,) and config.total_timesteps == 256
    assert config.eval.reference == "random" and config.eval.opponents == {"vs_player": ["random"]}
    assert config.seed == 3
    result = json.loads((tiny_run / best_response.RESULT).read_text())
    history = json.loads((tiny_run / "evaluations.json").read_text())
    assert [point["timesteps"] for point in result["curve"]] == [entry["timesteps"] for entry in history]
    assert result["curve"][0]["timesteps"] == 0 and result["curve"][-1]["timesteps"] >= 256
    for point, entry in zip(result["curve"], history, strict=True):  # the gain over the player on the same deals
        assert point["gain"]["mean"] == entry["vs_reference"]["difference"]
        assert point["win_rate"] == entry["results"]["vs_player"]["win_rate"]
    assert result["command"].startswith("ckc-best-response random --num-players 3")
    assert result["wall_seconds"]["training"] > 0


def test_the_held_out_gain_is_the_mean_of_per_game_differences_on_deals_of_its_own(tiny_run):
    result = json.loads((tiny_run / best_response.RESULT).read_text())
    held = result["held_out"]
    history = json.loads((tiny_run / "evaluations.json").read_text())
    assert held["seed"] not in {entry["seed"] for entry in history}  # not the deals the pick saw
    for name in ("best", "final"):
        paired = json.loads((tiny_run / held[name]["file"]).read_text())
        assert paired["compare"][0].endswith(f"{name}_model.json") and paired["compare"][1] == "random"
        assert len(paired["opponents"]) == 2
        assert paired["seed"] == held["seed"] and paired["games"] == held["games"] == 12
        assert held[name]["gain"]["mean"] == pytest.approx(paired["difference"]["win"]["mean"])
        assert held[name]["gain"]["ci95"] == pytest.approx(paired["difference"]["win"]["ci95"])
        mean = paired["players"][0]["win"]["mean"] - paired["players"][1]["win"]["mean"]
        assert held[name]["gain"]["mean"] == pytest.approx(mean)


def test_ckc_plot_draws_the_learning_curves(tiny_run, tmp_path):
    from ckc_env.evaluation.commands import plot

    plot.main(["best-response", str(tiny_run / best_response.RESULT), "--out", str(tmp_path / "curves.png")])
    assert (tmp_path / "curves.png").stat().st_size > 1000


def test_a_resume_of_a_finished_run_plays_the_same_held_out_games(tiny_run, tmp_path):
    before = json.loads((tiny_run / best_response.RESULT).read_text())
    (tiny_run / best_response.RESULT).unlink()
    best_response.main(["--resume", str(tiny_run), "--no-progress"])
    after = json.loads((tiny_run / best_response.RESULT).read_text())
    assert after["held_out"]["best"] == before["held_out"]["best"]
    assert after["held_out"]["final"] == before["held_out"]["final"]
    assert after["curve"] == before["curve"] and after["command"] == before["command"]
    best_response.main(["--resume", str(tiny_run), "--games", "18", "--no-progress"])  # more held-out games
    larger = json.loads((tiny_run / best_response.RESULT).read_text())
    assert larger["held_out"]["games"] == 18 and larger["held_out"]["seed"] == before["held_out"]["seed"]
    assert larger["resumed"].endswith("--games 18 --no-progress") and larger["command"] == before["command"]
    assert json.loads((tiny_run / "held_out_best.json").read_text())["games"] == 18


def test_a_start_from_an_agent_file_is_measured_beside_the_best_response(tiny_run, tmp_path):
    """From an agent file (here the tiny run's own model), the held-out games also play the start:
    each model's gain over it is what the training found beyond where it began."""
    recipe = tmp_path / "tiny.yaml"
    recipe.write_text(TINY)
    start = str(tiny_run / "best_model.json")
    out = tmp_path / "again"
    argv = ["random", "--num-players", "3", "--steps", "128", "--eval-games", "6", "--games", "12", "--start", start]
    best_response.main([*argv, "--recipe", str(recipe), "--out", str(out), "--no-progress"])
    result = json.loads((out / best_response.RESULT).read_text())
    config = load_config(out / "config.yaml")
    assert config.init_from == start and config.belief_features is True and config.policy["net_arch"] == [16]
    held = result["held_out"]
    begun = json.loads((out / "held_out_start.json").read_text())
    assert held["start"]["gain"]["mean"] == pytest.approx(begun["difference"]["win"]["mean"])
    best = json.loads((out / "held_out_best.json").read_text())
    over = best["players"][0]["win"]["mean"] - begun["players"][0]["win"]["mean"]
    assert held["best"]["over_start"]["mean"] == pytest.approx(over)
    row = measured.markdown([result]).splitlines()[-1]
    assert row.startswith(f"| random | 3 | {start} | 128 |") and "| 12 |" in row


def test_a_start_from_an_agent_file_takes_its_layout_and_network(tmp_path):
    recipe = Path(best_response.configs.preset("train", best_response.RECIPES["agent"]))
    config = best_response.build_config("bayes_v2", 4, 300_000, 36, AGENT, recipe, "sb3")
    assert config.init_from == AGENT and config.belief_features == "players"
    assert config.policy["net_arch"] == [256, 256] and config.reward == "win"
    # 300,000 steps are 19 rollouts of 16 steps x 1024 games: the run trains 311,296, evaluating every 4 rollouts
    assert config.total_timesteps == 311_296 and config.eval.every == 65_536 and config.eval.games == 2000
    assert best_response.rounded_note(300_000, config).startswith("--steps 300,000 rounds up to whole rollouts")
    device = best_response.build_config("bayes_v2", 4, 300_000, 36, AGENT, recipe, "jax")
    assert device.engine == "jax" and device.vector.workers == 1
    scratch = best_response.build_config("bayes_v1", 5, 1000, 0, None, recipe, "sb3")
    assert scratch.init_from is None and scratch.opponents == ["bayes_v1"]


def test_bad_input_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "out"
    main = best_response.main
    refused(capsys, lambda: main(["bayes_v2", "--num-players", "3", "--start", "self", "--out", str(out)]), "scripted")
    refused(capsys, lambda: main(["bayes_v9", "--num-players", "3", "--out", str(out)]), "bayes_v9")
    refused(capsys, lambda: main(["bayes_v2", "--out", str(out)]), "--num-players")
    refused(capsys, lambda: main(["bayes_v2", "--num-players", "6"]), "--num-players")
    refused(capsys, lambda: main(["bayes_v2", "--num-players", "3", "--start", str(tmp_path / "no.json")]), "--start")
    refused(capsys, lambda: main(["bayes_v2", "--num-players", "3", "--recipe", "nonesuch"]), "nonesuch")
    refused(capsys, lambda: main(["--resume", str(tmp_path)]), "best response")
    for option in (["--steps", "5"], ["--seed", "1"], ["--start", "self"], ["--engine", "jax"], ["--num-players", "4"]):
        refused(capsys, lambda option=option: main(["--resume", str(tmp_path), *option]), option[0])
    assert not out.exists()
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    refused(capsys, lambda: main(["random", "--num-players", "3", "--out", str(taken)]), "--resume")
    assert [p.name for p in taken.iterdir()] == ["notes.txt"] and (taken / "notes.txt").read_text() == "mine"
