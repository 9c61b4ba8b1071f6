"""ckc-env: the card deduction game Checkpoint Charlie as a PettingZoo AEC environment.

    import ckc_env
    aec = ckc_env.env(num_players=5, stasi=True)

The rules engine (``ckc_env.engine``) needs NumPy only; the PettingZoo adapter
(``ckc_env.envs.aec``, whose docstring is the env card) and the gymnasium view
(``CheckpointCharlie-v0``, registered when gymnasium is installed) are loaded when first asked for.
"""

from .config import GameConfig
from .engine.actions import N_ACTIONS, action_to_string
from .engine.state import GameState
from .engine.view import PlayerView

__all__ = ["N_ACTIONS", "GameConfig", "GameState", "PlayerView", "action_to_string", "env", "raw_env"]
__version__ = "0.2.0"


def __getattr__(name: str):
    """``env`` and ``raw_env`` import PettingZoo on first use, so that the engine works without it."""
    if name in ("env", "raw_env"):
        from .envs import aec as checkpoint_charlie

        return getattr(checkpoint_charlie, name)
    raise AttributeError(f"module 'ckc_env' has no attribute {name!r}")


def _register_gymnasium_view() -> None:
    try:
        import gymnasium
    except ImportError:  # the engine alone: nothing to register
        return
    if "CheckpointCharlie-v0" not in gymnasium.registry:
        gymnasium.register(
            id="CheckpointCharlie-v0", entry_point="ckc_env.envs.single_agent:CheckpointCharlieSingleAgent"
        )


_register_gymnasium_view()
