"""Loading an agent runs no code: a stable-baselines3 zip whose ``data`` member carries a cloudpickle
blob (stored the way SB3 stores them) is refused, with one message, by every API and command
that takes an agent, and its payload never runs; with trust it loads as stable-baselines3 loads
it. Files hiding pickles under other names are refused too, and ``--resume`` reads a run's zip
without unpickling it."""

import base64
import io
import json
import zipfile
from pathlib import Path

import gymnasium
import pytest

pytest.importorskip("sb3_contrib", reason="the zips are made with the train extra")

import cloudpickle
import torch
from test_policy import untrained

from ckc_env import players
from ckc_env.config import GameConfig
from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent
from ckc_env.evaluation.commands import evaluate
from ckc_env.evaluation.tournament import round_robin, run_tournament
from ckc_env.observation import OBSERVATION
from ckc_env.players import agent_file, loading
from ckc_env.players.policy import PolicyAgent
from ckc_env.terminal import play
from ckc_env.training.commands import export, train
from ckc_env.training.config import load_config
from ckc_env.training.imitation.cloning import collect
from ckc_env.training.league.self_play import SnapshotOpponent
from ckc_env.training.trainers.sb3 import trainer as sb3

REFUSED = r"refusing to load .*evil\.zip without trust: .*cloudpickle.*stable-baselines3 issue 2281.*ckc-export"


class Payload:
    """Unpickling this creates the marker file: what a hostile checkpoint would do instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (exec, (f"import pathlib; pathlib.Path({self.marker!r}).touch()",))


def serialized(marker: Path) -> dict[str, str]:
    """A data member entry as SB3's ``data_to_json`` writes one: base64 of cloudpickle."""
    blob = base64.b64encode(cloudpickle.dumps(Payload(marker))).decode()
    return {":type:": "<class 'NoneType'>", ":serialized:": blob}


def rewrite_zip(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    contents.update(members)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def hostile_zip(path: Path, marker: Path, size: int = OBSERVATION.size, model=None) -> Path:
    """A real MaskablePPO zip whose data member runs the payload when SB3 loads it. The blob sits
    in a field SB3 sets to None anyway, so a trusted load still succeeds, as it would for an attack."""
    (model or untrained(size)).save(path)
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    data["_last_original_obs"] = serialized(marker)
    rewrite_zip(path, {"data": json.dumps(data).encode()})
    return path


@pytest.fixture
def evil(tmp_path, marker) -> str:
    return str(hostile_zip(tmp_path / "evil.zip", marker))


def test_the_hostile_zip_really_runs_its_payload_when_trusted(evil, marker, monkeypatch):
    """With trust, the zip loads as stable-baselines3 loads it (so the payload runs: the test file
    is what it claims to be) and plays; trust is asked for again on every load, cache or not."""
    agent = PolicyAgent(evil, trust_checkpoint=True)
    assert marker.exists()
    result = run_tournament([evil, "random", "random"], games=3, seed=0, workers=1, trust_checkpoint=True)
    assert result.games == 6 and agent.layout is OBSERVATION
    with pytest.raises(ValueError, match=REFUSED):  # loaded and cached above: still refused untrusted
        PolicyAgent(evil)
    monkeypatch.setenv(loading.TRUST_ENV, "1")
    assert PolicyAgent(evil).network is agent.network


def test_the_python_apis_refuse_it(evil, marker, tmp_path):
    calls = {
        "players.validate": lambda: players.validate(evil),
        "players.build": lambda: players.build(evil, seed=0),
        "PolicyAgent": lambda: PolicyAgent(evil),
        "run_tournament": lambda: run_tournament([evil, "random", "random"], games=3, workers=1),
        "round_robin": lambda: round_robin([evil, "random", "passive", "eager"], 3, games=4, workers=1),
        "single-agent opponents": lambda: CheckpointCharlieSingleAgent(opponents=[evil, "random"], num_players=3),
        "gymnasium.make": lambda: gymnasium.make("CheckpointCharlie-v1", opponents=evil, num_players=3),
        "behaviour cloning teacher": lambda: collect(
            CheckpointCharlieSingleAgent(opponents="random", num_players=3), evil, 10, 0.99, seed=0
        ),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=REFUSED):
            call()
        assert not marker.exists(), name


@pytest.mark.parametrize(
    "command",
    [
        lambda evil: evaluate.main(["--lineup", evil, "random", "random", "--games", "3", "--no-progress"]),
        lambda evil: evaluate.main(["--round-robin", evil, "random", "passive", "--games", "3", "--no-progress"]),
        lambda evil: play.main(["--opponents", evil, "random", "random"]),
        lambda evil: export.main([evil]),
    ],
    ids=["ckc-evaluate --lineup", "ckc-evaluate --round-robin", "ckc-play", "ckc-export"],
)
def test_the_commands_refuse_it(evil, marker, capsys, command):
    with pytest.raises(SystemExit) as info:
        command(evil)
    assert info.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "refusing to load" in err and "stable-baselines3 issue 2281" in err and "--trust-checkpoint" in err
    assert not marker.exists()


def test_the_commands_take_it_with_trust(evil, marker, capsys, tmp_path):
    evaluate.main(["--lineup", evil, "random", "random", "--games", "3", "--no-progress", "--trust-checkpoint"])
    assert "evil.zip" in capsys.readouterr().out
    assert marker.exists()  # the trusted load ran it, as SB3's own load does
    play.main(["--opponents", evil, "random", "random", "--trust-checkpoint"])
    export.main([evil, "--players", "3", "--trust-checkpoint"])
    marker.unlink()
    safe = Path(evil).with_suffix(".json")
    assert PolicyAgent(safe).layout is OBSERVATION  # the export loads with nothing unpickled
    assert not marker.exists()


TRAIN = """
seed: 1
total_timesteps: 256
game: {{num_players: 4}}
opponents: {opponents}
ppo: {{n_steps: 64, batch_size: 32, n_epochs: 1}}
policy: {{net_arch: [16]}}
eval: {{every: 256, games: 4, opponents: {tables}}}
"""


@pytest.mark.parametrize(
    ("opponents", "tables", "teacher"),
    [
        ("[self, random, EVIL]", "{vs_random: [random]}", None),  # a self-play league beside it
        ("[random]", "{vs_evil: [EVIL, random, random]}", None),
        ("[random]", "{vs_random: [random]}", "EVIL"),
    ],
    ids=["self-play opponents", "evaluation table", "pretraining teacher"],
)
def test_training_refuses_it_before_anything_runs(evil, marker, tmp_path, capsys, opponents, tables, teacher):
    config = tmp_path / "train.yaml"
    text = TRAIN.format(opponents=opponents, tables=tables).replace("EVIL", evil)
    config.write_text(text + (f"pretrain: {{teacher: {teacher.replace('EVIL', evil)}}}\n" if teacher else ""))
    with pytest.raises(SystemExit) as info:
        train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    assert info.value.code == 2 and "stable-baselines3 issue 2281" in capsys.readouterr().err
    assert not (tmp_path / "run").exists() and not marker.exists()


def test_a_self_play_league_plays_only_safe_snapshots(tmp_path, marker):
    """Snapshots are written as safe files; a zip planted among them is never loaded."""
    folder = tmp_path / "snapshots"
    folder.mkdir()
    hostile_zip(folder / "snapshot_000000001000.zip", marker)
    opponent = SnapshotOpponent(folder, seed=0)
    opponent.reset(1, GameConfig(num_players=3))
    assert opponent.current is opponent.fallback  # no safe snapshot yet: random play
    agent_file.save_sb3(untrained(OBSERVATION.size), folder / "snapshot_000000000500", players=[3])
    opponent.reset(1, GameConfig(num_players=3))
    assert isinstance(opponent.current, PolicyAgent) and opponent.current.path.endswith("500.json")
    assert not marker.exists()


def test_resume_never_unpickles_the_runs_zip(tmp_path, marker, capsys):
    """--resume rebuilds the model from config.yaml and reads tensors with weights_only=True: a
    payload in the data member is never decoded (the run resumes), and a pickled object hidden in
    policy.pth is refused by torch with a message naming the file."""
    config = tmp_path / "train.yaml"
    config.write_text(TRAIN.format(opponents="[random]", tables="{vs_random: [random]}"))
    run = tmp_path / "run"
    train.main([str(config), "--run-dir", str(run), "--total-timesteps", "64", "--no-progress"])
    settings = load_config(run / "config.yaml")
    model = sb3.build_model(settings, sb3.single_env(settings, 0, None)())
    model.num_timesteps = 64
    final = hostile_zip(run / "final_model.zip", marker, model=model)
    (run / "latest_model.zip").unlink()
    train.main(["--resume", str(run), "--total-timesteps", "128", "--no-progress"])
    assert json.loads((run / "evaluations.json").read_text())[-1]["timesteps"] == 128
    assert not marker.exists()

    model.num_timesteps = 128  # the step the run's final model is at now: the zip continues it
    hostile_zip(final, marker, model=model)
    buffer = io.BytesIO()
    torch.save({"weights": Payload(marker)}, buffer)
    rewrite_zip(final, {"policy.pth": buffer.getvalue()})
    (run / "latest_model.zip").unlink()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        train.main(["--resume", str(run), "--total-timesteps", "192", "--no-progress"])
    err = " ".join(capsys.readouterr().err.split())
    assert f"cannot resume from {final}: UnpicklingError: Weights only load failed" in err
    assert not marker.exists()


@pytest.mark.parametrize("name", ["agent.pt", "agent.pth", "agent.pkl", "disguised.json", "disguised.safetensors"])
def test_pickles_under_other_names_are_not_loaded(tmp_path, marker, name):
    """A torch or pickle file, or a hostile zip renamed as an agent file, is never unpickled, trusted or not."""
    path = tmp_path / name
    if name.startswith("disguised"):
        path.write_bytes(hostile_zip(tmp_path / "evil.zip", marker).read_bytes())
        if path.suffix == ".safetensors":
            path.with_suffix(".json").write_text("{}")
    else:
        torch.save({"policy": Payload(marker)}, path)
    for trust in (False, True):
        with pytest.raises(ValueError, match=r"not an agent file|holds a zip file|agent card .*format="):
            PolicyAgent(path, trust_checkpoint=trust)
        with pytest.raises(ValueError):
            players.validate(str(path), trust_checkpoint=trust)
    assert not marker.exists()


def test_the_trust_variable_takes_only_yes_or_no(monkeypatch, evil, marker):
    monkeypatch.setenv(loading.TRUST_ENV, "maybe")
    with pytest.raises(ValueError, match=r"CKC_TRUST_CHECKPOINTS='maybe': accepted values are 1 \(trust\) or 0"):
        PolicyAgent(evil)
    monkeypatch.setenv(loading.TRUST_ENV, "0")
    with pytest.raises(ValueError, match=REFUSED):
        PolicyAgent(evil)
    assert not marker.exists()


def test_a_spec_cannot_smuggle_trust_in_as_a_parameter(evil, marker):
    with pytest.raises(ValueError, match=r"takes the parameter deterministic, not \['trust_checkpoint'\]"):
        players.validate({"name": evil, "trust_checkpoint": True})
    assert not marker.exists()
