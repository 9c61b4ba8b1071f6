"""Training tools, installed as ``ckc_env.training`` (this folder), by role:

| folder | holds |
|---|---|
| ``commands/`` | ``ckc-train``, ``ckc-train-pipeline``, ``ckc-best-response``, ``ckc-export``, ``ckc-rllib-train``, and the checks they make first |
| ``config/`` | the configs' schema, declared once (pydantic), what each engine trains, the size limits, the reference page (docs/config.md) |
| ``run/`` | the run folder: its marker, its one writer, ``--force`` and ``--resume``, what a run records |
| ``trainers/`` | the trainer interface and the run every trainer goes through (``base``); ``sb3``, ``jax`` and ``rllib`` |
| ``envs.py`` | the environments a config describes |
| ``evaluation/`` | a run's evaluations, the history and the best model |
| ``league/`` | self-play snapshots and a population drawn by prioritised fictitious self-play |
| ``imitation/`` | behaviour cloning and fine-tuning a cloned or loaded policy |

The evaluation commands (``ckc-evaluate``, ``ckc-ladder``, ``ckc-plot``) stand with evaluation, in
``ckc_env.evaluation.commands``: they need no training extra.
"""
