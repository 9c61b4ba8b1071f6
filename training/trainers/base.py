"""What a trainer provides, and the run every trainer goes through.

A trainer holds a model and the environments it learns on (``sb3``: stable-baselines3's
MaskablePPO on the CPU, :mod:`.sb3`; ``jax``: PPO compiled whole on the device, :mod:`.jax`). What
it must provide is :class:`Trainer`'s: build itself from the config (or from a run's resume
point), give a new run its start policy, learn up to ``total_timesteps`` (calling
:meth:`Run.evaluate` when an evaluation is due), save its model as a safe agent file and save the
state a ``--resume`` continues from. Everything around it is the same for every trainer and is
written once, in :func:`train`: the run folder's records, the evaluations and the best model
(:mod:`training.evaluation`), the clock, the final model and the summary. What a trainer does not
train is refused with the config, in one place (:mod:`training.config.engines`).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

from ckc_env import cli
from ckc_env.files import write_atomic

from ..config import TrainConfig
from ..evaluation import Clock, Evaluations, evaluation_record, first_table
from ..evaluation.evaluations import figures
from ..run import folder as run_folder


class Trainer(ABC):
    """A backend of ``ckc-train``: one model learning on one config's environments."""

    engine: ClassVar[str]
    """The config's ``engine`` this trainer trains."""
    evaluation_engine: ClassVar[str] = "auto"
    """The tournaments' engine of its evaluations (``"jax"``: on the device)."""

    timesteps: int
    """Learner steps so far (a resumed run's from its resume point)."""

    def __init__(
        self, config: TrainConfig, run_dir: Path, trust_checkpoint: bool = False, progress: bool = False
    ) -> None:
        self.config, self.run_dir = config, run_dir
        self.trust_checkpoint, self.progress = trust_checkpoint, progress

    # ---------------------------------------------------------------------------------------- a run's stages
    @abstractmethod
    def start(self, resume_from: Path | None) -> None:
        """Build the environments and the model: fresh from the config's seed, or from
        ``resume_from`` (the run's own zip or train state, checked)."""

    def begin(self) -> None:
        """A new run's start policy, before its first evaluation (behaviour cloning, ``init_from``)."""

    def started(self) -> None:
        """A new run after its first evaluation (the fine-tuning pieces that need the start model)."""

    def resumed(self) -> None:
        """A resumed run, before it changes a byte of its folder."""

    @abstractmethod
    def learn(self, run: Run) -> None:
        """Roll out and update until ``config.total_timesteps`` learner steps, calling
        :meth:`Run.evaluate` whenever an evaluation is due."""

    # ---------------------------------------------------------------------------------------- what it writes
    @abstractmethod
    def save(self, prefix: Path, evaluation: dict[str, Any] | None = None, resumable: bool = True) -> Path:
        """The model as a safe agent file (``prefix.json`` + ``.safetensors``), and with
        ``resumable`` what a resume may start from beside it; the card's path."""

    @abstractmethod
    def save_state(self) -> None:
        """The state ``--resume`` continues from (stable-baselines3's zip, the JAX train state)."""

    def evaluated(self) -> None:
        """After each evaluation."""

    def record(self, tag: str, value: float) -> None:
        """A figure of an evaluation, for the trainer's log (TensorBoard)."""

    def summary(self) -> dict[str, Any]:
        """What the run's ``summary.json`` holds besides the steps, the time and the best model."""
        return {}

    def close(self) -> None:
        """Let go of the environments and whatever the trainer holds."""


class Run:
    """What every trainer's run shares: its history of evaluations, its clock, the evaluations."""

    def __init__(self, trainer: Trainer, history: list[dict[str, Any]]) -> None:
        self.trainer, self.history = trainer, history
        self.clock = Clock(history[-1].get("elapsed_seconds", 0.0) if history else 0.0)
        config = trainer.config
        self.evaluations = Evaluations(
            config,
            trainer.run_dir,
            history,
            self.clock,
            lambda prefix, evaluation=None: trainer.save(prefix, evaluation),
            trainer.trust_checkpoint,
            engine=trainer.evaluation_engine,
        )

    def evaluate(self) -> dict[str, Any]:
        """Evaluate the trainer's model at its step count (the entry appended to the history)."""
        entry = self.evaluations.run(self.trainer.timesteps, self.trainer.record)
        self.trainer.evaluated()
        return entry


def train(
    trainer: Trainer,
    history: list[dict[str, Any]],
    resume_from: Path | None = None,
    plan: run_folder.NewRun | None = None,
) -> Path:
    """A run, its inputs checked: the trainer built, the start evaluated (a new run's start policy
    first), the learning with its evaluations, the final model and the summary. ``plan``: a new
    run's folder, told when the run has started (its first model evaluated)."""
    config, run_dir = trainer.config, trainer.run_dir
    try:
        if resume_from is None:  # a new run: its folder holds nothing else yet
            run_folder.record_run(config, run_dir)
        trainer.start(resume_from)
        run = Run(trainer, history)
        if trainer.timesteps == 0 and not history:  # the start of the curve: the initial or cloned policy
            trainer.begin()
            run.evaluate()
            if plan is not None:  # the new run has started: a run it replaces goes
                plan.started()
            trainer.started()
        else:
            trainer.resumed()
        if resume_from is not None:  # the model read: only now does the resumed run change a byte
            run_folder.sweep(run_dir)  # what a save killed mid-write left
            run_folder.record_run(config, run_dir)
        trainer.learn(run)
        # the final model: evaluated unless the last evaluation was of it
        trainer.save_state()
        if not history or history[-1]["timesteps"] < trainer.timesteps:
            run.evaluate()
        final = evaluation_record(config, history, trainer.timesteps)
        trainer.save(run_dir / "final_model", final, resumable=False)
        extra = trainer.summary()  # the device (before the best model), the population (after it)
        summary = {
            "timesteps": trainer.timesteps,
            "wall_clock_seconds": run.clock.elapsed(),
            **{key: value for key, value in extra.items() if key != "population"},
            "best": max(history, key=lambda h: h["results"][first_table(config)]["win_rate"]),
            **({"population": extra["population"]} if "population" in extra else {}),
        }
        write_atomic(run_dir / "summary.json", json.dumps(summary, indent=2))
    finally:
        trainer.close()
    cli.say(f"final model (step {history[-1]['timesteps']}): win rate {figures(history[-1])}")
    cli.say(f"run folder: {run_dir}")
    return run_dir
