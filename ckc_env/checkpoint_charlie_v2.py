"""``checkpoint_charlie_v2``: the versioned entry point, in PettingZoo's naming convention."""

from .envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
