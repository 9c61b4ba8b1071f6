"""A file a command wrote yesterday is checked like a stranger's: a resumed JAX train state and a
best response's plan go through the checks a config or an agent file does (types, ranges, finite
values, shapes including the PRNG key, bounded nesting) before anything is compiled or played; a
refusal is a named error with exit status 2, and no byte of the run folder changes."""

import json
import struct
from pathlib import Path

import numpy as np
import pytest
import yaml
from cli_helpers import refused

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

from test_run_folder import contents

from ckc_env.training.commands import best_response, train
from ckc_env.training.config import TrainConfig, parse_config
from ckc_env.training.run import folder as run_folder

ROOT = Path(__file__).resolve().parents[1]


def make_run(folder: Path, config: TrainConfig, trainer: str = train.TRAINER) -> Path:
    """A run folder as ckc-train creates it (its marker, its config), nothing trained yet."""
    folder.mkdir()
    (folder / run_folder.MARKER).write_text(
        json.dumps(run_folder.marker(config.to_dict(), TrainConfig().to_dict(), trainer))
    )
    (folder / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    return folder


# ---------------------------------------------------------------------------------------------- a JAX train state
JAX_RUN = {
    "seed": 5,
    "engine": "jax",
    "total_timesteps": 128,
    "game": {"num_players": 4},
    "opponents": ["random"],
    "ppo": {"n_steps": 4, "batch_size": 32, "n_epochs": 1},
    "policy": {"net_arch": [8]},
    "eval": {"every": 64, "games": 8, "opponents": {"vs_random": ["random"]}},
    "vector": {"num_envs": 16},
}


def state_file(path: Path, tensors: dict[str, np.ndarray], steps: str = "64", header: dict | str | None = None) -> None:
    """A safetensors train state (written by hand: the checks read the bytes, nothing more)."""
    from safetensors.numpy import save

    from ckc_env.training.trainers.jax import state as jax_state

    data = save(tensors, metadata={"format": jax_state.STATE_FORMAT, "num_timesteps": steps})
    if header is not None:  # another header in front of the same tensors
        raw = (header if isinstance(header, str) else json.dumps(header)).encode()
        size = struct.unpack("<Q", data[:8])[0]
        data = struct.pack("<Q", len(raw)) + raw + data[8 + size :]
    path.write_bytes(data)


@pytest.fixture
def jax_run(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from ckc_env.training.trainers.jax import state as jax_state

    config = parse_config(JAX_RUN)
    run = make_run(tmp_path / "run", config)
    (run / "evaluations.json").write_text("[]")
    expected = jax_state.expected_state(config)
    tensors = {name: np.zeros(shape, dtype) for name, (shape, dtype) in expected.items()}
    state_file(run / jax_state.STATE_FILE, tensors)
    assert jax_state.check_state(run / jax_state.STATE_FILE, config) == 64  # a whole one passes
    return run, tensors


WEIGHTS = "['params'].policy[0].weight"


@pytest.mark.parametrize(
    ("tamper", "words"),
    [
        (lambda t: t.__setitem__(WEIGHTS, np.full_like(t[WEIGHTS], np.nan)), ["not finite", "policy[0].weight"]),
        (lambda t: t.__setitem__("key", np.zeros(5, np.uint32)), ["tensor key", "uint32[2]"]),
        (lambda t: t.__setitem__("key", np.zeros(2, np.float32)), ["tensor key", "float32[2]"]),
        (lambda t: t.pop("key"), ["missing tensors", "key"]),
        (lambda t: t.__setitem__("extra", np.zeros(1, np.float32)), ["no place for", "extra"]),
        (lambda t: t.__setitem__(WEIGHTS, np.zeros((3, 3), np.float32)), ["float32[3, 3]", "needs float32[850, 8]"]),
    ],
    ids=["NaN weights", "key shape", "key dtype", "no key", "extra tensor", "weights shape"],
)
def test_a_tampered_train_state_is_refused_before_anything_is_compiled(jax_run, capsys, monkeypatch, tamper, words):
    from ckc_env.training.trainers.jax import state as jax_state
    from ckc_env.training.trainers.jax import trainer as jax_trainer

    run, tensors = jax_run
    tamper(tensors)
    state_file(run / jax_state.STATE_FILE, tensors)
    monkeypatch.setattr(jax_trainer, "build_env", lambda *a, **k: pytest.fail("compiled before the check"))
    before = contents(run)
    refused(capsys, lambda: train.main(["--resume", str(run), "--no-progress"]), "JAX train state", *words)
    assert contents(run) == before


@pytest.mark.parametrize(
    ("write", "words"),
    [
        (lambda path, t: state_file(path, t, steps="-1"), ["num_timesteps='-1'"]),
        (lambda path, t: state_file(path, t, steps="9" * 40), ["num_timesteps", "count from 0"]),
        (lambda path, t: state_file(path, t, header='{"x":' * 100_000 + "{}" + "}" * 100_000), ["nested deeper than"]),
        (
            lambda path, t: state_file(path, t, header={"__metadata__": {"format": "pickle"}}),
            ["not a JAX train state", "format is 'pickle'"],
        ),
        (lambda path, t: path.write_bytes(b"\xff" * 8 + b"{}"), ["header length"]),
        (lambda path, t: path.write_bytes(b""), ["header length"]),
    ],
    ids=["negative steps", "huge steps", "deep header", "other format", "huge header length", "empty"],
)
def test_a_train_state_that_is_not_one_is_refused_by_name(jax_run, capsys, write, words):
    from ckc_env.training.trainers.jax import state as jax_state

    run, tensors = jax_run
    write(run / jax_state.STATE_FILE, tensors)
    before = contents(run)
    refused(capsys, lambda: train.main(["--resume", str(run), "--no-progress"]), *words)
    assert contents(run) == before


# ---------------------------------------------------------------------------------------------- a best response's plan
PLAN = {
    "player": "random",
    "num_players": 3,
    "start": "scratch",
    "steps": 256,
    "seed": 0,
    "engine": "sb3",
    "recipe": "best_response_scratch",
    "held_out_games": 12,
    "command": "ckc-best-response random --num-players 3",
}


@pytest.fixture
def best_response_run(tmp_path):
    config = best_response.build_config(
        "random", 3, 256, 0, None, ROOT / "configs/train/best_response_scratch.yaml", "sb3", 12
    )
    run = make_run(tmp_path / "run", config)
    (run / best_response.PLAN).write_text(json.dumps(PLAN))
    return run


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"steps": -1}, ["steps=-1", "integers from 1"]),
        ({"steps": "many"}, ["steps='many'"]),
        ({"engine": "torch"}, ["engine='torch'", "['sb3', 'jax']"]),
        ({"num_players": 7}, ["num_players=7"]),
        ({"seed": 2**70}, ["seed="]),
        ({"held_out_games": True}, ["held_out_games=True"]),
        ({"player": "model.zip"}, ["player"]),
        ({"player": "\x1b[2Jbayes_v9"}, ["player", "\\x1b[2Jbayes_v9"]),
        ({"player": ["random"]}, ["player"]),
        ({"start": 3}, ["start=3"]),
        ({"nonsense": 1}, ["unknown key", "nonsense"]),
        ({"player": None, "drop": "player"}, ["missing key", "player"]),
    ],
    ids=[
        "negative steps",
        "text steps",
        "engine",
        "players",
        "huge seed",
        "bool games",
        "untrusted zip",
        "escape codes",
        "list player",
        "start type",
        "unknown key",
        "missing key",
    ],
)
def test_a_tampered_plan_is_refused_before_any_work(best_response_run, capsys, monkeypatch, change, words):
    plan = {**PLAN, **change}
    if "drop" in change:
        plan.pop(plan.pop("drop"))
    (best_response_run / best_response.PLAN).write_text(json.dumps(plan))
    monkeypatch.setattr(best_response, "train", lambda *a, **k: pytest.fail("trained before the check"))
    before = contents(best_response_run)
    err = refused(capsys, lambda: best_response.main(["--resume", str(best_response_run)]), "plan", *words)
    assert "\x1b" not in err
    assert contents(best_response_run) == before


@pytest.mark.parametrize("plan", [[1, 2], "text", None])
def test_a_plan_that_is_not_a_mapping_is_refused(best_response_run, capsys, plan):
    (best_response_run / best_response.PLAN).write_text(json.dumps(plan))
    refused(capsys, lambda: best_response.main(["--resume", str(best_response_run)]), "is not a mapping")


def test_nan_in_a_best_responses_evaluations_is_refused(best_response_run, capsys):
    entry = {"timesteps": 256, "elapsed_seconds": 1.0, "results": {"vs_player": {"win_rate": float("nan")}}}
    (best_response_run / "evaluations.json").write_text(json.dumps([entry]))
    before = contents(best_response_run)
    refused(capsys, lambda: best_response.main(["--resume", str(best_response_run)]), "evaluations.json", "entry 0")
    assert contents(best_response_run) == before
