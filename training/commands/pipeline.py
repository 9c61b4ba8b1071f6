"""Train a chain of runs, each starting from a model of one before it: ``ckc-train-pipeline``.

    ckc-train-pipeline strongest --run-dir runs/strongest          # configs/pipelines/strongest.yaml
    ckc-train-pipeline strongest --run-dir runs/strongest          # again: finished stages are skipped
    ckc-train-pipeline strongest --run-dir runs/strongest --plan   # what it would do, doing nothing

(``ckc-train-pipeline`` is ``python -m ckc_env.training.commands.pipeline``.) A pipeline file lists stages, in
the order they run::

    stages:
      - name: all_counts
        config: all_counts                  # a training preset or a YAML file, as ckc-train takes it
      - name: finetuned
        config: finetune_all_counts
        init_from: all_counts               # an earlier stage: this one starts from its model ...
        model: best                         # ... its best (the default) or final model
        total_timesteps: 600_000            # optional: the stage's length (ckc-train --total-timesteps)

Each stage is one ``ckc-train`` run (a process of its own) in ``RUN_DIR/<k>_<name>`` (``01_all_counts``,
``02_finetuned``, ...), from the config ``RUN_DIR/<k>_<name>.yaml`` that the pipeline writes: the
stage's config with ``init_from`` set to the earlier stage's model and ``total_timesteps`` to the
stage's length, where the pipeline gives them. Every stage's config is checked before the first one
starts, and a bad pipeline file is a named error (exit status 2).

Running the same command again goes on where the pipeline stopped, stage by stage:

| the stage's folder | what the pipeline does |
|---|---|
| none (or empty) | a new run: ``ckc-train RUN_DIR/<k>_<name>.yaml --run-dir RUN_DIR/<k>_<name>`` |
| a finished run (``summary.json``) at the stage's length or beyond | nothing: it is done |
| a finished run short of a longer length now given | ``ckc-train --resume RUN_DIR/<k>_<name> --total-timesteps N`` |
| an unfinished run with a zip to continue (``latest_model.zip``, written at every evaluation) | ``ckc-train --resume RUN_DIR/<k>_<name> --total-timesteps N`` |
| an unfinished run stopped before its first evaluation (no zip) | the stage again, ``--force`` (ckc-train replaces its own run folder) |

A started stage must still be what the pipeline asks for: its run's ``config.yaml`` the stage's
config (``total_timesteps`` aside), and the model it started from the one the earlier stage holds
now (``RUN_DIR/pipeline.json`` records the SHA-256 of each start's agent card). Otherwise the
pipeline stops with a named error rather than skip a stage trained from something else; remove
that stage's folder (and the later ones) to train it again. ``RUN_DIR`` holds only the pipeline's
files: a folder of one's own that is not empty and has no ``pipeline.json`` is refused.

A stage that fails ends the pipeline with its exit status; the command, given again, resumes it.
``OPENBLAS_NUM_THREADS`` is 1 for the stages unless it is set (see docs/training.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ckc_env import cli, configs
from ckc_env.config import load_yaml_mapping
from ckc_env.files import LOCK, FolderLock, InputError, read_json, short, write_atomic

from ..config import TrainConfig, load_config, parse_config
from ..config.limits import MAX_TIMESTEPS
from ..run import folder as run_folder

FORMAT = "ckc-env pipeline"
FORMAT_VERSION = 1
RECORD = "pipeline.json"
"""The pipeline folder's record (and marker): the pipeline file and each started stage's start."""
MAX_STAGES = 99
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
STAGE_KEYS = ("name", "config", "init_from", "model", "total_timesteps")
MODELS = {"best": "best_model.json", "final": "final_model.json"}
TRAIN = [sys.executable, "-m", "ckc_env.training.commands.train"]
"""How a stage runs: ``ckc-train`` in a process of its own."""


@dataclass(frozen=True)
class Stage:
    """One stage of a pipeline file, checked: its config resolved, ``init_from`` an earlier stage."""

    index: int
    name: str
    config: Path
    data: dict[str, Any]
    init_from: str | None
    model: str
    total_timesteps: int | None

    @property
    def label(self) -> str:
        return f"{self.index + 1:02d}_{self.name}"


def load_pipeline(path: str | Path) -> list[Stage]:
    """The stages of a pipeline file (a preset name or a YAML file), each checked; a ValueError names
    the file, the stage and the key."""
    path = configs.preset("pipelines", path)
    raw = load_yaml_mapping(path, ("stages",), "pipeline key")
    stages = raw.get("stages")
    if not isinstance(stages, list) or not stages:
        raise InputError(f"pipeline {path}: stages={short(stages)} is not a non-empty list of stages")
    if len(stages) > MAX_STAGES:
        raise InputError(f"pipeline {path}: {len(stages)} stages, more than {MAX_STAGES}")
    out: list[Stage] = []
    for index, entry in enumerate(stages):
        where = f"pipeline {path}, stage {index + 1}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: {short(entry)} is not a mapping with keys {list(STAGE_KEYS)}")
        unknown = [key for key in entry if key not in STAGE_KEYS]
        if unknown:
            raise InputError(
                f"{where}: unknown key(s) {[short(k) for k in unknown]}: accepted keys are {list(STAGE_KEYS)}"
            )
        name = entry.get("name")
        if not isinstance(name, str) or not NAME.fullmatch(name):
            raise InputError(
                f"{where}: name={short(name)} is not a stage name (letters, digits, '_', '-', '.', at most 64)"
            )
        where = f"pipeline {path}, stage {index + 1} ({name})"
        if any(stage.name == name for stage in out):
            raise InputError(f"{where}: the name {name!r} is given to two stages")
        config = entry.get("config")
        if not isinstance(config, str) or not config:
            raise InputError(f"{where}: config={short(config)} is not a training preset or YAML file")
        try:
            config_path = configs.preset("train", config)
        except ValueError as exc:
            raise InputError(f"{where}: {exc}") from None
        init_from = entry.get("init_from")
        if init_from is not None and (not isinstance(init_from, str) or init_from not in [s.name for s in out]):
            earlier = [s.name for s in out]
            raise InputError(
                f"{where}: init_from={short(init_from)} is not an earlier stage"
                + (f": earlier stages are {earlier}" if earlier else " (the first stage has none to start from)")
            )
        model = entry.get("model", "best")
        if model not in tuple(MODELS) or (init_from is None and "model" in entry):
            raise InputError(
                f"{where}: model={short(model)}: accepted values are {list(MODELS)}, the model of the init_from stage"
                + ("" if init_from is not None else " (this stage has no init_from)")
            )
        total = entry.get("total_timesteps")
        if total is not None and (
            isinstance(total, bool) or not isinstance(total, int) or not 1 <= total <= MAX_TIMESTEPS
        ):
            raise InputError(
                f"{where}: total_timesteps={short(total)}: accepted values are integers from 1 to {MAX_TIMESTEPS:,}"
            )
        stage = Stage(index, name, config_path, load_yaml_mapping(config_path), init_from, model, total)
        try:  # the config as the stage runs it (the earlier stage's model need not exist yet)
            parse_config(derived(stage, Path("RUN_DIR"), out))
        except ValueError as exc:
            raise InputError(f"{where}: {config_path}: {exc}") from None
        out.append(stage)
    return out


def start_path(stage: Stage, run_dir: Path, stages: list[Stage]) -> Path | None:
    """The agent card a stage starts from (None: the stage's config decides)."""
    if stage.init_from is None:
        return None
    (earlier,) = [s for s in stages if s.name == stage.init_from]
    return run_dir / earlier.label / MODELS[stage.model]


def derived(stage: Stage, run_dir: Path, stages: list[Stage]) -> dict[str, Any]:
    """The stage's config as it runs: ``init_from`` the earlier stage's model, its own length."""
    data = dict(stage.data)
    start = start_path(stage, run_dir, stages)
    if start is not None:
        data["init_from"] = str(start)
    if stage.total_timesteps is not None:
        data["total_timesteps"] = stage.total_timesteps
    return data


def comparable(config: TrainConfig) -> dict[str, Any]:
    """A resolved config without its length (which a resumed stage may extend)."""
    return {key: value for key, value in config.to_dict().items() if key not in run_folder.EXTENDABLE}


def card_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------------------------- the folder
def open_folder(run_dir: Path, pipeline: Path) -> dict[str, Any]:
    """The pipeline folder's record: a new one for a free folder, else the one there, checked."""
    run_folder.check_root(run_dir, "--run-dir")
    record_path = run_dir / RECORD
    if not os.path.lexists(record_path):
        if run_dir.is_dir() and any(p.name != LOCK for p in run_dir.iterdir()):
            raise InputError(
                f"--run-dir {run_dir} holds files but no {RECORD}: it is not a pipeline's folder (a pipeline "
                "writes only into a folder of its own); give another --run-dir"
            )
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "pipeline": str(pipeline), "starts": {}}
    record = read_json(record_path, "pipeline record")
    fine = (
        isinstance(record, dict)
        and record.get("format") == FORMAT
        and record.get("format_version") == FORMAT_VERSION
        and isinstance(record.get("starts"), dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in record["starts"].items())
    )
    if not fine:
        raise InputError(
            f"{record_path} is not a pipeline record ({{format: {FORMAT!r}, format_version: {FORMAT_VERSION}, "
            "starts: {stage: sha256}}})"
        )
    return record


@dataclass
class Step:
    """What one stage needs now: ``done``, ``new``, ``restart`` (``--force``) or ``resume``."""

    stage: Stage
    action: str
    why: str
    argv: list[str]


def plan(stages: list[Stage], run_dir: Path, record: dict[str, Any], passthrough: list[str]) -> list[Step]:
    """Each stage's state and command. A stage that cannot be known until the one before it ends
    (its start does not exist yet) is ``new``; a started stage is checked against the pipeline."""
    steps = []
    for stage in stages:
        folder = run_dir / stage.label
        config_file = run_dir / f"{stage.label}.yaml"
        config = parse_config(derived(stage, run_dir, stages))
        target = config.total_timesteps
        new = [*TRAIN, str(config_file), "--run-dir", str(folder), *passthrough]
        resume = [*TRAIN, "--resume", str(folder), "--total-timesteps", str(target), *passthrough]
        if not folder.exists() or (
            folder.is_dir() and not folder.is_symlink() and not any(p.name != LOCK for p in folder.iterdir())
        ):
            steps.append(Step(stage, "new", "not started", new))
            continue
        run_folder.check_root(folder, f"stage {stage.label}")
        if not (folder / run_folder.MARKER).is_file():
            raise InputError(
                f"stage {stage.label}: {folder} holds files but no {run_folder.MARKER}: not a run folder; remove it "
                "to run the stage"
            )
        resumable = any(os.path.lexists(folder / name) for name in run_folder.RESUMABLE)
        if not (folder / "config.yaml").is_file() and not resumable:  # stopped as it began
            steps.append(Step(stage, "restart", "stopped before its first evaluation: run again", [*new, "--force"]))
            continue
        ran = comparable(load_config(folder / "config.yaml"))
        if ran != comparable(config):
            changed = sorted(k for k in set(ran) | set(comparable(config)) if ran.get(k) != comparable(config).get(k))
            raise InputError(
                f"stage {stage.label}: {folder} ran another config than the stage's now (it differs in {changed}): "
                f"put the stage's config back, or remove {folder} and the later stages' folders to train them again"
            )
        start = start_path(stage, run_dir, stages)
        if start is not None:
            recorded = record["starts"].get(stage.label)
            current = card_digest(start) if start.is_file() else None
            if recorded != current:
                raise InputError(
                    f"stage {stage.label}: {folder} started from another model than {start} is now (its SHA-256 in "
                    f"{run_dir / RECORD} differs): remove {folder} and the later stages' folders to train them from it"
                )
        summary = folder / "summary.json"
        if summary.is_file():
            steps_done = read_json(summary, "run summary").get("timesteps")
            if isinstance(steps_done, int) and steps_done >= target:
                steps.append(Step(stage, "done", f"finished at {steps_done:,} steps", []))
            else:
                steps.append(Step(stage, "resume", f"finished at {short(steps_done)} steps, on to {target:,}", resume))
        elif resumable:
            steps.append(Step(stage, "resume", f"unfinished, on to {target:,} steps from its latest zip", resume))
        else:
            steps.append(Step(stage, "restart", "stopped before its first evaluation: run again", [*new, "--force"]))
    return steps


def run_stage(argv: list[str]) -> int:
    """One stage's ``ckc-train``, in a process of its own; its exit status."""
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return subprocess.run(argv, env=env).returncode


def run_stages(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    pipeline: Path,
    stages: list[Stage],
    run_dir: Path,
    record: dict[str, Any],
    steps: list[Step],
    passthrough: list[str],
) -> None:
    """Each stage that is not done, in order, in a process of its own (``--plan``: only said)."""
    cli.say(f"ckc-train-pipeline: {pipeline}, {len(stages)} stages, in {run_dir}", flush=True)
    for step in steps:
        print(f"  {step.stage.label:<24} {step.action:<8} {step.why}", flush=True)
    if args.plan:
        for step in steps:
            if step.argv:
                print(f"{step.stage.label}: {shlex.join(step.argv)}")
        return
    write_atomic(run_dir / RECORD, json.dumps(record, indent=2) + "\n")
    for k in range(len(stages)):
        try:  # planned again once the stages before it have run: its start is known, and checked, now
            step = plan(stages, run_dir, record, passthrough)[k]
        except ValueError as exc:
            cli.fail(parser, exc)
        if step.action == "done":
            continue
        stage = step.stage
        if step.action in ("new", "restart"):
            config_file = run_dir / f"{stage.label}.yaml"
            set_here = [
                key
                for key, given in (("init_from", stage.init_from), ("total_timesteps", stage.total_timesteps))
                if given
            ]
            header = (
                f"# stage {stage.index + 1} of {pipeline} ({stage.name}), written by ckc-train-pipeline: {stage.config}"
            )
            header += f", {' and '.join(set_here)} set by the pipeline\n" if set_here else "\n"
            write_atomic(config_file, header + yaml.safe_dump(derived(stage, run_dir, stages), sort_keys=False))
            start = start_path(stage, run_dir, stages)
            if start is not None:
                record["starts"][stage.label] = card_digest(start)
                write_atomic(run_dir / RECORD, json.dumps(record, indent=2) + "\n")
        print(
            f"== stage {stage.index + 1}/{len(stages)} {stage.name} ({step.action}): {shlex.join(step.argv)}",
            flush=True,
        )
        status = run_stage(step.argv)
        if status != 0:
            print(
                f"ckc-train-pipeline: stage {stage.label} ended with exit status {status}; give the same command "
                "again to go on from there",
                file=sys.stderr,
            )
            sys.exit(status)


def main(argv: list[str] | None = None) -> Path | None:
    parser = argparse.ArgumentParser(
        prog="ckc-train-pipeline", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "pipeline", help=f"a pipeline preset ({', '.join(configs.names('pipelines'))}) or a pipeline YAML file"
    )
    parser.add_argument("--run-dir", required=True, help="the pipeline's folder: one run folder per stage inside")
    parser.add_argument("--plan", action="store_true", help="print each stage's state and command, run nothing")
    parser.add_argument("--no-progress", action="store_true", help="passed on to ckc-train")
    parser.add_argument("--trust-checkpoint", action="store_true", help="passed on to ckc-train")
    args = parser.parse_args(argv)
    passthrough = [
        flag for flag, on in (("--no-progress", args.no_progress), ("--trust-checkpoint", args.trust_checkpoint)) if on
    ]
    run_dir = Path(args.run_dir)
    lock = None
    try:
        pipeline = configs.preset("pipelines", args.pipeline)
        stages = load_pipeline(pipeline)
        run_folder.check_root(run_dir, "--run-dir")
        if run_dir.is_dir() and not args.plan:  # one pipeline at a time in a folder (its stages' runs hold their own)
            lock = FolderLock(run_dir, "--run-dir").acquire()
        record = open_folder(run_dir, pipeline)
        steps = plan(stages, run_dir, record, passthrough)
        if lock is None and not args.plan:  # a new pipeline folder: made, locked, and still free
            run_dir.mkdir(parents=True, exist_ok=True)
            lock = FolderLock(run_dir, "--run-dir").acquire()
            record = open_folder(run_dir, pipeline)
    except ValueError as exc:
        if lock is not None:
            lock.release()
        cli.fail(parser, exc)
    try:
        run_stages(args, parser, pipeline, stages, run_dir, record, steps, passthrough)
    finally:  # the folder's lock let go, however the command ends
        if lock is not None:
            lock.release()
    if args.plan:
        return None
    last = run_dir / stages[-1].label
    print(f"ckc-train-pipeline: every stage is done; the pipeline's agent: {last} (it plays as its best model)")
    return last


def command() -> None:
    """The ``ckc-train-pipeline`` command (``main`` returns the last stage's folder)."""
    main()


if __name__ == "__main__":
    command()
