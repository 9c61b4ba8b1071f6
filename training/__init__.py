"""Training and evaluation tools, installed as ``ckc_env.training`` (this folder).

| module | command | what |
|---|---|---|
| ``evaluate`` | ``ckc-evaluate`` | seeded, seat-rotated tournaments and round robins |
| ``train`` | ``ckc-train`` | MaskablePPO from a YAML config, with evaluations and a run folder |
| ``plots`` | ``ckc-plot`` | win rates with their intervals, training curves (matplotlib: the ``plot`` extra) |
| ``config`` | | the typed, validated training config |
| ``imitation`` | | behaviour cloning from a teacher before PPO |
| ``self_play`` | | frozen snapshots of the learner as opponents |
| ``tune_bayes`` | | the parameter search behind bayes_v1 |
"""
