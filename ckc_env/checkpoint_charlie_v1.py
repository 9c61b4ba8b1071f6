"""``checkpoint_charlie_v1``: the versioned entry point, in PettingZoo's naming convention."""

from .checkpoint_charlie import env, raw_env

__all__ = ["env", "raw_env"]
