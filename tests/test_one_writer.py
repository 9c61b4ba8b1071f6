"""One writer per folder (ckc_env.files.FolderLock): two commands that meet one run folder, a
kill while a run saves, a lock left by a killed command.

- a second command on a held folder (``--resume``, ``--force``, a new run given the same
  ``--run-dir``, a best response's ``--resume``, a pipeline) is refused by name, naming the holder,
  and changes no byte of the folder; the holder goes on and loses nothing;
- a lock is released however its command ends, and one left by a killed command is taken over;
- the temporary files a save killed mid-write left are swept when the run is resumed.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import refused

from ckc_env.files import LOCK, FolderLock, InputError

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------- the lock
def test_a_held_folder_is_refused_naming_its_holder_and_released_without_a_trace(tmp_path):
    with FolderLock(tmp_path, "--resume") as held:
        assert held.held and (tmp_path / LOCK).is_file()
        record = json.loads((tmp_path / LOCK).read_text())
        assert record["pid"] == os.getpid()
        with pytest.raises(InputError, match=r"--resume .* is in use by another command \(process \d+ on "):
            FolderLock(tmp_path, "--resume").acquire()
        assert json.loads((tmp_path / LOCK).read_text()) == record  # the refused one wrote nothing
    assert not held.held and list(tmp_path.iterdir()) == []  # released: no file left
    with FolderLock(tmp_path) as again:  # and taken again at once
        assert again.stale is None


HOLD_AND_DIE = """
import os, signal, sys
from ckc_env.files import FolderLock

FolderLock(sys.argv[1], "--resume").acquire()
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_lock_left_by_a_killed_command_is_taken_over(tmp_path):
    killed = subprocess.Popen([sys.executable, "-c", HOLD_AND_DIE, str(tmp_path)], cwd=ROOT)
    assert killed.wait(timeout=120) == -signal.SIGKILL
    assert (tmp_path / LOCK).is_file()  # the killed command's lock file is still there ...
    with FolderLock(tmp_path) as lock:  # ... and the next command takes it over, naming who left it
        assert lock.stale is not None and f"process {killed.pid} on " in lock.stale
        assert json.loads((tmp_path / LOCK).read_text())["pid"] == os.getpid()
    assert not (tmp_path / LOCK).exists()


def test_a_link_named_like_the_lock_is_refused(tmp_path):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    os.symlink(target, tmp_path / LOCK)
    with pytest.raises(InputError, match="symbolic link"):
        FolderLock(tmp_path).acquire()
    assert target.read_text() == "keep"


# ---------------------------------------------------------------------------------------------- two commands, one run folder
pytest.importorskip("sb3_contrib", reason="training needs the train extra")

from test_run_folder import SMALL, contents  # noqa: E402

from ckc_env.training.commands import (  # noqa: E402
    best_response,
    train,
)
from ckc_env.training.run import folder as run_folder  # noqa: E402

PAUSED = """
import sys, time
from pathlib import Path
from ckc_env.training.commands import checks, train
from ckc_env.training.trainers.sb3 import trainer as sb3

real_train = train.train


def paused(*args, **kwargs):  # the lock is held and every check passed: wait here until told to go on
    Path(sys.argv[2]).write_text("ready")
    for _ in range(1200):
        if Path(sys.argv[3]).exists():
            break
        time.sleep(0.1)
    return real_train(*args, **kwargs)


train.train = paused
train.main(["--resume", sys.argv[1], "--total-timesteps", "320", "--no-progress"])
"""


@pytest.fixture
def small_run(tmp_path) -> Path:
    config = tmp_path / "small.yaml"
    config.write_text(SMALL)
    return train.main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"])


@pytest.mark.slow
def test_two_commands_on_one_run_folder_one_is_refused_and_the_other_loses_nothing(small_run, tmp_path, capsys):
    commands = (small_run / "command.txt").read_text().splitlines()
    ready, go = tmp_path / "ready", tmp_path / "go"
    script = tmp_path / "paused.py"
    script.write_text(PAUSED)
    holder = subprocess.Popen(
        [sys.executable, str(script), str(small_run), str(ready), str(go)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(1200):
            if ready.exists() or holder.poll() is not None:
                break
            time.sleep(0.1)
        assert ready.exists(), holder.communicate()[1].decode()[-2000:]
        before = contents(small_run)
        pid = f"process {holder.pid} on "
        config = tmp_path / "small.yaml"
        for argv in (
            ["--resume", str(small_run)],  # a second --resume
            ["--resume", str(small_run), "--total-timesteps", "512"],
            [str(config), "--run-dir", str(small_run), "--force"],  # --force over it
        ):
            refused(capsys, lambda argv=argv: train.main([*argv, "--no-progress"]), "is in use by another command", pid)
            assert contents(small_run) == before
        refused(
            capsys,
            lambda: train.main([str(config), "--run-dir", str(small_run), "--no-progress"]),
            "already holds a run",
        )
        assert contents(small_run) == before
    finally:
        go.write_text("go")
        _, err = holder.communicate(timeout=600)
    assert holder.returncode == 0, err.decode()[-2000:]
    history = json.loads((small_run / "evaluations.json").read_text())
    assert history[-1]["timesteps"] == 320  # the holder finished its work
    assert len((small_run / "command.txt").read_text().splitlines()) == len(commands) + 1  # its line only
    assert not (small_run / LOCK).exists()


def test_two_new_runs_given_one_folder_the_second_is_refused_and_never_removes_the_first(tmp_path):
    first = run_folder.plan_new(str(tmp_path / "run"), "unused", False, train.TRAINER)
    second = run_folder.plan_new(str(tmp_path / "run"), "unused", False, train.TRAINER)  # both saw it free
    first.begin({"seed": 0}, {}, train.TRAINER)
    with pytest.raises(InputError, match="is in use by another command"):
        second.begin({"seed": 1}, {}, train.TRAINER)
    assert not second.abandon()  # it began nothing: it undoes nothing
    assert (tmp_path / "run" / run_folder.MARKER).is_file() and (tmp_path / "run" / LOCK).is_file()
    first.release()
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [run_folder.MARKER]
    late = run_folder.plan_new(str(tmp_path / "run"), "unused", True, train.TRAINER)  # force needs a run there
    assert late.replaces


def test_force_holds_the_replaced_run_until_the_new_one_has_started(small_run, tmp_path):
    plan = run_folder.plan_new(str(small_run), "unused", True, train.TRAINER)
    plan.begin({"seed": 0}, {}, train.TRAINER)
    previous = small_run.with_name(small_run.name + run_folder.PREVIOUS)
    assert (previous / LOCK).is_file()  # the replaced run went aside with its lock, still held
    with pytest.raises(InputError, match="in use"):
        FolderLock(previous).acquire()
    assert plan.abandon()  # the new run failed before it started: the old one is back, and free
    assert not previous.exists() and not (small_run / LOCK).exists()
    assert (small_run / "final_model.zip").is_file()


def test_a_best_response_on_a_held_folder_is_refused(small_run, capsys):
    with FolderLock(small_run, "--resume"):
        before = contents(small_run)
        refused(capsys, lambda: best_response.main(["--resume", str(small_run)]), "is in use by another command")
        assert contents(small_run) == before


def test_a_pipeline_on_a_held_folder_is_refused(tmp_path, capsys):
    from ckc_env.training.commands import pipeline

    folder = tmp_path / "pipeline"
    folder.mkdir()
    with FolderLock(folder, "--run-dir"):
        refused(
            capsys,
            lambda: pipeline.main(["strongest", "--run-dir", str(folder), "--no-progress"]),
            "is in use by another command",
        )
    assert list(folder.iterdir()) == []


# ---------------------------------------------------------------------------------------------- a kill during a save
KILL_MID_SAVE = """
import os, signal, sys

real_fsync = os.fsync


def fsync(fd):  # the new bytes are in the temporary file, not yet renamed over the model: die here
    real_fsync(fd)
    if ".evaluations.json." in os.readlink(f"/proc/self/fd/{fd}"):
        os.kill(os.getpid(), signal.SIGKILL)


os.fsync = fsync
from ckc_env.training.commands import checks, train
from ckc_env.training.trainers.sb3 import trainer as sb3

train.main(["--resume", sys.argv[1], "--total-timesteps", "320", "--no-progress"])
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc to find the file being saved")
def test_a_resumed_run_sweeps_what_a_killed_save_left_and_takes_over_its_lock(small_run, tmp_path, capsys):
    before = (small_run / "evaluations.json").read_bytes()
    script = tmp_path / "kill.py"
    script.write_text(KILL_MID_SAVE)
    done = subprocess.run([sys.executable, str(script), str(small_run)], capture_output=True, timeout=300, cwd=ROOT)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    assert (small_run / "evaluations.json").read_bytes() == before  # the old file, whole
    left = [p.name for p in small_run.iterdir() if p.name.endswith(".partial")]
    assert left and (small_run / LOCK).is_file()  # a temporary file and the killed command's lock
    capsys.readouterr()
    train.main(["--resume", str(small_run), "--total-timesteps", "320", "--no-progress"])
    out = capsys.readouterr().out
    assert "unfinished file(s) a killed save left" in out and left[0] in out
    assert not [p for p in small_run.iterdir() if p.name.endswith(".partial")] and not (small_run / LOCK).exists()
    assert json.loads((small_run / "evaluations.json").read_text())[-1]["timesteps"] == 320
