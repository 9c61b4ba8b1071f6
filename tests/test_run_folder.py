"""A run folder never loses a model (training/run_folder.py): what ckc-train and ckc-rllib-train
refuse, and that a refused command changes no byte of a run.

- identity: ``--force`` and ``--resume`` act on folders with a ``run.json`` marker only, and
  ``--resume`` on the config the run was created with;
- ``--resume`` needs a zip to continue, and never writes over an exported agent or evaluations
  with a model that does not continue them (the shipped folders, copied, are the test cases);
- ``--force`` checks everything first, moves the old run aside until the new one has started, and
  puts it back if the new one fails before;
- no link, FIFO or device is followed inside a run folder, and every write is atomic: a run
  killed mid-save leaves the old file whole;
- every bad value of a training config or a run's files is a named error (exit 2), checked
  before anything is allocated or written;
- ``init_from`` loads its file as every agent file loads (the probe of its network), before the
  run folder exists.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

from cli_helpers import refused
from test_hostile_files import overflowing_agent
from test_trust import TRAIN, hostile_zip

from ckc_env.files import InputError, remove_file, write_atomic
from ckc_env.training.commands import train
from ckc_env.training.config import TrainConfig, load_config
from ckc_env.training.evaluation import evaluations
from ckc_env.training.run import folder as run_folder
from ckc_env.training.trainers.sb3 import trainer as sb3

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = ROOT / "checkpoints"
SHIPPED_RUNS = sorted(
    p.name for p in CHECKPOINTS.iterdir() if (p / "run.json").is_file() and not p.name.startswith("rllib")
)
SMALL = TRAIN.format(opponents="[random]", tables="{vs_random: [random]}")


def contents(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder`` by relative path: a file's bytes, or what a link points to."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            out[key] = "link to " + os.readlink(path)
        elif path.is_file():
            out[key] = path.read_bytes()
        else:
            out[key] = "folder"
    return out


def refused_unchanged(capsys, run: Path, argv: list[str], *words: str) -> None:
    """``ckc-train argv`` ends with exit status 2 and ``words``, and no byte of ``run`` changed."""
    before = contents(run)
    refused(capsys, lambda: train.main([*argv, "--no-progress"]), *words)
    assert contents(run) == before


def shipped_copy(name: str, tmp_path: Path) -> Path:
    copy = tmp_path / name
    shutil.copytree(CHECKPOINTS / name, copy)
    return copy


@pytest.fixture
def small_run(tmp_path) -> Path:
    """A finished 256-step run of ckc-train (its zips, agent files, evaluations, marker)."""
    config = tmp_path / "small.yaml"
    config.write_text(SMALL)
    return train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])


# ---------------------------------------------------------------------------------------------- identity
def test_a_new_run_has_a_marker_naming_its_trainer_and_config(small_run):
    marker = json.loads((small_run / "run.json").read_text())
    assert marker["format"] == run_folder.FORMAT and marker["trainer"] == "ckc-train"
    config = load_config(small_run / "config.yaml")
    assert marker["config_sha256"] == run_folder.config_digest(config.to_dict(), TrainConfig().to_dict())


@pytest.mark.parametrize("name", SHIPPED_RUNS)
def test_every_shipped_run_folder_has_a_marker_that_fits_its_config(name):
    """Shipped folders are run folders: their markers fit their configs, so --resume reaches the
    checks of the model (and refuses the folders without a zip for what they lack)."""
    folder = CHECKPOINTS / name
    marker = run_folder.read_marker(folder, "--resume", train.TRAINER)
    config = load_config(folder / "config.yaml")
    run_folder.check_config(folder, marker, config.to_dict(), TrainConfig().to_dict())


def test_a_folder_without_a_marker_is_not_a_run_folder(tmp_path, capsys):
    """A folder that merely holds a config.yaml (beside a thesis) is neither replaced nor resumed."""
    config = tmp_path / "small.yaml"
    config.write_text(SMALL)
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / "thesis.tex").write_text("\\section{Results}")
    (papers / "config.yaml").write_text(SMALL)
    before = contents(papers)
    refused(
        capsys,
        lambda: train.main([str(config), "--run-dir", str(papers), "--force", "--no-progress"]),
        f"--force {papers}: not a run folder (it has no run.json",
    )
    refused(capsys, lambda: train.main(["--resume", str(papers)]), f"--resume {papers}: not a run folder")
    assert contents(papers) == before


def test_resume_refuses_a_config_changed_since_the_run_began(small_run, capsys):
    config = small_run / "config.yaml"
    config.write_text(config.read_text().replace("seed: 1", "seed: 2"))
    refused_unchanged(
        capsys,
        small_run,
        ["--resume", str(small_run), "--total-timesteps", "320"],
        "its config.yaml is not the one the run was created with",
    )


def test_a_resumed_run_may_extend_its_total_timesteps(small_run):
    train.main(["--resume", str(small_run), "--total-timesteps", "320", "--no-progress"])
    assert json.loads((small_run / "evaluations.json").read_text())[-1]["timesteps"] == 320
    train.main(["--resume", str(small_run), "--total-timesteps", "384", "--no-progress"])  # and again
    assert json.loads((small_run / "final_model.json").read_text())["training"]["timesteps"] == 384


# ---------------------------------------------------------------------------------------------- resume
@pytest.mark.parametrize("name", SHIPPED_RUNS)
def test_resume_never_trains_over_a_shipped_model_without_its_zip(name, tmp_path, capsys):
    """The shipped folders without zips (and any with its zips removed) are refused: a 1M-step
    model is never overwritten by one trained from scratch, nor evaluations appended to it."""
    run = shipped_copy(name, tmp_path)
    for zipped in run.glob("*.zip"):
        zipped.unlink()
    refused_unchanged(
        capsys,
        run,
        ["--resume", str(run), "--total-timesteps", "64"],
        "no final_model.zip or latest_model.zip to resume",
        f"start a new run with init_from: {run}/final_model.json",
    )


def test_resume_never_writes_over_a_newer_exported_model(tmp_path, capsys):
    """A zip older than the exported final model (here the best model's, renamed) is refused."""
    run = shipped_copy("ppo_5p_distilled", tmp_path)
    (run / "final_model.zip").unlink()
    (run / "best_model.zip").rename(run / "latest_model.zip")
    refused_unchanged(
        capsys,
        run,
        ["--resume", str(run), "--total-timesteps", "2000000"],
        "latest_model.zip is at step",
        "would write over that agent with a model that does not continue it",
    )


def test_resume_never_writes_evaluations_past_its_zip(small_run, capsys):
    (small_run / "final_model.zip").unlink()
    (small_run / "final_model.json").unlink()
    history = json.loads((small_run / "evaluations.json").read_text())
    history.append({**history[-1], "timesteps": 10_000})
    (small_run / "evaluations.json").write_text(json.dumps(history))
    refused_unchanged(
        capsys,
        small_run,
        ["--resume", str(small_run), "--total-timesteps", "20000"],
        "its evaluations.json goes to step 10,000",
    )


def test_resume_refuses_a_zip_with_an_impossible_step_count(small_run, capsys):
    settings = load_config(small_run / "config.yaml")
    model = sb3.build_model(settings, sb3.single_env(settings, 0, None)())
    model.num_timesteps = 10**400
    model.save(small_run / "final_model.zip")
    refused_unchanged(
        capsys,
        small_run,
        ["--resume", str(small_run), "--total-timesteps", "512"],
        "num_timesteps=",
        "not a count from 0 to 1,000,000,000,000",
    )


def test_resume_refused_by_weights_that_do_not_fit_changes_no_byte(small_run, capsys):
    """The zip's weights are read after the environments are built: a refusal there still leaves the
    run as it was (config.yaml and command.txt are written only once the model is restored)."""
    import io

    import torch

    final = small_run / "final_model.zip"
    with zipfile.ZipFile(final) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    buffer = io.BytesIO()
    torch.save({"not": torch.zeros(1)}, buffer)
    members["policy.pth"] = buffer.getvalue()
    with zipfile.ZipFile(final, "w") as archive:
        for name, blob in members.items():
            archive.writestr(name, blob)
    refused_unchanged(
        capsys,
        small_run,
        ["--resume", str(small_run), "--total-timesteps", "320"],
        "its weights do not fit the run's config",
    )


@pytest.mark.parametrize(
    ("retired", "word"),
    [(5, "retired: 5"), (None, "retired: None")],
)
def test_resume_refuses_a_malformed_population_record(tmp_path, capsys, retired, word):
    config = tmp_path / "population.yaml"
    config.write_text(
        textwrap.dedent(
            """
            seed: 0
            total_timesteps: 128
            game: {num_players: 3}
            vector: {num_envs: 16}
            population: {members: [[random], [passive]], refresh_every: 64}
            ppo: {n_steps: 4, batch_size: 32, n_epochs: 1}
            policy: {net_arch: [16]}
            eval: {every: 128, games: 3, opponents: {vs_random: [random]}}
            """
        )
    )
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    record = json.loads((run / "population.json").read_text())
    record["retired"] = retired
    (run / "population.json").write_text(json.dumps(record))
    refused_unchanged(
        capsys,
        run,
        ["--resume", str(run), "--total-timesteps", "192"],
        "population record",
        word,
    )


# ---------------------------------------------------------------------------------------------- --force
def test_force_checks_everything_before_it_touches_the_run(small_run, tmp_path, capsys, marker):
    """A config refused after --force (an untrusted zip opponent) leaves the run it named whole."""
    before = contents(small_run)
    evil = hostile_zip(tmp_path / "evil.zip", marker)
    config = tmp_path / "evil.yaml"
    config.write_text(TRAIN.format(opponents=f"[{evil}]", tables="{vs_random: [random]}"))
    refused(
        capsys,
        lambda: train.main([str(config), "--run-dir", str(small_run), "--force", "--no-progress"]),
        "evil.zip",
    )
    assert contents(small_run) == before and not marker.exists()
    assert not small_run.with_name("run.previous").exists()


def test_force_replaces_a_run_once_the_new_one_has_started(small_run, tmp_path):
    config = tmp_path / "other.yaml"
    config.write_text(SMALL.replace("seed: 1", "seed: 7"))
    (small_run / "extra_notes.txt").write_text("from the old run")
    train.main([str(config), "--run-dir", str(small_run), "--force", "--no-progress"])
    assert not (small_run / "extra_notes.txt").exists() and not small_run.with_name("run.previous").exists()
    assert load_config(small_run / "config.yaml").seed == 7


def test_a_replacing_run_that_fails_before_it_starts_puts_the_old_run_back(small_run, tmp_path, monkeypatch, capsys):
    before = contents(small_run)
    config = tmp_path / "other.yaml"
    config.write_text(SMALL.replace("seed: 1", "seed: 7"))

    def broken(*args, **kwargs):
        raise InputError("an evaluation player's file changed while the run started")

    monkeypatch.setattr(evaluations, "evaluate", broken)
    refused(
        capsys,
        lambda: train.main([str(config), "--run-dir", str(small_run), "--force", "--no-progress"]),
        "changed while the run started",
        "is as it was before this command",
    )
    assert contents(small_run) == before and not small_run.with_name("run.previous").exists()


def test_force_refuses_while_an_earlier_replaced_run_is_kept(small_run, tmp_path, capsys):
    previous = small_run.with_name("run.previous")
    shutil.copytree(small_run, previous)
    before = contents(small_run)
    config = tmp_path / "small.yaml"
    refused(
        capsys,
        lambda: train.main([str(config), "--run-dir", str(small_run), "--force", "--no-progress"]),
        "run.previous is still there",
    )
    assert contents(small_run) == before and previous.is_dir()


def test_a_linked_run_dir_is_refused_by_name(small_run, tmp_path, capsys):
    linked = tmp_path / "linked"
    os.symlink(small_run, linked)
    config = tmp_path / "small.yaml"
    before = contents(small_run)
    for argv in (
        [str(config), "--run-dir", str(linked), "--force", "--no-progress"],
        [str(config), "--run-dir", str(linked), "--no-progress"],
        ["--resume", str(linked), "--no-progress"],
    ):
        refused(capsys, lambda argv=argv: train.main(argv), f"{linked} is a symbolic link: give the folder itself")
    assert contents(small_run) == before


# ---------------------------------------------------------------------------------------------- links
@pytest.mark.parametrize("name", ["final_model.zip", "best_model.zip", "evaluations.json", "command.txt"])
def test_resume_refuses_a_file_linked_out_of_the_run(small_run, tmp_path, capsys, name):
    """A file of the run linked to one elsewhere is refused by name: nothing is written through it."""
    outside = tmp_path / "precious.bin"
    shutil.copy(small_run / name, outside)
    kept = outside.read_bytes()
    (small_run / name).unlink()
    os.symlink(outside, small_run / name)
    before = contents(small_run)
    refused(
        capsys,
        lambda: train.main(["--resume", str(small_run), "--total-timesteps", "320", "--no-progress"]),
        f"{small_run / name} is a symbolic link, not a regular file or folder",
    )
    assert outside.read_bytes() == kept and contents(small_run) == before


def test_resume_refuses_a_snapshot_folder_linked_elsewhere(tmp_path, capsys):
    config = tmp_path / "self.yaml"
    config.write_text(
        TRAIN.format(opponents="[self, random, random]", tables="{vs_random: [random]}")
        + "self_play: {snapshot_every: 64, keep: 1}\n"
    )
    run = train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])
    elsewhere = tmp_path / "my_agents"
    shutil.move(run / "snapshots", elsewhere)
    os.symlink(elsewhere, run / "snapshots")
    kept = contents(elsewhere)
    refused(
        capsys,
        lambda: train.main(["--resume", str(run), "--total-timesteps", "512", "--no-progress"]),
        f"{run / 'snapshots'} is a symbolic link",
    )
    assert contents(elsewhere) == kept and len(kept) >= 2


def test_a_fifo_inside_a_run_is_refused_without_blocking(small_run, capsys):
    os.mkfifo(small_run / "tensorboard" / "events.pipe")
    refused(
        capsys,
        lambda: train.main(["--resume", str(small_run), "--total-timesteps", "320", "--no-progress"]),
        "events.pipe is a FIFO",
    )


def test_writes_and_removals_never_go_through_links(tmp_path):
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    link = tmp_path / "link.txt"
    os.symlink(target, link)
    write_atomic(link, b"written")  # the link is replaced by the file, its target untouched
    assert not link.is_symlink() and link.read_bytes() == b"written" and target.read_text() == "keep me"
    os.symlink(target, tmp_path / "link2.txt")
    with pytest.raises(InputError, match=r"link2\.txt is a symbolic link"):
        remove_file(tmp_path / "link2.txt")
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(InputError, match=r"pipe is a FIFO"):
        write_atomic(tmp_path / "pipe", b"x")
    (tmp_path / "folder").mkdir()
    with pytest.raises(InputError, match=r"folder is a folder"):
        write_atomic(tmp_path / "folder", b"x")
    assert target.read_text() == "keep me" and (tmp_path / "link2.txt").is_symlink()
    write_atomic(tmp_path / "new.txt", "whole")
    assert (tmp_path / "new.txt").read_text() == "whole"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


KILL_MID_SAVE = """
import os, signal, sys
from pathlib import Path

real_fsync = os.fsync


def fsync(fd):  # the new bytes are in the temporary file, not yet renamed over the model: die here
    real_fsync(fd)
    if ".latest_model.zip." in os.readlink(f"/proc/self/fd/{fd}"):
        os.kill(os.getpid(), signal.SIGKILL)


os.fsync = fsync
from ckc_env.training.commands import checks, train
from ckc_env.training.trainers.sb3 import trainer as sb3

train.main(["--resume", sys.argv[1], "--total-timesteps", "320", "--no-progress"])
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc to find the file being saved")
def test_a_run_killed_mid_save_leaves_the_old_model_whole(small_run, tmp_path):
    before = (small_run / "latest_model.zip").read_bytes()
    script = tmp_path / "kill_mid_save.py"
    script.write_text(KILL_MID_SAVE)
    done = subprocess.run([sys.executable, str(script), str(small_run)], capture_output=True, timeout=300, cwd=ROOT)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    assert (small_run / "latest_model.zip").read_bytes() == before  # the old file, whole
    partial = [p for p in small_run.iterdir() if p.name.startswith(".latest_model.zip.")]
    assert partial and partial[0].stat().st_size > 0  # the new bytes were written: the kill came mid-save
    for name in ("evaluations.json", "final_model.json"):
        json.loads((small_run / name).read_text())  # every file the run wrote is whole
    # and the run goes on from its last whole model
    train.main(["--resume", str(small_run), "--total-timesteps", "320", "--no-progress"])
    assert json.loads((small_run / "evaluations.json").read_text())[-1]["timesteps"] == 320


# ---------------------------------------------------------------------------------------------- values
@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ("1: 2\n", ["key 1 at the top level", "option names"]),
        ("~: 1\n", ["key None at the top level"]),
        ("self_play: {1: 2, keep: 3}\n", ["key 1 in self_play"]),
        ("seed: 4294967296\n", ["seed=4294967296", "<= 4_294_967_295"]),
        ("ppo: {n_steps: 100000000000, batch_size: 32}\n", ["ppo.n_steps", "bytes"]),
        ("vector: {num_envs: 100000000}\n", ["vector.num_envs=100000000", "<= 65_536"]),
        ("vector: {num_envs: 64, threads: 100000000}\n", ["vector.threads=100000000", "<= 256"]),
        ("policy: {net_arch: [4096, 4096, 4096, 4096]}\n", ["policy.net_arch", "weights in all"]),
        ("policy: {net_arch: " + str([4096] * 300) + "}\n", ["policy.net_arch", "up to 16 layer widths"]),
        ("total_timesteps: " + "9" * 5000 + "\n", ["small.yaml"]),
        ('eval: {opponents: {"\\e[2Jvs": [random]}}\n', ["eval.opponents", "table names of 1 to 64 letters"]),
        ("eval: {games: 10000000000}\n", ["eval.games", "<= 1_000_000"]),
        (
            "population: {members: [[{name: bayes_v1, nonsense: 3}]]}\nvector: {num_envs: 16}\n",
            ["population.members[0]", "nonsense"],
        ),
    ],
    ids=[
        "int key",
        "null key",
        "int key in a section",
        "seed",
        "n_steps",
        "num_envs",
        "threads",
        "weights",
        "layers",
        "digits",
        "escape codes",
        "games",
        "population member",
    ],
)
def test_every_bad_training_value_is_a_named_error(tmp_path, capsys, extra, words):
    """Each refused before anything is allocated or written (no run folder), in well under a second
    of checking, with exit status 2 and no traceback."""
    config = tmp_path / "small.yaml"
    base = SMALL.replace("opponents: [random]\n", "") if "population" in extra else SMALL
    config.write_text(base + extra)
    err = refused(
        capsys, lambda: train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]), *words
    )
    assert "\x1b" not in err and not (tmp_path / "run").exists()


def test_total_timesteps_on_the_command_line_is_bounded(tmp_path, capsys):
    config = tmp_path / "small.yaml"
    config.write_text(SMALL)
    refused(
        capsys,
        lambda: train.main([str(config), "--total-timesteps", str(10**30), "--no-progress"]),
        "argument --total-timesteps",
        "integers from 1 to 1000000000000",
    )


def test_init_from_probes_its_network_before_the_run_folder_exists(tmp_path, capsys):
    """Finite weights of 3e38 that overflow on in-range observations are refused by name at the
    start, as every agent file is when loaded, not at the first evaluation."""
    card = overflowing_agent(tmp_path, probe_passes=False)
    config = tmp_path / "small.yaml"
    config.write_text(SMALL + f"init_from: {card}\nbelief_features: false\n")
    refused(
        capsys,
        lambda: train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]),
        f"init_from={card}",
        "its network gives NaN or infinite outputs",
    )
    assert not (tmp_path / "run").exists()
