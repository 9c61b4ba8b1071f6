"""ckc-env: the card deduction game Checkpoint Charlie as a PettingZoo AEC environment.

    import ckc_env
    aec = ckc_env.env(num_players=5, stasi=True)

The rules engine (``ckc_env.engine``) needs NumPy only; the PettingZoo adapter
(``ckc_env.envs.aec``, whose docstring is the env card) and the gymnasium view
(``CheckpointCharlie-v1``, registered when gymnasium is installed) are loaded when first asked for.
"""

from importlib import metadata as _metadata

from .config import GameConfig
from .engine.actions import N_ACTIONS, action_to_string
from .engine.state import GameState
from .engine.view import PlayerView

__all__ = [
    "N_ACTIONS",
    "GameConfig",
    "GameState",
    "PlayerView",
    "action_to_string",
    "checkpoint_charlie_v2",
    "env",
    "raw_env",
]
try:
    __version__ = _metadata.version("ckc-env")
except _metadata.PackageNotFoundError:  # a checkout used without installing it
    __version__ = "0+unknown"


def __getattr__(name: str):
    """``env`` and ``raw_env`` import PettingZoo on first use, so that the engine works without it."""
    if name in ("env", "raw_env"):
        from .envs import aec

        return getattr(aec, name)
    if name == "checkpoint_charlie_v2":  # the versioned module the env card names, as an attribute
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'ckc_env' has no attribute {name!r}")


def _register_gymnasium_view() -> None:
    try:
        import gymnasium
    except ImportError:  # the engine alone: nothing to register
        return
    if "CheckpointCharlie-v1" not in gymnasium.registry:
        gymnasium.register(
            id="CheckpointCharlie-v1",
            entry_point="ckc_env.envs.single_agent:CheckpointCharlieSingleAgent",
            vector_entry_point="ckc_env.envs.vector:gymnasium_vector_entry",
        )


_register_gymnasium_view()
