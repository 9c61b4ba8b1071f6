"""Replay injection: scalar games and a batch playing the same games, step by step.

:class:`Lockstep` keeps one scalar :class:`~ckc_env.engine.state.GameState` per slot beside a
batch driven by a :class:`~ckc_env.batch.chance.ReplayChance`. Every action goes to both; after
each scalar step the chance outcomes that step drew (a new round's deal, the orders of the
accusation windows it opened, where the Stasi chip went back, which chip a Cafe Adler swap took;
at a game's start the supply and the first player) are read off the scalar state and queued for
the batch, which then asks for exactly those. Both engines thus play the same deals and the same
actions, and everything they compute from them can be compared bit for bit (the differential
test does; so can anyone replaying games of their own)::

    lock = Lockstep(GameConfig(num_players=4, stasi=True), seeds=range(8))
    while ...:
        masks = lock.legal_action_mask()          # equal to each scalar legal_mask
        lock.step(actions)                        # both engines
        lock.games[b], lock.state                 # the scalar games, the batch

With ``autoreset``, a slot whose game ends starts its next game (scalar seed
``derive_seed(seeds[b], "next", k)`` for its k-th next game) in both engines. ``options`` gives the
first games scalar reset options (``engine.options``): a deal fixed by hand reaches the batch through
the same injection, which is how the batch plays positions set up for a test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import engine
from ..config import BLACK, GameConfig
from ..engine.actions import CAFE_ADLER, KEEP
from ..engine.chips import STASI
from ..engine.state import GameState
from ..engine.suspicion import SEAT_ORDERS
from ..seeding import derive_seed
from . import game as batch_game
from .chance import ReplayChance
from .state import BatchState


class Lockstep:
    """Scalar games and a batch fed their chance outcomes (see the module docstring)."""

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
        self.chance = ReplayChance(len(self.seeds))
        self.games: list[GameState] = []
        self.episodes = [0] * len(self.seeds)
        for b, seed in enumerate(self.seeds):
            self.games.append(self._start(b, seed, options[b] if options is not None else None))
        self.state: BatchState = batch_game.init(config, seeds=self.seeds, num_players=counts, chance=self.chance)

    def _start(self, b: int, seed: int, options: Mapping[str, Any] | None = None) -> GameState:
        """A new scalar game in slot b (``options``: the scalar reset options), its start queued for the batch."""
        game = engine.init(self.configs[b], seed=seed, options=options)
        self.chance.push(b, "supply", [list(chips) for chips in game.supply])
        if self.configs[b].first_player == "random":
            self.chance.push(b, "first_player", game.first_player)
        self._push_deal(b, game)
        self._push_windows(b, game, [], 0, [], 0)
        return game

    def _push_deal(self, b: int, game: GameState) -> None:
        clues = list(game.clues) if game.config.clue_face == "random" else None
        self.chance.push(b, "deal", (list(game.tiles), clues, list(game.bag), list(game.deck)))

    def _push_windows(self, b: int, game: GameState, orders: list[int], used: int, cards: list, drawn: int) -> None:
        """Queue the orders of the random windows opened since (orders, used), one per card drawn."""
        opened = len(cards) - drawn if game.card_order is cards else len(cards) - drawn + len(game.card_order)
        if game.config.window_order != "random":
            return
        if game.window_orders is orders:
            taken = orders[used : game.window_orders_used]
        else:  # the scalar engine drew a new block of 64 orders in between
            taken = orders[used:] + game.window_orders[: game.window_orders_used]
        if len(taken) != opened:
            raise RuntimeError(f"replay: slot {b} opened {opened} windows but drew {len(taken)} orders")
        for index in taken:
            self.chance.push(b, "window_order", SEAT_ORDERS[game.n][index])

    def legal_action_mask(self) -> np.ndarray:
        return batch_game.legal_action_mask(self.state)

    def step(self, actions: Sequence[int]) -> None:
        """Apply ``actions[b]`` in slot b's scalar game and in the batch (games over ignore theirs)."""
        actions = np.asarray(actions, dtype=np.int64)
        for b, game in enumerate(self.games):
            if game.game_over:
                continue
            self._step_scalar(b, game, int(actions[b]))
        batch_game.step(self.state, actions, autoreset=self.autoreset)
        for b in range(len(self.games)):
            if any(self.chance.pending(b).values()):
                raise RuntimeError(f"replay: slot {b} left chance outcomes unused: {self.chance.pending(b)}")

    def _step_scalar(self, b: int, game: GameState, action: int) -> None:
        seat, kind = game.pending_seat, game.pending_kind
        held = Counter(game.holdings[seat])
        round_index, summaries = game.round_index, len(game.summaries)
        orders, used = game.window_orders, game.window_orders_used
        cards, drawn = game.card_order, len(game.card_order)
        engine.step(game, action)
        if kind == CAFE_ADLER and action != KEEP:
            taken = list((Counter(game.holdings[seat]) - held).elements())
            self.chance.push(b, "adler_pick", taken[0])
        if len(game.summaries) > summaries:
            summary = game.summaries[-1]
            if summary["stasi_taken_by"] is not None and not summary["game_over"]:
                stasi = next(c for c in game.supply[BLACK] if game.pool.kind[c] == STASI)
                self.chance.push(b, "stasi_place", game.supply[BLACK].index(stasi))
        if game.round_index != round_index and not game.game_over:
            self._push_deal(b, game)
        self._push_windows(b, game, orders, used, cards, drawn)
        if game.game_over and self.autoreset:
            self.episodes[b] += 1
            self.games[b] = self._start(b, derive_seed(self.seeds[b], "next", self.episodes[b]))
