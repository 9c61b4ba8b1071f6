"""The batched engine (``ckc_env.batch``) against the scalar engine, and its own contract.

- ``test_batch_matches_scalar_sample`` (default run, seconds) and ``test_batch_matches_scalar_100k``
  (slow: over 100,000 decisions): scalar games and a batch play the same deals and the same
  actions (``batch.replay.Lockstep`` injects each scalar game's chance outcomes into the batch);
  after every step the batch must give, bit for bit, every game's legal-action mask, acting seat,
  the observation of every seat in the v1 layout, with beliefs and in the v0 layout, the state
  vector, the points rewards, terminations and the summary of every round that ended. The cases
  cover 3, 4 and 5 players and a batch mixing them, both variants, ``clue_face="choose"``, every
  ``window_order``, ``reopen_windows``, ``non_accuser_white``, a small custom chip pool that runs
  out, ``max_rounds``, ``target_points``, a fixed first player and the automatic reset; each run
  asserts it reached the decisions and events it is there for.
- ``test_rewards_match_the_environment``: the "points" and "win" rewards of the batch equal those of
  ``raw_env`` stepping the same games with the same actions.
- The rest: one seed gives one game in any batch, the automatic reset, illegal actions and bad
  arguments refused by name, the batched chance is well formed, and ``ckc_env.batch`` runs on NumPy
  alone.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import ckc_env
from ckc_env import batch, engine
from ckc_env.batch.agents import make_batch_agent
from ckc_env.batch.replay import Lockstep
from ckc_env.batch.summary import round_summaries
from ckc_env.config import GameConfig
from ckc_env.engine.actions import DECISION_KINDS, PASS
from ckc_env.engine.state import GameState
from ckc_env.observation import (
    OBSERVATION,
    OBSERVATION_V0,
    OBSERVATION_WITH_BELIEFS,
    encode_observation,
    encode_state,
)
from ckc_env.table.batched import all_rewards

ROOT = Path(__file__).resolve().parents[1]
LAYOUTS = (OBSERVATION, OBSERVATION_WITH_BELIEFS, OBSERVATION_V0)
SMALL_POOL = {"gold": [3, 5], "white": [1, 1, 2], "black": [-1, -1, 0]}

CASES = {
    "5p": (GameConfig(num_players=5), None),
    "4p_stasi_adler_from_drawer": (
        GameConfig(num_players=4, stasi=True, cafe_adler=True, window_order="clockwise_from_drawer"),
        None,
    ),
    "3p_both_choose_after_drawer_uncaught": (
        GameConfig(
            num_players=3,
            stasi=True,
            cafe_adler=True,
            clue_face="choose",
            window_order="clockwise_after_drawer",
            non_accuser_white="chief_uncaught",
        ),
        None,
    ),
    "5p_reopen_target_5": (GameConfig(num_players=5, reopen_windows=True, target_points=5), None),
    "mixed_counts_stasi_reopen_choose": (
        GameConfig(stasi=True, reopen_windows=True, clue_face="choose"),
        [3, 4, 5, 5, 4, 3, 4, 5],
    ),
    "4p_small_pool_both_3_rounds_first_1": (
        GameConfig(num_players=4, stasi=True, cafe_adler=True, chip_pool=SMALL_POOL, max_rounds=3, first_player=1),
        None,
    ),
}
PASS_PROBABILITIES = (0.5, 0.9, 0.97, 0.995)
"""Per game: how often a legal pass is taken (the rest: a uniform legal action). High values let
rounds run to the forced accusations; low ones end them early."""


def _bits(vector: np.ndarray) -> np.ndarray:
    return vector.view(np.uint32)


def _check_position(lock: Lockstep, seen: Counter) -> None:
    """Every game of the batch against its scalar game, bit for bit."""
    state = lock.state
    masks = batch.legal_action_mask(state)
    batch_state_vectors = batch.encode_state(state)
    observations = {}
    for layout in LAYOUTS:
        for seat in range(5):
            seats = np.where(state.n > seat, seat, 0)
            observations[layout.size, seat] = batch.observe(state, seats, layout)
    for b, game in enumerate(lock.games):
        assert bool(state.game_over[b]) == game.game_over
        assert np.array_equal(masks[b], engine.legal_mask(game)), (b, masks[b], engine.legal_mask(game))
        assert state.current_seat[b] == game.current_seat
        assert np.array_equal(_bits(batch_state_vectors[b]), _bits(encode_state(game)))
        for layout in LAYOUTS:
            for seat in range(game.n):
                expected = encode_observation(game, seat, layout)
                got = observations[layout.size, seat][b]
                if not np.array_equal(_bits(got), _bits(expected)):
                    names = [p.name for p in layout.pieces for _ in range(p.size)]
                    wrong = [(names[i], float(got[i]), float(expected[i])) for i in np.flatnonzero(got != expected)]
                    raise AssertionError(f"game {b} seat {seat} layout {layout.size}: {wrong[:8]}")
        if game.pending_kind >= 0:
            seen[DECISION_KINDS[game.pending_kind]] += 1


def _actions(lock: Lockstep, rng: np.random.Generator, pass_probability: np.ndarray) -> np.ndarray:
    masks = batch.legal_action_mask(lock.state)
    actions = np.zeros(len(masks), dtype=np.int64)
    for b, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if len(legal):
            take_pass = mask[PASS] and rng.random() < pass_probability[b]
            actions[b] = PASS if take_pass else rng.choice(legal)
    return actions


def play_lockstep(config: GameConfig, num_players: list[int] | None, games: int, decisions: int, seed: int) -> Counter:
    """Play the same games through both engines until ``decisions`` decisions were compared."""
    counts = [num_players[b % len(num_players)] for b in range(games)] if num_players else None
    lock = Lockstep(config, seeds=range(seed, seed + games), num_players=counts, autoreset=True)
    rng = np.random.default_rng(seed)
    pass_probability = np.array([PASS_PROBABILITIES[b % len(PASS_PROBABILITIES)] for b in range(games)])
    seen: Counter = Counter()
    while seen["decisions"] < decisions:
        _check_position(lock, seen)
        actions = _actions(lock, rng, pass_probability)
        before: list[GameState] = list(lock.games)
        summaries = [len(game.summaries) for game in before]
        lock.step(actions)
        state = lock.state
        seen["decisions"] += len(before)
        expected_summaries = []
        for b, game in enumerate(before):
            gained = engine.pop_rewards(game) + [0.0] * (5 - game.n)
            assert np.array_equal(state.rewards[b], gained), (b, state.rewards[b], gained)
            assert bool(state.terminated[b]) == game.game_over
            if len(game.summaries) > summaries[b]:
                summary = game.summaries[-1]
                expected_summaries.append(summary)
                seen["rounds"] += 1
                seen["stasi taken"] += summary["stasi_taken_by"] is not None
                seen["swaps"] += len(summary["swaps"])
                seen["chip not received"] += any(not a["received"] for a in summary["accusations"])
                seen["several non-accusers"] += len(summary["non_accusers"]) > 1
                for reason in summary.get("reasons", []):
                    seen[reason] += 1
        assert round_summaries(state) == expected_summaries
    return seen


def _expect(seen: Counter, *events: str) -> None:
    missing = [event for event in events if not seen[event]]
    assert not missing, f"the run never reached {missing}: {dict(seen)}"


def _expected_events(name: str) -> list[str]:
    events = ["window", "forced_accusation", "rounds"]
    config = CASES[name][0]
    if config.stasi:
        events.append("stasi taken")
    if config.cafe_adler:
        events += ["cafe_adler", "swaps"]
    if config.clue_face == "choose":
        events.append("clue_face")
    if "small_pool" in name:
        events += ["colour_used_up", "chip not received"]
    return events


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_batch_matches_scalar_sample(name):
    config, counts = CASES[name]
    seen = play_lockstep(config, counts, games=12, decisions=2_500, seed=7)
    _expect(seen, *[e for e in _expected_events(name) if e not in ("swaps", "chip not received")])


@pytest.mark.long
def test_batch_matches_scalar_100k():
    total = Counter()
    for i, name in enumerate(sorted(CASES)):
        config, counts = CASES[name]
        seen = play_lockstep(config, counts, games=48, decisions=17_000, seed=100 + i)
        _expect(seen, *_expected_events(name))
        total.update(seen)
    assert total["decisions"] >= 100_000
    _expect(total, "points", "colour_used_up", "last_round")


def _deck_with_one_row_cat() -> list[int]:
    """A 5-player deck (seat s holds clue 2s, seat 0 draws first) in which only the chief (cat 31)
    lands in a row: every other cat goes to a drawer whose clue it does not show."""
    drawers = [i % 5 for i in range(31)]  # position 31 (drawer 1) is the chief's
    match: dict[int, int] = {}  # position -> cat

    def place(cat: int, tried: set[int]) -> bool:
        for position, drawer in enumerate(drawers):
            if (cat >> drawer) & 1 == 0 and position not in tried:
                tried.add(position)
                if position not in match or place(match[position], tried):
                    match[position] = cat
                    return True
        return False

    assert all(place(cat, set()) for cat in range(31))
    return [match[position] for position in range(31)] + [31]


def test_several_non_accusers_are_served_as_the_scalar_engine_serves_them():
    """Targets run out before the deck does (only the chief reaches a row, and he is accused): the
    four others are non-accusers, served clockwise after the last drawer ([decision])."""
    options = {"first_player": 0, "clues": [0, 2, 4, 6, 8], "deck": _deck_with_one_row_cat()}
    lock = Lockstep(GameConfig(num_players=5), seeds=[0, 1], options=[options, options])
    seen: Counter = Counter()
    while not lock.state.round_ended.any():
        _check_position(lock, seen)
        masks = batch.legal_action_mask(lock.state)
        before = list(lock.games)
        lock.step(masks.shape[1] - 1 - masks[:, ::-1].argmax(1))  # the highest legal action: accuse if possible
        expected = [game.summaries[-1] for game in before if game.summaries]
        assert round_summaries(lock.state) == expected
    summary = round_summaries(lock.state)[0]
    [accusation] = summary["accusations"]
    assert accusation["cat"] == 31 and summary["cards"][-1][:2] == (1, 31)  # seat 1 drew the last card
    expected = [seat for seat in (2, 3, 4, 0, 1) if seat != accusation["seat"]]
    assert [entry["seat"] for entry in summary["non_accusers"]] == expected


def test_rewards_match_the_environment():
    """Both reward schemes against ``raw_env``: same seeds (so the same games) and same actions."""
    config = GameConfig(num_players=4, stasi=True, cafe_adler=True)
    seeds = list(range(6))
    for scheme in ("points", "win"):
        envs = [ckc_env.raw_env(reward=scheme, **config.to_dict()) for _ in seeds]
        for env, seed in zip(envs, seeds, strict=True):
            env.reset(seed=seed)
        lock = Lockstep(config, seeds=seeds)
        rng = np.random.default_rng(1)
        endings = 0
        while not lock.state.game_over.all():
            actions = _actions(lock, rng, np.full(len(seeds), 0.9))
            live = [b for b, env in enumerate(envs) if not lock.games[b].game_over]
            for b in live:
                envs[b].step(int(actions[b]))
            lock.step(actions)
            for b in live:
                expected = [envs[b].rewards[agent] for agent in envs[b].possible_agents]
                assert np.array_equal(all_rewards(lock.state, scheme)[b, :4], expected)
                endings += bool(lock.state.terminated[b]) and any(expected)
        assert endings == len(seeds) or scheme == "points"


def _first_legal_game(config: GameConfig, seeds: list[int], watch: int) -> list[np.ndarray]:
    """The observations of the game in slot ``watch`` when every game plays its first legal action."""
    state = batch.init(config, seeds=seeds)
    trace = []
    while not state.game_over[watch]:
        trace.append(batch.observe(state)[watch].copy())
        batch.step(state, batch.legal_action_mask(state).argmax(1))
    return trace


def test_one_seed_gives_one_game_in_any_batch():
    config = GameConfig(num_players=5, stasi=True)
    alone = _first_legal_game(config, [123], 0)
    among = _first_legal_game(config, [5, 6, 123, 7], 2)
    assert len(alone) > 10
    assert all(np.array_equal(a, b) for a, b in zip(alone, among, strict=True)) and len(alone) == len(among)
    other = _first_legal_game(config, [124], 0)
    assert len(other) != len(alone) or any(not np.array_equal(a, b) for a, b in zip(alone, other, strict=True))
    first = batch.init(config, batch_size=3, seed=9)
    again = batch.init(config, batch_size=3, seed=9)
    assert np.array_equal(batch.observe(first), batch.observe(again))


def test_automatic_reset_starts_the_slots_next_game():
    config = GameConfig(num_players=3, max_rounds=1)
    state = batch.init(config, batch_size=16, seed=3)
    keys = state.key.copy()
    finished = 0
    for _ in range(200):
        batch.step(state, batch.legal_action_mask(state).argmax(1), autoreset=True)
        ended = np.flatnonzero(state.terminated)
        finished += len(ended)
        assert not state.game_over.any()  # every finished game was replaced
        assert (state.pending_kind >= 0).all()
        assert state.record.game_over[ended].all() and state.record.winners[ended].any(1).all()
        winners = state.record.winners[ended]
        win = all_rewards(state, "win")[ended]
        assert (win[winners] > 0).all() and (win[~winners] <= 0).all()
        assert all(summary["game_over"] for summary in round_summaries(state, ended))
        assert not np.array_equal(state.key[ended], keys[ended]) or len(ended) == 0
        keys = state.key.copy()
    assert finished > 16
    # without the reset, finished games stay finished and ignore their actions
    state = batch.init(config, batch_size=4, seed=3)
    while not state.game_over.all():
        batch.step(state, batch.legal_action_mask(state).argmax(1))
    snapshot = state.copy()
    batch.step(state, np.zeros(4, dtype=np.int64))
    assert np.array_equal(state.points, snapshot.points) and state.game_over.all()
    batch.reset(state, np.array([True, False, True, False]))
    assert list(state.game_over) == [False, True, False, True]


def test_observations_can_be_written_into_a_reused_array():
    state = batch.init(GameConfig(num_players=4, cafe_adler=True), batch_size=8, seed=2)
    for layout in LAYOUTS:
        out = np.full((8, layout.size), np.nan, dtype=np.float32)
        for _ in range(3):
            batch.step(state, batch.legal_action_mask(state).argmax(1))
            assert batch.observe(state, layout=layout, out=out) is out
            assert np.array_equal(out, batch.observe(state, layout=layout))
    out = np.full((8, batch.encode_state(state).shape[1]), np.nan, dtype=np.float32)
    assert np.array_equal(batch.encode_state(state, out=out), batch.encode_state(state))
    with pytest.raises(ValueError, match=r"out must be a float32 array of shape \(8, 736\)"):
        batch.observe(state, out=np.zeros((8, 735), dtype=np.float32))


def test_a_step_can_leave_some_games_waiting():
    state = batch.init(GameConfig(num_players=4), batch_size=6, seed=4)
    other = state.copy()
    actions = batch.legal_action_mask(state).argmax(1)
    waiting = np.array([False, True, False, True, True, False])
    batch.step(state, actions, games=~waiting)
    batch.step(other, actions)
    fresh = batch.init(GameConfig(num_players=4), batch_size=6, seed=4)
    for name in ("deck_pos", "queue_pos", "pending_seat", "accused_by", "rows"):
        changed = getattr(state, name)
        assert np.array_equal(changed[~waiting], getattr(other, name)[~waiting])
        assert np.array_equal(changed[waiting], getattr(fresh, name)[waiting])
    batch.step(state, np.full(6, 99), games=np.flatnonzero(~waiting)[:0])  # no game stepped: nothing checked


def test_illegal_actions_are_refused_naming_the_games():
    state = batch.init(GameConfig(num_players=4), batch_size=3, seed=0)
    mask = batch.legal_action_mask(state)
    actions = mask.argmax(1)
    snapshot = state.copy()
    bad = actions.copy()
    bad[1] = np.flatnonzero(mask[1] == 0)[-1]
    with pytest.raises(ValueError, match=r"illegal action\(s\) in 1 game\(s\): game 1: .* legal: 0 \(pass\)"):
        batch.step(state, bad)
    assert np.array_equal(state.deck_pos, snapshot.deck_pos) and np.array_equal(state.queue_pos, snapshot.queue_pos)
    for wrong in (np.full(3, 40), np.full(3, -1)):
        with pytest.raises(ValueError, match="illegal action"):
            batch.step(state, wrong)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        batch.step(state, actions[:2])
    with pytest.raises(ValueError, match="integer array"):
        batch.step(state, actions.astype(float))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size=0"),
        ({"batch_size": 2, "seeds": [1, 2, 3]}, "disagrees with the 3 seeds"),
        ({"seed": 1, "seeds": [1]}, "not both"),
        ({"seeds": [-1]}, "non-negative"),
        ({"batch_size": 2, "num_players": [3]}, "num_players has 1 entries"),
        ({"batch_size": 1, "num_players": [6]}, "num_players=6"),
        ({"batch_size": 1, "options": {"deck": list(range(32))}}, r"no reset options \(\['deck'\]\).*Lockstep"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        batch.init(GameConfig(), **kwargs)


def test_a_fixed_first_player_must_exist_at_every_count():
    with pytest.raises(ValueError, match="first_player=4"):
        batch.init(GameConfig(num_players=5, first_player=4), batch_size=2, num_players=[5, 3])
    with pytest.raises(ValueError, match="config must be a GameConfig"):
        batch.init({"num_players": 4}, batch_size=2)


def test_rules_shared_by_a_batch():
    from ckc_env.batch.state import rules_for

    with pytest.raises(ValueError, match="stasi=False and stasi=True differ"):
        rules_for([GameConfig(), GameConfig(stasi=True)])
    assert rules_for([GameConfig(num_players=3), GameConfig(num_players=5)]).config.num_players == 3


def test_the_batched_chance_deals_well_formed_rounds():
    """Decks are permutations with the investigator cards in the top 16 + (5 - n), tiles distinct,
    faces and window orders varied, chips shuffled per colour: the rules' set-up (RULES.md 2, 3)."""
    state = batch.init(GameConfig(stasi=True, cafe_adler=True), batch_size=300, seed=0, num_players=[3, 4, 5] * 100)
    for b in range(300):
        n = int(state.n[b])
        deck = state.deck[b, : 37 - n].tolist()
        assert sorted(c for c in deck if c != 32) == list(range(32)) and deck.count(32) == 5 - n
        assert all(i < 16 + 5 - n for i, c in enumerate(deck) if c == 32)
        features = [*state.tiles[b, :n].tolist(), *(state.bag[b, : 5 - n] >> 1).tolist()]
        assert sorted(features) == list(range(5))
        for colour in range(3):
            supply = state.supply[b, colour, : state.supply_len[b, colour]].tolist()
            assert sorted(supply) == np.flatnonzero(state.rules.chip_colour == colour).tolist()
    tops = Counter(state.deck[:, 0].tolist())
    assert len(tops) > 25  # 32 cats and the investigator card, uniformly
    firsts = Counter(state.first_player[state.n == 5].tolist())
    assert set(firsts) == set(range(5))
    windows = state.window_order[(state.n == 5) & (state.pending_kind == 0)]
    assert len(windows) > 50 and len({tuple(order) for order in windows.tolist()}) > 20  # of the 120 orders
    faces = state.clues[state.clues >= 0] & 1
    assert 0.4 < faces.mean() < 0.6


@pytest.mark.slow
def test_games_of_the_batched_chance_keep_their_chips_consistent():
    """With the batched stream (not replay), the chips stay a partition of the pool and every
    derived count agrees with the holdings, through Stasi returns and Cafe Adler swaps."""
    config = GameConfig(num_players=4, stasi=True, cafe_adler=True)
    state = batch.init(config, batch_size=64, seed=11)
    player = make_batch_agent("random", seed=1)
    rules = state.rules
    every = np.uint64((1 << rules.n_chips) - 1)
    ids = np.arange(rules.n_chips, dtype=np.uint64)
    seen = Counter()
    for _ in range(400):
        batch.step(state, player.act(state, np.arange(64)), autoreset=True)
        held = (state.holdings[:, :, None] >> ids) & np.uint64(1) == 1  # (B, 5, chips)
        in_supply = np.zeros((64, rules.n_chips), dtype=bool)
        for colour in range(3):
            for b in range(64):
                in_supply[b, state.supply[b, colour, : state.supply_len[b, colour]]] = True
        assert np.array_equal(held.sum(1) + in_supply, np.ones((64, rules.n_chips)))
        assert np.bitwise_or.reduce(state.holdings, axis=1).tolist() == (every & ~_supply_bits(state)).tolist()
        for colour in range(3):
            assert np.array_equal(state.chip_table[:, :, colour], (held & (rules.chip_colour == colour)).sum(2))
        assert np.array_equal(state.points, (held * rules.chip_points).sum(2))
        seen["swaps"] += int(state.record.swap_count[state.round_ended].sum())
        seen["stasi back"] += int((state.record.stasi_taker[state.round_ended] >= 0).sum())
    assert seen["swaps"] and seen["stasi back"], seen


def _supply_bits(state: batch.BatchState) -> np.ndarray:
    bits = np.zeros(state.batch_size, dtype=np.uint64)
    for colour in range(3):
        for b in range(state.batch_size):
            for chip in state.supply[b, colour, : state.supply_len[b, colour]]:
                bits[b] |= np.uint64(1) << np.uint64(chip)
    return bits


def test_the_package_docstring_lists_every_state_field():
    import dataclasses

    missing = [f.name for f in dataclasses.fields(batch.BatchState) if f"``{f.name}``" not in batch.__doc__]
    assert not missing, f"add {missing} to the state table of ckc_env/batch/__init__.py"


def test_engine_runs_on_numpy_alone():
    script = """
import sys

class NoOptionalPackages:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"gymnasium", "pettingzoo", "yaml", "torch", "stable_baselines3", "sb3_contrib"}:
            raise ImportError(f"{name} is not installed")

sys.meta_path.insert(0, NoOptionalPackages())
from ckc_env import batch
from ckc_env.batch.agents import decide, make_batch_agent
from ckc_env.config import GameConfig

state = batch.init(GameConfig(num_players=4, stasi=True, cafe_adler=True), batch_size=8, seed=3)
lineup = [make_batch_agent(name, seed=0) for name in ("bayes_v1", "random", "eager", "cheater")]
while not state.game_over.all():
    batch.step(state, decide(state, lineup))
print(int(state.winners.sum()), batch.observe(state).shape)
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("(8, 736)")
