"""The trainers behind one interface (:mod:`.base`): ``sb3`` (stable-baselines3's MaskablePPO on the
CPU), ``jax`` (PPO compiled whole on the device) and ``rllib`` (Ray RLlib's PPO, ``ckc-rllib-train``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def make_trainer(config: Any, run_dir: Path, trust_checkpoint: bool = False, progress: bool = False) -> Any:
    """The trainer of the config's ``engine`` (its backend imported only now: torch or JAX)."""
    if config.engine == "jax":
        from .jax.trainer import JAXTrainer

        return JAXTrainer(config, run_dir, trust_checkpoint, progress)
    from .sb3.trainer import SB3Trainer

    return SB3Trainer(config, run_dir, trust_checkpoint, progress)
