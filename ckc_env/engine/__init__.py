"""The rules engine: plain data and functions, NumPy only (no PettingZoo, gymnasium or torch).

    from ckc_env.config import GameConfig
    from ckc_env.engine import init, legal_actions, step

    state = init(GameConfig(num_players=4), seed=7)
    while not state.game_over:
        step(state, legal_actions(state)[0])

| module | RULES.md |
|---|---|
| ``state`` | the whole state of a game, declared once (``GameState``) |
| ``cards`` | 1 components: cats, features, clues; 3 chief and assistants |
| ``chips`` | 1 score chips, 2 the supply, 7/8 the variants' chips |
| ``options`` | reset options that fix a deal |
| ``round_setup`` | 3 round set-up |
| ``suspicion`` | 4 suspicion phase: draws, rows and discards, accusations, windows |
| ``scoring`` | 5 scoring, 6 game end, 7 Stasi chip, 8 Cafe Adler swaps |
| ``summary`` | the public record of a finished round |
| ``game`` | the state machine that runs them round after round: ``init``, ``step``, ``legal_actions`` |
| ``view`` | what one seat can know (read by observations and agents) |
| ``actions`` | the action table |
"""

from .actions import N_ACTIONS, action_to_string
from .game import apply, init, is_legal, legal_actions, legal_mask, pop_rewards, step
from .state import GameState
from .view import PlayerView

__all__ = [
    "N_ACTIONS",
    "GameState",
    "PlayerView",
    "action_to_string",
    "apply",
    "init",
    "is_legal",
    "legal_actions",
    "legal_mask",
    "pop_rewards",
    "step",
]
