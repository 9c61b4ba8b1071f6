"""The largest values a training config or a run's files may hold, declared once (the games and
worker processes of any command: :mod:`ckc_env.cli`'s ``MAX_GAMES`` and ``MAX_WORKERS``).

Each bounds what could not fit or could not finish on any machine our users train on, and is
checked before anything is allocated (the config's validation, ``--resume``'s reading of a zip):
a value past one is refused with the key, the value and the accepted range, not met later as a
``MemoryError``, an aborted thread pool or a run that never ends.
"""

from __future__ import annotations

from ckc_env.cli import MAX_GAMES, MAX_WORKERS

__all__ = [
    "MAX_BUFFER_BYTES",
    "MAX_COUNT",
    "MAX_EPOCHS",
    "MAX_GAMES",
    "MAX_KEEP",
    "MAX_LAYERS",
    "MAX_NUM_ENVS",
    "MAX_N_ENVS",
    "MAX_PARAMETERS",
    "MAX_SEED",
    "MAX_THREADS",
    "MAX_TIMESTEPS",
    "MAX_WIDTH",
    "MAX_WORKERS",
]

MAX_SEED = 2**32 - 1
"""Seeds: NumPy's legacy seeding (stable-baselines3's ``set_random_seed``) takes 32 bits."""
MAX_TIMESTEPS = 10**12
"""Learner steps (``total_timesteps``, step intervals, a resumed zip's counters): a trillion."""
MAX_COUNT = MAX_TIMESTEPS
"""Any other count a config holds, unless a tighter limit below applies."""
MAX_NUM_ENVS = 65_536
"""``vector.num_envs``: games stepped at once on the NumPy batched engine."""
MAX_N_ENVS = 256
"""``n_envs``: scalar environments, one process each."""
MAX_THREADS = 256
"""``vector.threads``: torch (OpenMP) threads; libgomp aborts on far more than a machine has."""
MAX_BUFFER_BYTES = 8 << 30
"""A rollout (``ppo.n_steps`` x slots) or a pretraining / critic-fit set held in memory: 8 GiB of
float32 observations, masks and returns."""
MAX_PARAMETERS = 50_000_000
"""The policy and value networks' weights together (``policy.net_arch``): 200 MB of float32."""
MAX_LAYERS = 16
"""Hidden layers per network."""
MAX_WIDTH = 4096
"""Units per hidden layer."""
MAX_EPOCHS = 10_000
"""Passes over a rollout or a pretraining set."""
MAX_KEEP = 1_000
"""``self_play.keep``: snapshots kept on disk."""
