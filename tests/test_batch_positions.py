"""Scalar positions in a batch and back (``ckc_env.batch.positions``).

Scalar games and a batch play the same games (``batch.replay.Lockstep``); at positions along the
way, every case of the engine's differential test:

- ``from_games`` of the scalar games equals the batch, array by array (the Cafe Adler chips' stamps
  by their order within each seat, the only order the rules read);
- ``to_game`` of each batch game equals the scalar game, field by field (each seat's chips as a
  set and its Adler chips in order; the record of finished rounds is not the batch's to give);
- a batch made by ``from_games`` plays on as the scalar games do: with the same actions, every
  legal mask, state vector and observation (the players' posterior included, read afresh from the
  converted round) and every reward equal, bit for bit, until the games end.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_batch_engine import CASES, _actions, _bits

from ckc_env import batch, engine
from ckc_env.batch.positions import from_games, to_game
from ckc_env.batch.replay import Lockstep
from ckc_env.batch.state import ARRAYS
from ckc_env.config import GameConfig
from ckc_env.engine.chance import Stream, StreamChance
from ckc_env.engine.chips import ADLER
from ckc_env.engine.state import SCORING, GameState
from ckc_env.observation import OBSERVATION, OBSERVATION_WITH_PLAYER_BELIEFS, encode_observation, encode_state
from ckc_env.resample import resample

NOT_A_POSITION = {
    "rewards",
    "terminated",
    "round_ended",
    "adler_stamp",
    "adler_clock",
    "queue",
    "queue_len",
    "queue_pos",
}
"""What the last call reported (not a position's); the stamps, compared by their order; the queue,
compared by the seats still to be asked (the scalar forced accusations list only the seats that
have not accused, the batch's every seat, skipping those that have)."""
NOT_THE_BATCHS = {
    "summaries",
    "options",
    "stream",
    "chance",
    "pool",
    "config",
    "holdings",
    "rewards",
    "queue",
    "queue_pos",
}
"""The record of finished rounds, the set-up (compared apart), holdings (as sets, and their Adler
order), the rewards not yet paid (the batch's are the last call's) and the queue (by the seats
still to be asked)."""


def _adler_order(state: batch.BatchState, b: int) -> list[list[int]]:
    """Each seat's Cafe Adler chips in the order the rules offer them."""
    rules, out = state.rules, []
    for seat in range(int(state.n[b])):
        held = [int(c) for c in rules.adler_ids if c >= 0 and int(state.holdings[b, seat]) >> int(c) & 1]
        out.append(sorted(held, key=lambda c: state.adler_stamp[b, rules.adler_index[c]]))
    return out


COUNTED = {
    "supply": "supply_len", "served_seat": "served_count", "served_cat": "served_count",
    "served_colour": "served_count", "served_chip": "served_count", "swap_seat": "swap_count",
    "swap_other": "swap_count", "swap_colour": "swap_count", "accusation_seat": "accusation_count",
    "accusation_cat": "accusation_count", "card_drawer": "deck_pos", "deck": "deck_len",
}  # fmt: skip
"""Lists kept as arrays with a count: entries past it are left over from before, not the position's."""


def _meaningful(state: batch.BatchState, name: str) -> np.ndarray:
    value = getattr(state, name).astype(np.int64)
    if name in COUNTED:
        count = getattr(state, COUNTED[name]).astype(np.int64)
        value = np.where(np.arange(value.shape[-1]) < count[..., None], value, -1)
    return value


def _same_batch(got: batch.BatchState, want: batch.BatchState) -> None:
    for f in ARRAYS:
        if f.name not in NOT_A_POSITION:
            a, b = _meaningful(got, f.name), _meaningful(want, f.name)
            bad = np.flatnonzero((a != b).reshape(len(a), -1).any(1))
            assert not len(bad), f"{f.name}: games {bad.tolist()} differ"
    for b in range(want.batch_size):
        assert _adler_order(got, b) == _adler_order(want, b)
        assert _to_ask(got, b) == _to_ask(want, b), b


def _to_ask(state: batch.BatchState, b: int) -> list[int]:
    queue = state.queue[b, state.queue_pos[b] : state.queue_len[b]]
    return [int(s) for s in queue if state.phase[b] >= SCORING or state.accused_by[b, s] < 0]


def _same_game(got: GameState, want: GameState) -> None:
    for f in dataclasses.fields(GameState):
        if f.name not in NOT_THE_BATCHS:
            assert getattr(got, f.name) == getattr(want, f.name), f.name
    assert (got.stream.key, got.stream.counter) == (want.stream.key, want.stream.counter)
    assert got.config == want.config
    assert _still_to_ask(got) == _still_to_ask(want)
    for mine, theirs in zip(got.holdings, want.holdings, strict=True):
        assert sorted(mine) == sorted(theirs)
        assert [c for c in mine if got.pool.kind[c] == ADLER] == [c for c in theirs if want.pool.kind[c] == ADLER]


def _still_to_ask(game: GameState) -> list[int]:
    return [s for s in game.queue[game.queue_pos :] if game.phase >= SCORING or game.accused_by[s] < 0]


def _play_on(games: list[GameState], rng: np.random.Generator, steps: int) -> None:
    """``from_games(games)`` and the scalar games stepped with the same actions, compared at each step."""
    games = [game.copy() for game in games]
    state = from_games(games)
    for game in games:
        engine.pop_rewards(game)  # what was won before the position is not its
    pass_probability = np.full(len(games), 0.9)
    for _ in range(steps):
        masks = batch.legal_action_mask(state)
        vectors = batch.encode_state(state)
        seats = np.maximum(state.current_seat, 0)
        observed = {
            layout.size: batch.observe(state, seats, layout)
            for layout in (OBSERVATION, OBSERVATION_WITH_PLAYER_BELIEFS)
        }
        for b, game in enumerate(games):
            assert np.array_equal(masks[b], engine.legal_mask(game))
            assert np.array_equal(_bits(vectors[b]), _bits(encode_state(game)))
            if not game.game_over:
                for layout in (OBSERVATION, OBSERVATION_WITH_PLAYER_BELIEFS):
                    want = encode_observation(game, int(seats[b]), layout)
                    assert np.array_equal(_bits(observed[layout.size][b]), _bits(want)), (b, layout.size)
        if state.game_over.all():
            return
        actions = _actions(_Pair(state), rng, pass_probability)
        for b, game in enumerate(games):
            if not game.game_over:
                engine.step(game, int(actions[b]))
        batch.step(state, actions)
        for b, game in enumerate(games):
            assert np.array_equal(state.rewards[b, : game.n], engine.pop_rewards(game)), b


class _Pair:
    """What ``test_batch_engine._actions`` reads of a lockstep: its batch."""

    def __init__(self, state: batch.BatchState) -> None:
        self.state = state


@pytest.mark.parametrize("name", sorted(CASES))
def test_positions_go_into_a_batch_and_back(name):
    config, counts = CASES[name]
    games = 8
    lock = Lockstep(config, seeds=range(31, 31 + games), num_players=counts and counts[:games], autoreset=True)
    rng = np.random.default_rng(3)
    pass_probability = np.full(games, 0.95)
    for step in range(120):
        if step % 40 == 7:
            _same_batch(from_games(lock.games), lock.state)
            for b, game in enumerate(lock.games):
                _same_game(to_game(lock.state, b), game)
            _play_on(lock.games, rng, steps=40)
        lock.step(_actions(lock, rng, pass_probability))


def test_resampled_worlds_play_on_in_a_batch():
    """Worlds drawn from a seat's information set mid-round: one batch, the same games."""
    lock = Lockstep(GameConfig(num_players=4, stasi=True, cafe_adler=True), seeds=range(5), autoreset=True)
    rng = np.random.default_rng(8)
    for _ in range(30):
        lock.step(_actions(lock, rng, np.full(5, 0.9)))
    draw = np.random.default_rng(1).random
    worlds = [resample(game, max(game.current_seat, 0), draw) for game in lock.games for _ in range(3)]
    _play_on(worlds, rng, steps=400)


def test_bad_positions_are_refused_by_name():
    with pytest.raises(ValueError, match="at least one position"):
        from_games([])
    with pytest.raises(ValueError, match="position 0 is a dict"):
        from_games([{}])
    own = engine.init(GameConfig(num_players=3), seed=1, chance_source=StreamChance(Stream(5)))
    with pytest.raises(ValueError, match="position 0 draws its chance outcomes from StreamChance, not its stream"):
        from_games([own])
    later = engine.init(GameConfig(num_players=3), seed=1, options={"rounds": [{}, {}]})
    with pytest.raises(ValueError, match="position 0 has reset options fixing round 2"):
        from_games([later])
    state = from_games([engine.init(GameConfig(num_players=3), seed=1)])
    with pytest.raises(ValueError, match="game 1 is not in a batch of 1"):
        to_game(state, 1)
    with pytest.raises(ValueError, match="num_players"):
        from_games(
            [engine.init(GameConfig(num_players=3), seed=1), engine.init(GameConfig(num_players=3, stasi=True), seed=1)]
        )
