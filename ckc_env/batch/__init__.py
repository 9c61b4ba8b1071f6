"""The batched engine (draft docstring)."""

from .game import apply, init, legal_action_mask, reset, rewards, step
from .observation import encode_state, observe
from .state import BatchState

__all__ = ["BatchState", "apply", "encode_state", "init", "legal_action_mask", "observe", "reset", "rewards", "step"]
