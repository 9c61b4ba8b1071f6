"""bayes_v3's second-order reading on the batched engine (``ckc_env.batch.second_order``) and batched
bayes_v3 against the scalar ``reading.second_order.SecondOrderReader`` and ``BayesV3Agent``, on the
same positions (the lockstep games of ``test_batch_players_posterior``: 3, 4 and 5 players, both
variants, every ``window_order``, ``reopen_windows``, ``clue_face="choose"``, ``non_accuser_white``).

- ``test_batched_second_order_readers_equal_the_scalar_ones``: at every position, for every seat
  holding its clue before scoring, a reader kept across steps gives the scalar reader's likelihoods
  bit for bit, and so does one reading afresh every fourth step; the reading differs from the
  first-order one (``PlayersReader``) at some positions, so the comparison is not bayes_v2's again.
- ``test_a_kept_second_order_reading_follows_the_scalar_reader_through_the_forced_accusations``.
- ``test_batched_bayes_v3_decides_as_the_scalar_one``: every decision of batched bayes_v3 (default
  and other parameters) equals the scalar agent's.
- Tournaments with bayes_v3 give the same per-game results on both engines; names and parameters
  are checked; a kept reader forgets a game dealt again in its slot.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from test_batch_players_posterior import CONFIGS, SEATS, ScalarReaders, _reading, _same, positions

from ckc_env import batch, engine
from ckc_env.agents import make_agent
from ckc_env.batch.agents import BATCH_REGISTRY, decide, make_batch_agent
from ckc_env.batch.players_posterior import PlayersReader, weighted_seat_beliefs
from ckc_env.batch.second_order import LayoutReaders, SecondOrderReader
from ckc_env.config import GameConfig
from ckc_env.engine.actions import FORCED_ACCUSATION, PASS, WINDOW
from ckc_env.engine.state import FORCED, SCORING
from ckc_env.engine.view import PlayerView
from ckc_env.evaluation.tournament import run_tournament
from ckc_env.observation import OBSERVATION_WITH_SECOND_ORDER, PLAYERS_FOLLOW, TableReading, encode_observation, encoder
from ckc_env.reading.bayes_rule import BayesParams
from ckc_env.reading.beliefs import weighted_beliefs
from ckc_env.reading.chip_values import expected_chip_values
from ckc_env.reading.second_order import SecondOrderReader as ScalarSecondOrderReader

LAYOUT = OBSERVATION_WITH_SECOND_ORDER


def scalar_readers() -> ScalarReaders:
    """A scalar ``SecondOrderReader`` per slot and seat, new with each game."""
    return ScalarReaders(make=_scalar_reader)


def _scalar_reader(seat: int) -> ScalarSecondOrderReader:
    """bayes_v3's reading with the default parameters, as the batched ``SecondOrderReader()``."""
    return ScalarSecondOrderReader(seat, BayesParams(), PLAYERS_FOLLOW, PLAYERS_FOLLOW)


def _compare(lock, kept: SecondOrderReader, scalar: ScalarReaders, fresh: bool, seen: Counter) -> None:
    state = lock.state
    for seat in range(SEATS):
        games = _reading(lock, seat)
        if not len(games):
            continue
        seats = np.full(len(games), seat)
        likelihood = kept.likelihood(state, games, seats)
        weighted = weighted_seat_beliefs(state, games, seats, likelihood)
        first = PlayersReader().likelihood(state, games, seats)
        afresh = SecondOrderReader().likelihood(state, games, seats) if fresh else None
        for i, g in enumerate(games.tolist()):
            game = lock.games[g]
            view = PlayerView(game, seat)
            values = expected_chip_values(view)
            expected = scalar(g, game, seat).update(view, values)
            assert sorted(expected) == [s for s in range(game.n) if s != seat]
            for other, factors in expected.items():
                assert _same(likelihood[i, other], factors), (g, seat, other)
                seen["second order differs"] += not _same(first[i, other], factors)
            b = weighted_beliefs(view, expected)
            assert _same(weighted.chief[i], b.chief), (g, seat)
            seen["positions"] += 1
            seen["forced"] += game.phase == FORCED
            if fresh:
                reread = _scalar_reader(seat).update(view, values)
                for other, factors in reread.items():
                    assert _same(afresh[i, other], factors), (g, seat, other)
                seen["fresh"] += 1


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batched_second_order_readers_equal_the_scalar_ones(name):
    kept = SecondOrderReader()
    scalar = scalar_readers()
    seen = Counter()
    for step, (lock, _) in enumerate(positions(CONFIGS[name], games=6, steps=100, seed=3, hold_back=0.8)):
        _compare(lock, kept, scalar, fresh=step % 4 == 0, seen=seen)
    assert seen["positions"] > 400 and seen["fresh"] > 100, dict(seen)
    assert seen["second order differs"] > 50, dict(seen)


@pytest.mark.slow
def test_a_kept_second_order_reading_follows_the_scalar_reader_through_the_forced_accusations():
    seen = Counter()
    for n in (3, 5):
        kept = SecondOrderReader()
        scalar = scalar_readers()
        for lock, _ in positions(GameConfig(num_players=n), games=4, steps=140, seed=n, hold_back=1.0):
            _compare(lock, kept, scalar, fresh=lock.state.phase.max() >= FORCED, seen=seen)
    assert seen["forced"] > 20, dict(seen)


V3_PARAMS = {"follow": 0.5, "inner_follow": 0.6, "sure": 0.6, "bar_early": 2.0, "bar_late": 0.8, "margin_last": 0.25}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batched_bayes_v3_decides_as_the_scalar_one(name):
    config = CONFIGS[name]
    n = config.num_players
    default, other = make_batch_agent("bayes_v3", seed=1), make_batch_agent("bayes_v3", seed=2, **V3_PARAMS)
    lineup = [default, other, make_batch_agent("bayes_v2", seed=3), default, default][:n]
    params = [{}, V3_PARAMS, None, {}, {}][:n]
    agents: dict[tuple[int, int], tuple[object, object]] = {}
    seen = Counter()
    hold_back = 0.85 if n < 5 else 0.97
    for lock, actions in positions(config, games=8, steps=160, seed=7, hold_back=hold_back, lineup=lineup):
        for g, game in enumerate(lock.games):
            seat = game.pending_seat
            if game.game_over or params[seat] is None or game.pending_kind not in (WINDOW, FORCED_ACCUSATION):
                continue
            entry = agents.get((g, seat))
            if entry is None or entry[0] is not game:
                agent = make_agent("bayes_v3", seed=0, **params[seat])
                agent.reset(seat, game.config)
                entry = agents[g, seat] = (game, agent)
            expected = entry[1].act(PlayerView(game, seat), {"action_mask": engine.legal_mask(game)})
            assert actions[g] == expected, (name, g, seat, int(actions[g]), expected)
            forced = game.pending_kind == FORCED_ACCUSATION
            seen["forced" if forced else ("pass" if expected == PASS else "accuse"), bool(params[seat])] += 1
    for variant in (False, True):
        assert seen["pass", variant] and seen["accuse", variant], dict(seen)


@pytest.mark.slow
@pytest.mark.parametrize(
    "lineup", [["bayes_v3", "bayes_v2", "bayes_v1"], ["bayes_v2", "bayes_v3", "random", "bayes_v3"]]
)
def test_tournaments_with_bayes_v3_are_identical_on_both_engines(lineup):
    seating = "balanced" if len(lineup) == 3 else "rotate"
    config = {"stasi": True, "cafe_adler": True}
    scalar = run_tournament(lineup, games=12, seed=5, engine="scalar", workers=1, seating=seating, config=config)
    batched = run_tournament(lineup, games=12, seed=5, engine="batched", seating=seating, config=config)
    assert (scalar.engine, batched.engine) == ("scalar", "batched")
    assert batched.per_game == scalar.per_game


def test_bayes_v3_is_registered_and_checks_its_parameters():
    assert "bayes_v3" in BATCH_REGISTRY
    agent = make_batch_agent("bayes_v3", inner_follow=0.3)
    assert agent.params.inner_follow == 0.3 and agent.reader.inner_follow == 0.3
    with pytest.raises(ValueError, match=r"unknown bayes_v3 parameter\(s\) \['depth'\]"):
        make_batch_agent("bayes_v3", depth=2)
    with pytest.raises(ValueError, match=r"inner_follow=1.0 must lie in \[0, 1\)"):
        make_batch_agent("bayes_v3", inner_follow=1.0)


def test_a_second_order_reader_forgets_a_game_started_again_in_its_slot():
    config = GameConfig(num_players=4)
    reader = SecondOrderReader()
    seats = np.zeros(6, dtype=np.int64)
    for names in (("bayes_v1", "eager", "bayes_v1", "bayes_v1"), ("passive", "bayes_v1", "random", "bayes_v1")):
        state = batch.init(config, batch_size=6, seed=1)
        reader.start(np.arange(6))
        lineup = [make_batch_agent(name, seed=s) for s, name in enumerate(names)]
        for _ in range(30):
            batch.step(state, decide(state, lineup))
            reader.likelihood(state, np.arange(6), seats)
        assert (state.phase < SCORING).all()
        assert _same(
            reader.likelihood(state, np.arange(6), seats), SecondOrderReader().likelihood(state, np.arange(6), seats)
        )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["3p", "5p_stasi_after_drawer_reopen"])
def test_the_second_order_layout_is_the_same_on_both_engines(name):
    """``batch.observe`` in ``OBSERVATION_WITH_SECOND_ORDER`` with kept readers
    (``LayoutReaders``) equals the scalar encoder with a kept ``TableReading`` at the acting seats,
    in every phase, and with fresh readings (``encode_observation``) every fourth step."""
    config = CONFIGS[name]
    readers = LayoutReaders(LAYOUT)
    kept: dict[tuple[int, int], tuple[object, TableReading]] = {}
    seen = Counter()
    for step, (lock, _) in enumerate(positions(config, games=6, steps=80, seed=5, hold_back=0.8)):
        state = lock.state
        acting = np.where(state.pending_kind >= 0, state.pending_seat, 0).astype(np.int64)
        everyone = np.arange(state.batch_size)
        observed = batch.observe(state, acting, LAYOUT, **readers.posteriors(state, everyone, acting))
        o = LAYOUT.offsets
        for g, game in enumerate(lock.games):
            seat = int(acting[g])
            entry = kept.get((g, seat))
            if entry is None or entry[0] is not game:
                entry = kept[g, seat] = (game, TableReading(seat))
            assert _same(observed[g], encoder(LAYOUT, game.config).observation(PlayerView(game, seat), entry[1])), g
            differs = observed[g, o["second_order_chief"] : o["second_order_chief"] + 32]
            seen["differs"] += not np.array_equal(differs, observed[g, o["players_chief"] : o["players_chief"] + 32])
            seen["observed"] += 1
        if step % 4 == 0:
            seats = (acting + 1) % state.n
            fresh = batch.observe(state, seats, layout=LAYOUT)
            for g, game in enumerate(lock.games):
                assert _same(fresh[g], encode_observation(game, int(seats[g]), LAYOUT)), g
                seen["observed afresh"] += 1
    assert seen["observed"] > 400 and seen["observed afresh"] > 100 and seen["differs"] > 20, dict(seen)


@pytest.mark.slow
def test_the_vector_environments_serve_the_second_order_layout():
    from ckc_env.envs.subproc_vector import SubprocVectorEnv
    from ckc_env.envs.vector import CheckpointCharlieVectorEnv

    env = CheckpointCharlieVectorEnv(6, num_players=[3, 5], opponents="bayes_v3", belief_features="second_order")
    observations, _ = env.reset(seed=0)
    assert observations.shape == (6, LAYOUT.size) and env.single_observation_space.shape == (LAYOUT.size,)
    rng = np.random.default_rng(0)
    o = LAYOUT.offsets
    for _ in range(12):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        observations, _, _, _, _ = env.step(actions)
        chief = observations[:, o["second_order_chief"] : o["second_order_chief"] + 32].sum(1)
        assert np.allclose(chief, 1.0, atol=1e-5) and env.single_observation_space.contains(observations[0])
    env.close()
    subproc = SubprocVectorEnv(4, workers=2, num_players=4, opponents="bayes_v2", belief_features="second_order")
    observations, _ = subproc.reset(seed=0)
    assert observations.shape == (4, LAYOUT.size)
    subproc.close()
