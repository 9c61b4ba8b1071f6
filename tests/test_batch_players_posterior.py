"""The batched players' posterior (``ckc_env.batch.players_posterior``), batched bayes_v2 and the
``"players"`` observation layout against the scalar ``PlayersReader``
(``ckc_env.reading.players_posterior``), ``BayesV2Agent`` and encoder, on the same positions.

Positions come from scalar games and a batch playing the same games (``batch.replay.Lockstep``),
driven by batched players with some random moves and, often, passes where passing is legal (so
that many rounds reach the forced accusations), over 3, 4 and 5 players, both variants, every
``window_order``, ``reopen_windows``, ``clue_face="choose"`` and ``non_accuser_white="chief_uncaught"``.

- ``test_batched_readers_and_observations_equal_the_scalar_ones``: at every position, for every seat
  holding its clue before scoring, a reader kept across steps gives the scalar reader's likelihoods
  bit for bit (and, every fourth step, so does one reading afresh), and the weighted posterior
  equals ``reading.beliefs.weighted_beliefs`` bit for bit; ``batch.observe`` in
  ``OBSERVATION_WITH_PLAYER_BELIEFS`` equals the scalar encoder with a kept reader (the acting
  seats, every phase) and, every fourth step, with a fresh one (``encode_observation``).
- ``test_a_kept_reading_follows_the_scalar_reader_through_the_forced_accusations``: where the
  scalar reader's result depends on when it was read (a window read before a forced accusation
  counts a pass there), the batched reader follows it.
- ``test_batched_bayes_v2_decides_as_the_scalar_one``: every window and forced accusation of
  batched bayes_v2 (default and other parameters, one agent at several seats) equals the scalar
  agent's, whose reader follows the game; both branches of the rule are taken.
- ``test_tournaments_with_bayes_v2_and_a_players_checkpoint_are_identical_on_both_engines``: the
  per-game results of ``run_tournament`` on the scalar and the batched engine are equal.
- The exact sums equal ``math.fsum``; the vector environment serves the layout; names and
  parameters are checked.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ckc_env import batch, engine
from ckc_env.agents import make_agent
from ckc_env.batch.agents import BATCH_REGISTRY, decide, make_batch_agent
from ckc_env.batch.players_posterior import (
    PlayersReader,
    factor_limbs,
    observed_posterior,
    round_sums,
    weighted_seat_beliefs,
)
from ckc_env.batch.replay import Lockstep
from ckc_env.config import GameConfig
from ckc_env.engine.actions import FORCED_ACCUSATION, PASS, WINDOW
from ckc_env.engine.state import FORCED, SCORING
from ckc_env.engine.view import PlayerView
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.observation import OBSERVATION_WITH_PLAYER_BELIEFS, PLAYERS_FOLLOW, encode_observation, encoder
from ckc_env.players import batch_capable
from ckc_env.reading.bayes_rule import BayesParams
from ckc_env.reading.beliefs import weighted_beliefs
from ckc_env.reading.chip_values import expected_chip_values
from ckc_env.reading.players_posterior import PlayersReader as ScalarPlayersReader

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINT = str(ROOT / "checkpoints" / "ppo_all_counts")
CONFIGS = {
    "3p": GameConfig(num_players=3),
    "4p_stasi_adler_from_drawer": GameConfig(
        num_players=4, stasi=True, cafe_adler=True, window_order="clockwise_from_drawer"
    ),
    "5p_stasi_after_drawer_reopen": GameConfig(
        num_players=5, stasi=True, window_order="clockwise_after_drawer", reopen_windows=True
    ),
    "3p_adler_choose_uncaught_after_drawer": GameConfig(
        num_players=3,
        cafe_adler=True,
        clue_face="choose",
        non_accuser_white="chief_uncaught",
        window_order="clockwise_after_drawer",
    ),
}
DRIVERS = ("bayes_v1", "eager", "bayes_v1", "passive", "cheater")
LAYOUT = OBSERVATION_WITH_PLAYER_BELIEFS
SEATS = 5


def positions(config: GameConfig, games: int, steps: int, seed: int, hold_back: float, lineup=None):
    """Yield the lockstep and the batch's actions before each step of games played by ``lineup``
    (default: batched baselines), one move in ten random and, with chance ``hold_back``, a pass
    wherever passing is legal, with the automatic reset."""
    lock = Lockstep(config, seeds=range(seed, seed + games), autoreset=True)
    if lineup is None:
        lineup = [make_batch_agent(DRIVERS[s], seed=seed + s) for s in range(config.num_players)]
    explore = make_batch_agent("random", seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = decide(lock.state, lineup)
        yield lock, actions
        random_move = rng.random(games) < 0.1
        actions[random_move] = explore.act(lock.state, np.flatnonzero(random_move))
        hold = (rng.random(games) < hold_back) & (lock.state.pending_kind == WINDOW)
        actions[hold] = PASS
        lock.step(actions)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(np.asarray(a).view(np.uint64), np.asarray(b).view(np.uint64))


def _reading(lock: Lockstep, seat: int) -> np.ndarray:
    """The games where ``seat`` holds its clue before scoring: where a reader is brought up to date."""
    return np.array(
        [g for g, game in enumerate(lock.games) if seat < game.n and game.clues[seat] >= 0 and game.phase < SCORING],
        dtype=np.int64,
    )


class ScalarReaders:
    """A scalar reader per slot and seat, new with each game (as an agent gets one per game):
    ``ScalarPlayersReader(seat, params, follow)``, or ``make(seat)`` if given."""

    def __init__(self, params: BayesParams | None = None, follow: float | None = None, make=None) -> None:
        self.make = make if make is not None else (lambda seat: ScalarPlayersReader(seat, params, follow))
        self.readers: dict[tuple[int, int], tuple[object, object]] = {}

    def __call__(self, slot: int, game, seat: int):
        entry = self.readers.get((slot, seat))
        if entry is None or entry[0] is not game:
            entry = self.readers[slot, seat] = (game, self.make(seat))
        return entry[1]


def _compare_readers(lock: Lockstep, kept: PlayersReader, scalar: ScalarReaders, fresh: bool, seen: Counter) -> None:
    state = lock.state
    for seat in range(SEATS):
        games = _reading(lock, seat)
        if not len(games):
            continue
        seats = np.full(len(games), seat)
        likelihood = kept.likelihood(state, games, seats)
        weighted = weighted_seat_beliefs(state, games, seats, likelihood)
        afresh = PlayersReader().likelihood(state, games, seats) if fresh else None
        for i, g in enumerate(games.tolist()):
            game = lock.games[g]
            view = PlayerView(game, seat)
            values = expected_chip_values(view)
            expected = scalar(g, game, seat).update(view, values)
            assert sorted(expected) == [s for s in range(game.n) if s != seat]
            for other, factors in expected.items():
                assert _same(likelihood[i, other], factors), (g, seat, other)
            b = weighted_beliefs(view, expected)
            assert _same(weighted.chief[i], b.chief), (g, seat)
            assert _same(weighted.assistant[i], b.assistant), (g, seat)
            assert _same(weighted.clue[i, : game.n], b.clue), (g, seat)
            assert not weighted.clue[i, game.n :].any()
            assert weighted.assignments[i] == b.assignments
            seen["positions"] += 1
            seen["forced"] += game.phase == FORCED
            seen["accusations"] += len(game.accusations) > 0
            if fresh:
                reread = ScalarPlayersReader(seat, BayesParams(), PLAYERS_FOLLOW).update(view, values)
                for other, factors in reread.items():
                    assert _same(afresh[i, other], factors), (g, seat, other)
                seen["fresh"] += 1
                seen["kept differs from fresh"] += any(not _same(reread[s], expected[s]) for s in expected)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batched_readers_and_observations_equal_the_scalar_ones(name):
    """Kept readers of every seat, brought up to date at every step; the acting seats observed with
    them (``batch.observe(players=...)`` against ``Encoder.observation`` with the scalar reader, in
    every phase); every fourth step, fresh readings and fresh observations of the next seat
    (``batch.observe`` against ``encode_observation``)."""
    config = CONFIGS[name]
    kept = PlayersReader()
    scalar = ScalarReaders(BayesParams(), PLAYERS_FOLLOW)
    seen = Counter()
    for step, (lock, _) in enumerate(positions(config, games=6, steps=100, seed=3, hold_back=0.8)):
        _compare_readers(lock, kept, scalar, fresh=step % 4 == 0, seen=seen)
        state = lock.state
        acting = np.where(state.pending_kind >= 0, state.pending_seat, 0).astype(np.int64)
        everyone = np.arange(state.batch_size)
        observed = batch.observe(state, acting, LAYOUT, players=observed_posterior(state, everyone, acting, kept))
        for g, game in enumerate(lock.games):
            seat = int(acting[g])
            view = PlayerView(game, seat)
            assert _same(observed[g], encoder(LAYOUT, game.config).observation(view, scalar(g, game, seat))), g
            seen["observed"] += 1
            seen["scored"] += game.phase >= SCORING
        if step % 4 == 0:
            seats = (acting + 1) % state.n
            fresh = batch.observe(state, seats, layout=LAYOUT)
            for g, game in enumerate(lock.games):
                assert _same(fresh[g], encode_observation(game, int(seats[g]), LAYOUT)), g
                seen["observed afresh"] += 1
    assert seen["positions"] > 400 and seen["fresh"] > 100 and seen["accusations"], dict(seen)
    assert seen["observed"] > 500 and seen["observed afresh"] > 100, dict(seen)
    if config.cafe_adler:
        assert seen["scored"], dict(seen)


@pytest.mark.slow
def test_a_kept_reading_follows_the_scalar_reader_through_the_forced_accusations():
    """Everyone passes every window, so each round ends in forced accusations; the readers of
    every seat are brought up to date at every decision (as a table's are)."""
    seen = Counter()
    for n in (3, 5):
        kept = PlayersReader()
        scalar = ScalarReaders(BayesParams(), PLAYERS_FOLLOW)
        for lock, _ in positions(GameConfig(num_players=n), games=4, steps=140, seed=n, hold_back=1.0):
            _compare_readers(lock, kept, scalar, fresh=lock.state.phase.max() >= FORCED, seen=seen)
    assert seen["forced"] > 20 and seen["kept differs from fresh"], dict(seen)


V2_PARAMS = {"follow": 0.5, "sure": 0.6, "bar_early": 2.0, "bar_late": 0.8, "margin_last": 0.25}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batched_bayes_v2_decides_as_the_scalar_one(name):
    config = CONFIGS[name]
    n = config.num_players
    default, other = make_batch_agent("bayes_v2", seed=1), make_batch_agent("bayes_v2", seed=2, **V2_PARAMS)
    lineup = [default, other, default, make_batch_agent("bayes_v1", seed=4), default][:n]  # one agent at several seats
    params = [{}, V2_PARAMS, {}, None, {}][:n]
    agents: dict[tuple[int, int], tuple[object, object]] = {}
    seen = Counter()
    hold_back = 0.85 if n < 5 else 0.97  # five players rarely leave the accusations to the empty deck
    for lock, actions in positions(config, games=10, steps=200, seed=7, hold_back=hold_back, lineup=lineup):
        for g, game in enumerate(lock.games):
            seat = game.pending_seat
            if game.game_over or params[seat] is None or game.pending_kind not in (WINDOW, FORCED_ACCUSATION):
                continue
            entry = agents.get((g, seat))
            if entry is None or entry[0] is not game:  # a new game: a new scalar agent, as a table makes
                agent = make_agent("bayes_v2", seed=0, **params[seat])
                agent.reset(seat, game.config)
                entry = agents[g, seat] = (game, agent)
            expected = entry[1].act(PlayerView(game, seat), {"action_mask": engine.legal_mask(game)})
            assert actions[g] == expected, (name, g, seat, int(actions[g]), expected)
            forced = game.pending_kind == FORCED_ACCUSATION
            seen["forced" if forced else ("pass" if expected == PASS else "accuse"), bool(params[seat])] += 1
    for variant in (False, True):
        assert seen["pass", variant] and seen["accuse", variant], dict(seen)
    assert sum(seen["forced", v] for v in (False, True)), dict(seen)


@pytest.mark.parametrize(
    "lineup",
    [["bayes_v2", CHECKPOINT, "bayes_v1"], [CHECKPOINT, "bayes_v2", "random", "bayes_v2"]],
    ids=["3p", "4p"],
)
def test_tournaments_with_bayes_v2_and_a_players_checkpoint_are_identical_on_both_engines(lineup):
    seating = "balanced" if len(lineup) == 3 else "rotate"  # 6 or 4 games: one design
    scalar = run_tournament(lineup, games=len(lineup), seed=3, engine="scalar", workers=1, seating=seating)
    batched = run_tournament(lineup, games=len(lineup), seed=3, engine="batched", seating=seating)
    assert (scalar.engine, batched.engine) == ("scalar", "batched")
    assert batched.per_game == scalar.per_game
    assert all(batch_capable(spec) for spec in lineup)  # so "auto" plays such tables batched


@pytest.mark.long
@pytest.mark.parametrize("n", [3, 4, 5])
def test_longer_tournaments_are_identical_on_both_engines(n):
    lineup = ["bayes_v2", CHECKPOINT, "bayes_v1", {"name": "bayes_v2", **V2_PARAMS}, "eager"][:n]
    config = {"stasi": True, "cafe_adler": True}
    scalar = run_tournament(lineup, games=120, seed=11, engine="scalar", workers=1, config=config)
    batched = run_tournament(lineup, games=120, seed=11, engine="batched", config=config)
    assert batched.per_game == scalar.per_game


def test_exact_sums_round_as_math_fsum():
    rng = random.Random(0)
    for follow in (PLAYERS_FOLLOW, 0.0, 0.5, 0.1, 0.999999, 1e-9):
        limbs, scale = factor_limbs(follow)
        factors = {
            legal + 34 * hit: math.log(follow * hit + (1 - follow) / legal)
            for hit in (False, True)
            for legal in range(1, 34)
        }
        kinds = list(factors)
        sums = np.zeros((500, limbs.shape[1]), dtype=np.int64)
        expected = []
        for row in range(500):
            picked = [rng.choice(kinds[: rng.randrange(1, len(kinds))]) for _ in range(rng.randrange(64))]
            sums[row] = limbs[picked].sum(0)
            expected.append(math.fsum(factors[k] for k in picked))
        assert _same(round_sums(sums, scale), np.array(expected)), follow


def test_the_vector_environment_serves_the_players_posterior():
    from ckc_env.envs.vector import CheckpointCharlieVectorEnv

    opponents = {3: ["bayes_v2", CHECKPOINT], 5: ["bayes_v2", CHECKPOINT, "bayes_v1", "bayes_v2"]}
    env = CheckpointCharlieVectorEnv(6, num_players=[3, 5], opponents=opponents, belief_features="players")
    observations, _ = env.reset(seed=0)
    assert observations.shape == (6, LAYOUT.size) and env.single_observation_space.shape == (LAYOUT.size,)
    rng = np.random.default_rng(0)
    o = LAYOUT.offsets
    for _ in range(12):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        observations, _, _, _, _ = env.step(actions)
        chief = observations[:, o["players_chief"] : o["players_chief"] + 32].sum(1)
        assert np.allclose(chief, 1.0, atol=1e-5)
        assert env.single_observation_space.contains(observations[0])


def test_bayes_v2_is_registered_and_checks_its_parameters():
    from ckc_env.agents import REGISTRY

    assert "bayes_v2" in BATCH_REGISTRY and "bayes_v2" in REGISTRY
    assert make_batch_agent("bayes_v2", follow=0.3).params.follow == 0.3
    with pytest.raises(ValueError, match=r"unknown bayes_v2 parameter\(s\) \['boldness'\]"):
        make_batch_agent("bayes_v2", boldness=1.0)
    with pytest.raises(ValueError, match=r"follow=1.0 must lie in \[0, 1\)"):
        make_batch_agent("bayes_v2", follow=1.0)


def test_a_reader_forgets_a_game_started_again_in_its_slot():
    """The same games dealt again in the same slots (the same keys) and played otherwise: after
    ``start`` a kept reader reads them as a new reader does."""
    config = GameConfig(num_players=4)
    reader = PlayersReader()
    seats = np.zeros(6, dtype=np.int64)
    for names in (("bayes_v1", "eager", "bayes_v1", "bayes_v1"), ("passive", "bayes_v1", "random", "bayes_v1")):
        state = batch.init(config, batch_size=6, seed=1)
        reader.start(np.arange(6))
        lineup = [make_batch_agent(name, seed=s) for s, name in enumerate(names)]
        for _ in range(30):
            batch.step(state, decide(state, lineup))
        assert (state.phase < SCORING).all()
        assert _same(
            reader.likelihood(state, np.arange(6), seats), PlayersReader().likelihood(state, np.arange(6), seats)
        )
