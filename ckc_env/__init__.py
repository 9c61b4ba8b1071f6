"""ckc-env: the card deduction game Checkpoint Charlie as a PettingZoo AEC environment.

    import ckc_env
    aec = ckc_env.env(num_players=5, stasi=True)

The rules engine (``ckc_env.engine``) is plain Python and NumPy; the PettingZoo adapter is
``ckc_env.checkpoint_charlie`` (its docstring is the env card).
"""

import gymnasium as _gymnasium

from .checkpoint_charlie import env, raw_env
from .config import GameConfig
from .engine.actions import N_ACTIONS, action_to_string
from .engine.game import Game
from .engine.view import PlayerView

if "CheckpointCharlie-v0" not in _gymnasium.registry:
    _gymnasium.register(id="CheckpointCharlie-v0", entry_point="ckc_env.single_agent:CheckpointCharlieSingleAgent")

__all__ = ["N_ACTIONS", "Game", "GameConfig", "PlayerView", "action_to_string", "env", "raw_env"]
__version__ = "0.1.0"
