"""Scalar games and a batch playing the same games, step by step.

Both engines draw their chance outcomes from one model (``ckc_env.engine.chance``): a game seeded
``s`` is the same game on both. :class:`Lockstep` keeps one scalar
:class:`~ckc_env.engine.state.GameState` per slot beside a batch seeded with the same seeds, and
sends every action to both, so everything they compute can be compared bit for bit (the
differential test does; so can anyone replaying games of their own)::

    lock = Lockstep(GameConfig(num_players=4, stasi=True), seeds=range(8))
    while ...:
        masks = lock.legal_action_mask()          # equal to each scalar legal_mask
        lock.step(actions)                        # both engines
        lock.games[b], lock.state                 # the scalar games, the batch

With ``autoreset``, a slot whose game ends starts its next game in both engines (the scalar one
with the batch's next key, ``chance.next_key``). ``options`` gives the first games scalar reset
options (``engine.options``): a deal fixed by hand reaches the batch as fixed outcomes
(:class:`~ckc_env.batch.chance.FixedDeals`), which is how the batch plays positions set up for a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import engine
from ..config import GameConfig
from ..engine.chance import next_key
from ..engine.state import GameState
from . import game as batch_game
from .chance import FixedDeals
from .state import BatchState


class Lockstep:
    """Scalar games and a batch of the same games (see the module docstring)."""

    def __init__(
        self,
        config: GameConfig,
        seeds: Sequence[int],
        num_players: Sequence[int] | None = None,
        autoreset: bool = False,
        options: Sequence[Mapping[str, Any] | None] | None = None,
    ) -> None:
        self.seeds = [int(s) for s in seeds]
        self.autoreset = autoreset
        counts = list(num_players) if num_players is not None else [config.num_players] * len(self.seeds)
        self.configs = [GameConfig(**{**config.to_dict(), "num_players": k}) for k in counts]
        self.options = list(options) if options is not None else [None] * len(self.seeds)
        self.chance = FixedDeals(len(self.seeds))
        self.games: list[GameState] = []
        for b, seed in enumerate(self.seeds):
            game = engine.init(self.configs[b], seed=seed, options=self.options[b])
            if self.options[b]:  # the parts the options fixed, as the scalar game holds them
                self.chance.fix(b, "supply", [list(chips) for chips in game.supply])
                if self.configs[b].first_player == "random":
                    self.chance.fix(b, "first_player", game.first_player)
                self._fix_deal(b, game)
            self.games.append(game)
        self.state: BatchState = batch_game.init(config, seeds=self.seeds, num_players=counts, chance=self.chance)

    def _fix_deal(self, b: int, game: GameState) -> None:
        clues = list(game.clues) if game.config.clue_face == "random" else None
        self.chance.fix(b, "deal", (list(game.tiles), clues, list(game.bag), list(game.deck)))

    def legal_action_mask(self) -> np.ndarray:
        return batch_game.legal_action_mask(self.state)

    def step(self, actions: Sequence[int]) -> None:
        """Apply ``actions[b]`` in slot b's scalar game and in the batch (games over ignore theirs)."""
        actions = np.asarray(actions, dtype=np.int64)
        for b, game in enumerate(self.games):
            if game.game_over:
                continue
            round_index = game.round_index
            engine.step(game, int(actions[b]))
            if self.options[b] and game.round_index != round_index and not game.game_over:
                self._fix_deal(b, game)  # later rounds the options may fix too
            if game.game_over and self.autoreset:
                self.options[b] = None
                self.games[b] = engine.init(self.configs[b], key=next_key(game.stream.key))
        batch_game.step(self.state, actions, autoreset=self.autoreset)
