"""Hostile files, given without trust to every entry point that takes a file: links and renamed
pickles are refused by the loading rule (ckc_env/players/loading.py) and their payload never runs; alias
bombs, deep and huge JSON fail fast with a named error; weights that overflow are refused by name
on both engines; names from files are shown with their control characters escaped. Every command
turns these into exit status 2."""

import json
import os
import shutil
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from rich.console import Console

pytest.importorskip("sb3_contrib", reason="the hostile zips are made with the train extra")

from test_trust import TRAIN, hostile_zip

from ckc_env import (
    batch,
    players,
)
from ckc_env.config import GameConfig
from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.evaluation.commands import evaluate, plot
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.files import InputError, printable, read_yaml
from ckc_env.observation import OBSERVATION
from ckc_env.players import agent_file, loading, specs
from ckc_env.players.policy import PolicyAgent, load_policy
from ckc_env.terminal import play
from ckc_env.training.commands import rllib as rllib_train
from ckc_env.training.commands import train
from ckc_env.training.run import folder as run_folder

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "ppo_5p_vector"
ALIAS_BOMB = "\n".join(
    ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    + [
        f"{chr(98 + k)}: &{chr(98 + k)} [*{chr(97 + k)},*{chr(97 + k)},*{chr(97 + k)},*{chr(97 + k)},"
        f"*{chr(97 + k)},*{chr(97 + k)},*{chr(97 + k)},*{chr(97 + k)},*{chr(97 + k)}]"
        for k in range(8)
    ]
    + ["num_players: *i"]
)
"""About 300 bytes that safe_load expands to 9^9 (387 million) items, formatted whole by a naive message."""


@pytest.fixture
def genuine(tmp_path) -> Path:
    """A folder with a genuine agent: agent.json and the weights it names (best_model.safetensors)."""
    folder = tmp_path / "downloaded"
    folder.mkdir()
    shutil.copy(SHIPPED / "best_model.json", folder / "agent.json")
    shutil.copy(SHIPPED / "best_model.safetensors", folder / "best_model.safetensors")
    return folder


def link(path: Path, target: Path) -> Path:
    path.unlink(missing_ok=True)
    os.symlink(target, path)
    return path


def every_entry_point(spec: str, tmp_path: Path) -> dict:
    """Every Python entry point that takes a player file, each called without trust."""
    return {
        "players.validate": lambda: players.validate(spec),
        "players.build": lambda: players.build(spec, seed=0),
        "players.is_safe": lambda: players.is_safe(spec),
        "PolicyAgent": lambda: PolicyAgent(spec),
        "load_policy": lambda: load_policy(spec),
        "agent_file.load_agent": lambda: agent_file.load_agent(spec),
        "players.build_batched": lambda: players.build_batched(spec, seed=0),
        "run_tournament scalar": lambda: run_tournament([spec, "random", "random"], 3, workers=1, engine="scalar"),
        "run_tournament batched": lambda: run_tournament([spec, "random", "random"], 3, engine="batched"),
        "single-agent opponents": lambda: CheckpointCharlieSingleAgent(opponents=[spec, "random"], num_players=3),
        "gymnasium.make": lambda: gymnasium.make("CheckpointCharlie-v1", opponents=spec, num_players=3),
        "vector env opponents": lambda: CheckpointCharlieVectorEnv(4, opponents=spec, num_players=3),
    }


def commands(spec: str, tmp_path: Path) -> dict:
    """Every command that takes a player file (ckc-train as opponent, evaluation player and teacher)."""
    config = tmp_path / "train.yaml"
    config.write_text(
        TRAIN.format(opponents=f"[{spec}]", tables="{vs_random: [random]}") + f"pretrain: {{teacher: {spec}}}\n"
    )
    return {
        "ckc-evaluate": lambda: evaluate.main(["--lineup", spec, "random", "random", "--games", "3", "--no-progress"]),
        "ckc-play": lambda: play.main(["--opponents", spec, "random", "random"]),
        "ckc-train": lambda: train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]),
    }


def assert_refused_everywhere(spec: str, tmp_path: Path, marker: Path, message: str, capsys) -> None:
    for name, call in every_entry_point(spec, tmp_path).items():
        for trust in (False, True):
            if trust and name not in ("players.validate", "players.build", "PolicyAgent", "load_policy"):
                continue
            with pytest.raises(ValueError, match=message):
                if trust:
                    {
                        "players.validate": lambda: players.validate(spec, trust_checkpoint=True),
                        "players.build": lambda: players.build(spec, seed=0, trust_checkpoint=True),
                        "PolicyAgent": lambda: PolicyAgent(spec, trust_checkpoint=True),
                        "load_policy": lambda: load_policy(spec, trust_checkpoint=True),
                    }[name]()
                else:
                    call()
            assert not marker.exists(), name
    for name, call in commands(spec, tmp_path).items():
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            call()
        assert info.value.code == 2, name
        assert "Traceback" not in capsys.readouterr().err
        assert not marker.exists(), name


# ---------------------------------------------------------------------------------------------- links
def test_a_weights_name_linking_to_a_pickle_is_refused(genuine, tmp_path, marker, capsys):
    """The layout that got a pickle past the old rule: a genuine card and weights, plus
    agent.safetensors -> weights.bin, a stable-baselines3 zip with a payload."""
    evil = hostile_zip(genuine / "weights.bin", marker)
    spec = str(link(genuine / "agent.safetensors", evil))
    assert_refused_everywhere(
        spec, tmp_path, marker, r"agent\.safetensors \(a link to .*weights\.bin\) is a weights", capsys
    )


def test_a_card_name_linking_to_a_pickle_is_refused(genuine, tmp_path, marker, capsys):
    evil = hostile_zip(genuine / "weights.bin", marker)
    spec = str(link(genuine / "agent.json", evil))
    assert_refused_everywhere(spec, tmp_path, marker, r"agent\.json \(a link to .*weights\.bin\) is a card", capsys)


def test_a_run_folder_whose_best_model_links_to_a_pickle_is_refused(tmp_path, marker, capsys):
    """No fall-through: a run folder's best_model.json that links elsewhere is refused, not skipped
    for the zip or final model beside it."""
    run = tmp_path / "run"
    run.mkdir()
    evil = hostile_zip(tmp_path / "weights.bin", marker)
    link(run / "best_model.json", evil)
    shutil.copy(SHIPPED / "final_model.json", run / "final_model.json")
    shutil.copy(SHIPPED / "final_model.safetensors", run / "final_model.safetensors")
    assert_refused_everywhere(str(run), tmp_path, marker, r"best_model\.json \(a link to .*weights\.bin\)", capsys)


@pytest.mark.parametrize(
    ("layout", "message"),
    [
        ("zip named as a zip, linked from best_model.zip", r"best_model\.zip \(a link to .*payload\.bin\) is a zip"),
        ("card's weights link to a zip", r"best_model\.safetensors \(a link to .*evil\.zip\) is a weights"),
        ("zip renamed .safetensors, linked", r"holds a zip file, not the weights its name says"),
        ("zip renamed .json", r"holds a zip file, not the card its name says"),
        ("dangling link", r"is a link to .*gone\.json, which does not exist"),
        ("link loop", r"cannot resolve|does not exist"),
        ("card named as a folder", r"is a folder, not the \.json file its name says"),
    ],
)
def test_other_link_and_rename_layouts_are_refused_even_with_trust(tmp_path, marker, layout, message):
    folder = tmp_path / "agent"
    folder.mkdir()
    shutil.copy(SHIPPED / "best_model.json", folder / "best_model.json")
    shutil.copy(SHIPPED / "best_model.safetensors", folder / "best_model.safetensors")
    spec = folder
    if layout.startswith("zip named as a zip"):
        (folder / "best_model.json").unlink()
        link(folder / "best_model.zip", hostile_zip(tmp_path / "payload.bin", marker))
    elif layout == "card's weights link to a zip":
        link(folder / "best_model.safetensors", hostile_zip(tmp_path / "evil.zip", marker))
    elif layout == "zip renamed .safetensors, linked":
        renamed = tmp_path / "renamed.safetensors"
        renamed.write_bytes(hostile_zip(tmp_path / "evil.zip", marker).read_bytes())
        link(folder / "best_model.safetensors", renamed)
    elif layout == "zip renamed .json":
        spec = tmp_path / "renamed.json"
        spec.write_bytes(hostile_zip(tmp_path / "evil.zip", marker).read_bytes())
    elif layout == "dangling link":
        spec = link(tmp_path / "agent.json", tmp_path / "gone.json")
    elif layout == "link loop":
        link(tmp_path / "b.json", tmp_path / "a.json")
        spec = link(tmp_path / "a.json", tmp_path / "b.json")
    elif layout == "card named as a folder":
        spec = tmp_path / "folder.json"
        spec.mkdir()
    for trust in (False, True):
        with pytest.raises(InputError, match=message):
            players.validate(str(spec), trust_checkpoint=trust)
        with pytest.raises(InputError, match=message):
            PolicyAgent(str(spec), trust_checkpoint=trust)
    assert not marker.exists()


def test_links_of_the_same_kind_load(genuine, tmp_path):
    """A link is followed, not refused: a card linked by another card name, and a run folder that
    is itself a link, load as what they resolve to."""
    shutil.copy(genuine / "best_model.safetensors", genuine / "agent.safetensors")
    elsewhere = tmp_path / "alias.json"
    link(elsewhere, genuine / "agent.json")
    assert PolicyAgent(str(elsewhere)).network.card.path == (genuine / "agent.json").resolve()
    run = link(tmp_path / "latest_run", SHIPPED)
    assert loading.locate(run) == loading.AgentSource(str(run), "card", (SHIPPED / "best_model.json").resolve())
    assert players.is_safe(str(run))


def test_the_weights_a_safetensors_name_loads_are_its_own(genuine):
    """Naming agent.safetensors loads agent.json's weights; a card that names other weights than the
    file named is refused, so validation and loading read the file the user named."""
    shutil.copy(genuine / "best_model.safetensors", genuine / "agent.safetensors")
    with pytest.raises(InputError, match=r"agent\.json names weights best_model\.safetensors, not agent\.safetensors"):
        PolicyAgent(str(genuine / "agent.safetensors"))
    card = json.loads((genuine / "agent.json").read_text())
    card["weights"]["file"] = "agent.safetensors"
    (genuine / "agent.json").write_text(json.dumps(card))
    assert PolicyAgent(str(genuine / "agent.safetensors")).network.card.weights_path.name == "agent.safetensors"


def test_a_trusted_zip_still_loads(tmp_path, marker):
    evil = hostile_zip(tmp_path / "evil.zip", marker)
    with pytest.raises(InputError, match="without trust"):
        PolicyAgent(str(evil))
    assert PolicyAgent(str(evil), trust_checkpoint=True).layout is OBSERVATION
    assert marker.exists()  # what stable-baselines3's own load does with this file


# ---------------------------------------------------------------------------------------------- resume
def test_resume_refuses_a_snapshot_that_links_to_a_pickle(tmp_path, marker, capsys):
    config = tmp_path / "train.yaml"
    config.write_text(
        TRAIN.format(opponents="[self, random, random]", tables="{vs_random: [random]}")
        + "self_play: {snapshot_every: 128, keep: 3}\n"
    )
    run = tmp_path / "run"
    train.main([str(config), "--run-dir", str(run), "--total-timesteps", "128", "--no-progress"])
    snapshots = sorted((run / "snapshots").glob("snapshot_*.json"))
    assert snapshots
    evil = hostile_zip(tmp_path / "weights.bin", marker)
    link(run / "snapshots" / "snapshot_000000000999.json", evil)
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        train.main(["--resume", str(run), "--total-timesteps", "256", "--no-progress"])
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2 and "snapshot_000000000999.json is a symbolic link" in err and "Traceback" not in err
    assert not marker.exists()


def test_resume_refuses_a_malformed_history(tmp_path, capsys):
    config = tmp_path / "train.yaml"
    config.write_text(TRAIN.format(opponents="[random]", tables="{vs_random: [random]}"))
    run = tmp_path / "run"
    train.main([str(config), "--run-dir", str(run), "--total-timesteps", "64", "--no-progress"])
    for content, message in (
        ("[" * 200_000 + "]" * 200_000, "nested deeper than"),
        ('[{"timesteps": "64"}]', r"entry 0: an evaluation has timesteps"),
        ('{"not": "a list"}', "is not a list of evaluations"),
    ):
        (run / "evaluations.json").write_text(content)
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            train.main(["--resume", str(run), "--total-timesteps", "128", "--no-progress"])
        assert info.value.code == 2 and message in " ".join(capsys.readouterr().err.split())


def test_rllib_resume_needs_trust_and_names_its_extra(tmp_path, capsys):
    run = tmp_path / "run"
    (run / "checkpoint").mkdir(parents=True)
    (run / "config.yaml").write_text("seed: 0\n")
    (run / "run.json").write_text(json.dumps(run_folder.marker({}, {}, rllib_train.TRAINER)))
    with pytest.raises(SystemExit) as info:
        rllib_train.main(["--resume", str(run)])
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2 and "Traceback" not in err
    try:
        import ray  # noqa: F401
    except ImportError:
        assert 'needs the rllib extra (ray not installed): pip install -e ".[rllib]"' in err
    else:
        assert f"refusing to resume {run} without trust" in err


# ---------------------------------------------------------------------------------------------- bounded inputs
def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path, capsys):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 400
    started = time.perf_counter()
    with pytest.raises(InputError, match=r"YAML aliases \(\*a\) are not accepted"):
        read_yaml(bomb)
    with pytest.raises(ValueError, match="aliases"):
        GameConfig.from_yaml(bomb)
    calls = {
        "ckc-train": lambda: train.main([str(bomb), "--no-progress"]),
        "ckc-evaluate --rules": lambda: evaluate.main(["--lineup", "random", "random", "random", "--rules", str(bomb)]),
        "ckc-play --rules": lambda: play.main(["--rules", str(bomb)]),
        "ckc-rllib-train": lambda: rllib_train.main([str(bomb)]),
    }
    for name, call in calls.items():
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            call()
        assert info.value.code == 2, name
    assert time.perf_counter() - started < 10


def test_values_in_messages_are_shortened(tmp_path):
    """A long value from a file is shown cut, never formatted whole."""
    rules = tmp_path / "rules.yaml"
    rules.write_text("num_players: [" + ", ".join(["7"] * 100_000) + "]\n")
    with pytest.raises(ValueError) as info:
        GameConfig.from_yaml(rules)
    assert "invalid num_players=[7, 7, 7" in str(info.value) and len(str(info.value)) < 400


def deep(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


@pytest.mark.parametrize("depth", [100, 200_000])
def test_deep_json_is_refused_by_name(tmp_path, capsys, depth):
    card = tmp_path / "agent.json"
    card.write_text(deep(depth))
    shutil.copy(SHIPPED / "best_model.safetensors", tmp_path / "agent.safetensors")
    refused = "nested deeper than 64 levels" if depth < 1000 else "more than the 1,048,576 accepted"  # 1.4 MB
    with pytest.raises(InputError, match=rf"agent card .*agent\.json (is|has .* bytes,) {refused}"):
        PolicyAgent(str(card))
    replay = tmp_path / "replay.json"
    replay.write_text(deep(depth))
    result = tmp_path / "result.json"
    result.write_text(deep(depth))
    for call, name, message in (
        (lambda: play.main(["--replay", str(replay)]), "replay file", "nested deeper than 64 levels"),
        (lambda: plot.main(["results", str(result), "--out", str(tmp_path / "x.png")]), "result file", None),
        (lambda: evaluate.main(["--lineup", str(card), "random", "random", "--games", "3"]), "agent card", refused),
    ):
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            call()
        err = " ".join(capsys.readouterr().err.split())
        assert info.value.code == 2 and f"{name} " in err and (message or "nested deeper than 64 levels") in err


def test_a_huge_card_is_refused_before_it_is_read(tmp_path):
    card = tmp_path / "agent.json"
    with card.open("wb") as handle:  # a sparse file: 300 MB on paper, nothing on disk
        handle.truncate(300 << 20)
    started = time.perf_counter()
    with pytest.raises(InputError, match=r"agent card .* has 314,572,800 bytes, more than the 1,048,576 accepted"):
        players.validate(str(card))
    assert time.perf_counter() - started < 1


def test_weights_larger_than_the_card_says_are_refused(genuine):
    weights = genuine / "best_model.safetensors"
    with weights.open("ab") as handle:
        handle.truncate(weights.stat().st_size + (8 << 20))
    with pytest.raises(
        InputError, match=r"best_model\.safetensors have .* bytes, but the card agent\.json needs about"
    ):
        PolicyAgent(str(genuine / "agent.json"))


# ---------------------------------------------------------------------------------------------- numerics
def overflowing_agent(tmp_path: Path, probe_passes: bool) -> Path:
    """A card whose logit 0 is 3e38 * tanh(100 x5 - 50) - 3e38 * tanh(100 x7 - 50): finite weights.
    x5 and x7 flag 3 and 5 players, so the logit overflows to +-inf at 3 and 5 players, and is 0
    where both flags agree (4 players, and the probe's lowest, zero and highest observations).
    Without ``probe_passes`` the weights overflow everywhere (+-3e38 in a sum of two)."""
    size = OBSERVATION.size
    hidden = np.zeros((2, size), np.float32)
    hidden[0, OBSERVATION.offsets["num_players"]] = hidden[1, OBSERVATION.offsets["num_players"] + 2] = 100.0
    head = np.zeros((40, 2), np.float32)
    head[0] = [3e38, -3e38] if probe_passes else [3e38, 3e38]
    tensors = {
        "p0.weight": hidden,
        "p0.bias": np.full(2, -50.0, np.float32),
        "p1.weight": head,
        "p1.bias": np.zeros(40, np.float32),
        "v0.weight": np.zeros((1, size), np.float32),
        "v0.bias": np.zeros(1, np.float32),
    }
    network = {
        "features": "flatten",
        "policy": [
            {"tensor": "p0", "inputs": size, "outputs": 2, "activation": "tanh"},
            {"tensor": "p1", "inputs": 2, "outputs": 40, "activation": "identity"},
        ],
        "value": [{"tensor": "v0", "inputs": size, "outputs": 1, "activation": "identity"}],
    }
    return agent_file.write_agent(tmp_path / "overflow", tensors, network, "v1", False, [3, 4, 5])


def test_weights_that_overflow_everywhere_are_refused_when_loaded(tmp_path, capsys):
    card = overflowing_agent(tmp_path, probe_passes=False)
    with pytest.raises(InputError, match=r"overflow\.json: its network gives NaN or infinite outputs"):
        players.validate(str(card))
    with pytest.raises(SystemExit) as info:
        evaluate.main(["--lineup", str(card), "random", "random", "--games", "3", "--no-progress"])
    assert info.value.code == 2 and "overflow.json" in capsys.readouterr().err


@pytest.mark.parametrize("engine", ["scalar", "batched"])
def test_non_finite_logits_are_an_error_naming_the_file_on_both_engines(tmp_path, monkeypatch, engine):
    """The probe passes, the first 3-player decision overflows: both engines stop with the file's
    name, and the batched engine is never handed an action chosen from them."""
    card = overflowing_agent(tmp_path, probe_passes=True)
    players.validate(str(card))  # finite where the probe looks
    assert np.isfinite(load_policy(str(card)).logits(np.zeros(OBSERVATION.size, np.float32))).all()
    applied = []
    original = batch.apply

    def checked_apply(state, actions, autoreset=False, games=None):
        live = np.flatnonzero(state.pending_kind >= 0) if games is None else np.asarray(games)
        mask = batch.legal_action_mask(state)
        applied.append(bool((mask[live, np.asarray(actions)[live]] == 1).all()))
        return original(state, actions, autoreset, games)

    monkeypatch.setattr(batch, "apply", checked_apply)
    with pytest.raises(InputError, match=r"overflow\.json: its network gives NaN or infinite logits"):
        run_tournament([str(card), "random", "random"], 6, seed=0, workers=1, engine=engine)
    assert all(applied)
    if engine == "batched":
        env = CheckpointCharlieVectorEnv(8, opponents=str(card), num_players=3)
        with pytest.raises(InputError, match=r"overflow\.json: its network gives NaN or infinite logits"):
            env.reset(seed=0)
            for _ in range(50):
                env.step(np.argmax(env.action_masks(), axis=1))
        assert all(applied)


# ---------------------------------------------------------------------------------------------- the terminal
def test_names_from_a_replay_are_shown_escaped(tmp_path):
    from ckc_env.terminal.replay import Replay

    replay = Replay(GameConfig(num_players=3), 7, ["\x1b[2J\x1b[31mred", "[bold]x[/bold]", "bell\x07"], [], False)
    path = replay.save(tmp_path / "hostile.json")
    console = Console(record=True, width=200, force_terminal=True, highlight=False)
    play.show_replay(Replay.load(path), console, pause=False, source=str(path))
    styled = console.export_text(styles=True, clear=False)
    assert "\x1b[2J" not in styled and "\x1b[31m" not in styled and "\x07" not in styled
    shown = console.export_text(styles=False)
    assert "\\x1b[2J\\x1b[31mred" in shown and "[bold]x[/bold]" in shown and "bell\\x07" in shown


def test_printable_escapes_control_and_bidirectional_characters():
    assert printable("ok name") == "ok name"
    assert printable("a\x1b[31mb\rc\u202ed") == "a\\x1b[31mb\\rc\\u202ed"
    assert printable("two\nlines", keep_newlines=True) == "two\nlines"


def test_an_rllib_folder_of_pickles_needs_trust(tmp_path, marker, capsys):
    """An RLlib checkpoint is pickles: every entry point refuses it without trust, naming the safe
    run-folder files instead; none of its files is opened."""
    import pickle

    from test_trust import Payload

    module = tmp_path / "rllib_run" / "checkpoint" / loading.RLLIB_MODULE
    module.mkdir(parents=True)
    for name in loading.RLLIB_FILES:
        (module / name).write_bytes(pickle.dumps(Payload(marker)))
    spec = str(tmp_path / "rllib_run")
    assert specs.parse(spec).kind == "rllib" and not players.is_safe(spec)
    for call in (
        lambda: players.validate(spec),
        lambda: players.build(spec, seed=0),
        lambda: PolicyAgent(spec),
        lambda: players.build_batched(spec, seed=0),
        lambda: run_tournament([spec, "random", "random"], 3, workers=1),
    ):
        with pytest.raises(ValueError, match="RLlib checkpoint"):
            call()
    with pytest.raises(SystemExit) as info:
        evaluate.main(["--lineup", spec, "random", "random", "--games", "3", "--no-progress"])
    assert info.value.code == 2 and "refusing to load the RLlib checkpoint" in capsys.readouterr().err
    assert not marker.exists()


def test_resume_reads_only_a_regular_zip(tmp_path, capsys):
    """--resume opens the run's zip only if it is a regular zip archive: a link to a pipe or to
    another kind is refused by name instead of blocking or reading it."""
    config = tmp_path / "train.yaml"
    config.write_text(TRAIN.format(opponents="[random]", tables="{vs_random: [random]}"))
    run = tmp_path / "run"
    train.main([str(config), "--run-dir", str(run), "--total-timesteps", "64", "--no-progress"])
    (run / "latest_model.zip").unlink()
    fifo = tmp_path / "pipe.zip"
    os.mkfifo(fifo)
    link(run / "final_model.zip", fifo)
    capsys.readouterr()
    started = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        train.main(["--resume", str(run), "--total-timesteps", "128", "--no-progress"])
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2 and "final_model.zip is a symbolic link, not a regular file" in err
    assert time.perf_counter() - started < 30


def test_a_hash_mismatch_in_any_role_ends_every_command_with_status_2(genuine, tmp_path, capsys):
    """Weights changed behind their card are found when a spec is checked, as an opponent, an
    evaluation player or a teacher of ckc-train as anywhere else: a named error, exit status 2."""
    weights = genuine / "best_model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    spec = str(genuine / "agent.json")
    config = tmp_path / "train.yaml"
    for role in ("opponents", "tables", "teacher"):
        text = TRAIN.format(
            opponents=f"[{spec}]" if role == "opponents" else "[random]",
            tables=f"{{vs_it: [{spec}, random, random]}}" if role == "tables" else "{vs_random: [random]}",
        )
        config.write_text(text + (f"pretrain: {{teacher: {spec}}}\n" if role == "teacher" else ""))
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
        err = " ".join(capsys.readouterr().err.split())
        assert info.value.code == 2 and "do not match the sha256 in" in err, role
    for name, call in commands(spec, tmp_path).items():
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            call()
        assert info.value.code == 2 and "do not match the sha256" in " ".join(capsys.readouterr().err.split()), name
