"""`pip install .` gives the whole toolkit: the training package, the configs as package data and the
console commands (checked on the wheel pip builds)."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("ckc_env-*.whl")
    return zipfile.ZipFile(path)


@pytest.mark.slow
def test_the_wheel_holds_the_training_package_and_the_configs(wheel):
    names = set(wheel.namelist())
    for path in (ROOT / "training").rglob("*.py"):  # every module of the training floor, in its package
        assert f"ckc_env/training/{path.relative_to(ROOT / 'training').as_posix()}" in names, path
    for preset in (
        "rules/base.yaml",
        "rules/stasi.yaml",
        "rules/adler.yaml",
        "rules/both.yaml",
        "train/quick.yaml",
        "rllib/smoke.yaml",
        "pipelines/strongest.yaml",
    ):
        assert f"ckc_env/configs/{preset}" in names, preset
    assert not any(name.startswith(("training/", "configs/", "tests/")) for name in names)
    for module in ("game", "state", "chance", "observation", "beliefs", "agents", "replay", "summary"):
        assert f"ckc_env/batch/{module}.py" in names, module
    # every package of the source tree, with every module of it (pyproject lists the packages by name)
    for path in (ROOT / "ckc_env").rglob("*.py"):
        assert f"ckc_env/{path.relative_to(ROOT / 'ckc_env').as_posix()}" in names, path
    assert "ckc_env/web/page.html" in names  # ckc-serve's page


def test_the_wheel_declares_the_console_commands(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    for command in (
        "ckc-ceiling = ckc_env.evaluation.commands.ceiling:main",
        "ckc-evaluate = ckc_env.evaluation.commands.evaluate:main",
        "ckc-train = ckc_env.training.commands.train:command",
        "ckc-train-pipeline = ckc_env.training.commands.pipeline:command",
        "ckc-export = ckc_env.training.commands.export:main",
        "ckc-play = ckc_env.terminal.play:main",
        "ckc-plot = ckc_env.evaluation.commands.plot:main",
        "ckc-rllib-train = ckc_env.training.commands.rllib:main",
        "ckc-serve = ckc_env.web.command:main",
    ):
        assert command in text


def test_the_wheel_carries_the_licence_it_declares(wheel):
    licences = [name for name in wheel.namelist() if name.rsplit("/", 1)[-1] == "LICENSE"]
    assert licences, "the MIT licence file is not in the wheel"
    assert wheel.read(licences[0]).decode().startswith("MIT License")
    metadata = next(name for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
    assert "MIT" in wheel.read(metadata).decode()
