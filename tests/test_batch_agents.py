"""Batched beliefs and baselines (``ckc_env.batch.beliefs``, ``ckc_env.batch.agents``) against the
scalar ones, on the same positions.

Positions come from scalar games and a batch playing the same games (``batch.replay.Lockstep``),
driven by batched baselines with some random moves, so that they look like the positions the
baselines meet in play (3, 4 and 5 players, Stasi, Cafe Adler, ``clue_face="choose"``,
``non_accuser_white="chief_uncaught"``).

- ``test_batched_beliefs_equal_the_scalar_beliefs``: for every seat of every position, P(chief),
  P(assistant), P(innocent), each seat's clue distribution and the number of consistent hidden
  assignments equal ``ckc_env.reading.beliefs.beliefs`` bit for bit.
- ``test_batched_baselines_decide_as_the_scalar_ones``: at every window and forced accusation,
  passive, eager, bayes_v1 (default and other parameters) and cheater choose the scalar agent's
  action; each run asserts that bayes_v1 both accused and passed, in the branches of its rule.
- The random parts (uniform legal actions, clue faces, Cafe Adler swap seats) are legal and
  uniform; bad names and parameters are refused; and B = 4096 games against four bayes_v1 fit in
  2 GiB (slow).
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ckc_env import batch, engine
from ckc_env.agents import make_agent
from ckc_env.batch.agents import BATCH_REGISTRY, decide, make_batch_agent
from ckc_env.batch.beliefs import seat_beliefs
from ckc_env.batch.replay import Lockstep
from ckc_env.config import GameConfig
from ckc_env.engine.actions import ACCUSE, CAFE_ADLER, CLUE_FACE, FORCED_ACCUSATION, PASS, SWAP, WINDOW
from ckc_env.engine.state import SCORING
from ckc_env.engine.view import PlayerView
from ckc_env.reading.beliefs import beliefs

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = {
    "5p": GameConfig(num_players=5),
    "4p_stasi_adler": GameConfig(num_players=4, stasi=True, cafe_adler=True),
    "3p_choose_stasi_uncaught": GameConfig(
        num_players=3, stasi=True, clue_face="choose", non_accuser_white="chief_uncaught"
    ),
    "4p_both_2_rounds": GameConfig(num_players=4, stasi=True, cafe_adler=True, max_rounds=2),
}
DRIVERS = ("bayes_v1", "passive", "bayes_v1", "eager", "cheater")


def positions(config: GameConfig, games: int, steps: int, seed: int, hold_back: float = 0.0):
    """Yield the lockstep after each step of games played by batched baselines, one move in ten
    random and, with chance ``hold_back``, a pass wherever passing is legal (so that some rounds
    reach the forced accusations), with the automatic reset."""
    lock = Lockstep(config, seeds=range(seed, seed + games), autoreset=True)
    lineup = [make_batch_agent(DRIVERS[s], seed=seed + s) for s in range(config.num_players)]
    explore = make_batch_agent("random", seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield lock
        actions = decide(lock.state, lineup)
        random = rng.random(games) < 0.1
        actions[random] = explore.act(lock.state, np.flatnonzero(random))
        hold = (rng.random(games) < hold_back) & (lock.state.pending_kind == WINDOW)
        actions[hold] = PASS
        lock.step(actions)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(np.asarray(a).view(np.uint64), np.asarray(b).view(np.uint64))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batched_beliefs_equal_the_scalar_beliefs(name):
    config = CONFIGS[name]
    seen = Counter()
    for lock in positions(config, games=10, steps=150, seed=3):
        state = lock.state
        for seat in range(config.num_players):
            b = seat_beliefs(state, np.arange(state.batch_size), np.full(state.batch_size, seat))
            for g, game in enumerate(lock.games):
                expected = beliefs(PlayerView(game, seat))
                assert _same(b.chief[g], expected.chief), (g, seat)
                assert _same(b.assistant[g], expected.assistant), (g, seat)
                assert _same(b.innocent[g], expected.innocent), (g, seat)
                assert _same(b.clue[g, : game.n], expected.clue), (g, seat)
                assert not b.clue[g, game.n :].any()
                assert b.assignments[g] == expected.assignments
                seen["positions"] += 1
                seen["public clues"] += len(game.public_clues) > 0
                seen["own face to choose"] += game.clues[seat] < 0
                seen["exposed clue"] += game.stasi_exposed >= 0 and game.phase < SCORING
                seen["scored"] += game.phase >= SCORING
    expected_events = ["positions", "scored"] if config.cafe_adler else ["positions"]
    if config.num_players < 5:
        expected_events.append("public clues")
    if config.stasi:
        expected_events.append("exposed clue")
    if config.clue_face == "choose":
        expected_events.append("own face to choose")
    assert all(seen[event] for event in expected_events), dict(seen)


AGENTS = [
    ("passive", {}),
    ("eager", {}),
    ("bayes_v1", {}),
    ("bayes_v1", {"sure": 0.6, "bar_early": 2.0, "bar_late": 0.8, "margin_last": 0.25}),
    ("bayes_v1", {"sure": 1, "bar_early": 0, "bar_late": 3}),
    ("bayes_v1", {"exact": True}),
    ("bayes_v1", {"exact": True, "sure": 0.6, "bar_early": 2.0, "bar_late": 0.8, "margin_last": 0.25}),
    ("cheater", {}),
]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_batched_baselines_decide_as_the_scalar_ones(name):
    config = CONFIGS[name]
    batched = [make_batch_agent(agent, seed=0, **params) for agent, params in AGENTS]
    seen = Counter()
    for lock in positions(config, games=16, steps=250, seed=11, hold_back=0.9):
        state = lock.state
        games = np.flatnonzero((state.pending_kind == WINDOW) | (state.pending_kind == FORCED_ACCUSATION))
        for (agent_name, params), agent in zip(AGENTS, batched, strict=True):
            actions = agent.act(state, games)
            for g, action in zip(games.tolist(), actions.tolist(), strict=True):
                game = lock.games[g]
                scalar = make_agent(agent_name, seed=0, **params)
                scalar.reset(game.pending_seat, game.config)
                expected = scalar.act(PlayerView(game, game.pending_seat), {"action_mask": engine.legal_mask(game)})
                assert action == expected, (agent_name, params, g, action, expected)
                if agent_name == "bayes_v1" and not params:
                    forced = game.pending_kind == FORCED_ACCUSATION
                    last = game.accused_by.count(-1) <= 2
                    seen["forced" if forced else ("pass" if action == PASS else "accuse"), last] += 1
    for kind in ("accuse", "pass"):
        for last in (False, True):
            assert seen[kind, last], f"bayes_v1 never chose to {kind} (last two players: {last}): {dict(seen)}"
    assert seen["forced", True] + seen["forced", False], dict(seen)


def test_random_agent_is_uniform_over_the_legal_actions():
    state = batch.init(GameConfig(num_players=5), batch_size=64, seed=2)
    for _ in range(5):  # a few steps in, where windows have several targets
        batch.step(state, np.zeros(64, dtype=np.int64))
    agent = make_batch_agent("random", seed=0)
    games = np.arange(64)
    mask = batch.legal_action_mask(state)
    counts = np.zeros(mask.shape)
    draws = 400
    for _ in range(draws):
        counts[games, agent.act(state, games)] += 1
    assert not counts[mask == 0].any()
    legal = mask.sum(1)
    expected = draws / legal[:, None]
    assert (np.abs(counts - expected)[mask == 1] < 6 * np.sqrt(expected).repeat(legal)).all()
    assert legal.max() > 2


def test_clue_faces_and_cafe_adler_swaps_are_random_and_legal():
    config = GameConfig(num_players=4, cafe_adler=True, clue_face="choose", max_rounds=5)
    state = batch.init(config, batch_size=64, seed=5)
    lineup = [make_batch_agent(name, seed=i) for i, name in enumerate(("eager", "cheater", "bayes_v1", "passive"))]
    faces, swaps = Counter(), Counter()
    while not state.game_over.all():
        actions = decide(state, lineup)
        for kind, tally in ((CLUE_FACE, faces), (CAFE_ADLER, swaps)):
            for g in np.flatnonzero(state.pending_kind == kind):
                tally[state.pending_seat[g] == 3, int(actions[g])] += 1
        batch.step(state, actions)  # checks every action is legal
    assert faces[False, 33] and faces[False, 34] and faces[True, 33] and faces[True, 34]
    assert not any(action >= SWAP for (passive, action) in swaps if passive)  # passive keeps
    assert len({action for (passive, action) in swaps if not passive}) > 1  # the others swap, with various seats


def test_decide_asks_each_seat_its_own_agent():
    state = batch.init(GameConfig(num_players=3), batch_size=32, seed=1)
    lineup = [make_batch_agent("passive"), make_batch_agent("eager"), make_batch_agent("passive")]
    eager_accused = passive_accused = 0
    while not state.game_over.all():
        actions = decide(state, lineup)
        window = state.pending_kind == WINDOW
        eager_accused += int((window & (state.pending_seat == 1) & (actions >= ACCUSE)).sum())
        passive_accused += int((window & (state.pending_seat != 1) & (actions != PASS)).sum())
        batch.step(state, actions)
    assert eager_accused > 0 and passive_accused == 0


def test_agents_are_registered_under_the_scalar_names():
    from ckc_env.agents import REGISTRY

    # bayes_v2's and bayes_v3's batched forms are proved in test_batch_players_posterior.py and
    # test_batch_second_order.py, search's in test_search.py; rollout searches worlds of the scalar
    # engine, so tables with it play there
    assert set(BATCH_REGISTRY) == set(REGISTRY) - {"rollout"}
    with pytest.raises(ValueError, match="no batched agent 'genius'"):
        make_batch_agent("genius")
    with pytest.raises(ValueError, match=r"unknown bayes_v1 parameter\(s\) \['boldness'\]"):
        make_batch_agent("bayes_v1", boldness=1.0)
    with pytest.raises(ValueError, match="parameter sure='high' must be a number"):
        make_batch_agent("bayes_v1", sure="high")


@pytest.mark.long
def test_4096_games_against_four_bayes_v1_fit_in_2_gib():
    script = """
import resource
import numpy as np
from ckc_env import batch
from ckc_env.batch.agents import decide, make_batch_agent
from ckc_env.config import GameConfig
from ckc_env.observation import OBSERVATION_WITH_BELIEFS

state = batch.init(GameConfig(num_players=5), batch_size=4096, seed=0)
lineup = [make_batch_agent("random", seed=0)] + [make_batch_agent("bayes_v1", seed=s) for s in range(1, 5)]
for _ in range(300):
    batch.step(state, decide(state, lineup), autoreset=True)
    batch.observe(state, layout=OBSERVATION_WITH_BELIEFS)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    peak_kib = int(done.stdout.split()[-1])
    assert peak_kib < 2 * 1024 * 1024, f"peak resident memory {peak_kib / 1024:.0f} MiB"
