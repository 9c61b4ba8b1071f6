"""Checkpoint Charlie as an OpenSpiel game (the ``openspiel`` extra), a module per role; only ``game``
and ``bots`` import ``pyspiel``, and the engine knows nothing of OpenSpiel.

    import pyspiel
    import ckc_env.envs.openspiel  # registers "checkpoint_charlie" with pyspiel
    game = pyspiel.load_game("checkpoint_charlie", {"players": 4, "stasi": True})

| module | role |
|---|---|
| ``parameters`` | the game's parameters, read into a ``GameConfig`` and a reward scheme by the table's checks |
| ``chance`` | the chance model: the engine's chance questions as chance nodes with exact probabilities |
| ``course`` | what a state holds, and how an action moves it on through the chance nodes |
| ``text`` | the observation and information state strings |
| ``game`` | Game, State and Observer; registers the game and checks its parameters on ``pyspiel.load_game`` |
| ``bots`` | OpenSpiel's bots (ISMCTS) as ckc_env players: ``openspiel_ismcts`` |
"""

from .bots import (
    ISMCTS_NAME,
    MAX_ROLLOUTS,
    MAX_SIMULATIONS,
    BotFactory,
    ISMCTSAgent,
    OpenSpielAgent,
    RandomRollouts,
    check_ismcts,
    ismcts_bot,
    register_agents,
    state_for_seat,
)
from .game import CheckpointCharlieGame, CheckpointCharlieObserver, CheckpointCharlieState, load, load_game
from .parameters import GAME_NAME, PARAMETERS, chip_pool_text, config_of, parameters_of, parse_chip_pool

__all__ = [
    "GAME_NAME", "ISMCTS_NAME", "MAX_ROLLOUTS", "MAX_SIMULATIONS", "PARAMETERS", "BotFactory", "CheckpointCharlieGame",
    "CheckpointCharlieObserver", "CheckpointCharlieState", "ISMCTSAgent", "OpenSpielAgent", "RandomRollouts",
    "check_ismcts", "chip_pool_text", "config_of", "ismcts_bot", "load", "load_game", "parameters_of",
    "parse_chip_pool", "register_agents", "state_for_seat",
]  # fmt: skip
