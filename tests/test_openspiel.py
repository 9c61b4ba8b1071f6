"""The OpenSpiel front (``ckc_env.envs.openspiel``) and what it stands on: the engine's chance
sources, ``GameState.copy`` and resampling a world from a seat's information set.

The engine-side tests run everywhere; the OpenSpiel ones skip where ``open_spiel`` is not installed.
"""

from __future__ import annotations

import math
import random
import runpy
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ckc_env import engine
from ckc_env.config import GameConfig
from ckc_env.engine.cards import INVESTIGATOR, clue_name
from ckc_env.engine.chance import Stream, StreamChance, key_of
from ckc_env.engine.state import SCORING
from ckc_env.engine.suspicion import SEAT_ORDERS
from ckc_env.engine.view import PlayerView
from ckc_env.observation import encode_observation, encode_state
from ckc_env.reading.beliefs import beliefs
from ckc_env.resample import resample

ROOT = Path(__file__).resolve().parents[1]
RULES = [
    {"num_players": 3},
    {"num_players": 4, "stasi": True, "cafe_adler": True},
    {"num_players": 5, "clue_face": "choose", "reopen_windows": True},
    {"num_players": 3, "stasi": True, "cafe_adler": True, "non_accuser_white": "chief_uncaught", "first_player": 1},
    {"num_players": 4, "window_order": "clockwise_after_drawer", "clue_face": "choose", "cafe_adler": True},
]
RULE_IDS = ["3p", "4p-stasi-adler", "5p-choose-reopen", "3p-variants", "4p-clockwise-choose-adler"]


@pytest.fixture(scope="module")
def openspiel():
    pytest.importorskip("pyspiel")
    from ckc_env.envs import openspiel

    return openspiel


class Recorder:
    """A chance source that answers from another and records every question and answer."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.answers: list[tuple[str, Any, Any]] = []  # (question, its arguments, the answer)

    def __getattr__(self, kind: str) -> Any:
        def ask(*args: Any) -> Any:
            value = getattr(self.source, kind)(*args)
            self.answers.append((kind, args, value))
            return value

        return ask


def random_game(config: GameConfig, seed: int, source: Any = None) -> tuple[engine.GameState, list[int]]:
    """A game of random legal actions; returns the finished state and the actions."""
    rng = random.Random(seed)
    state = engine.init(config, seed=seed, chance_source=source)
    actions = []
    while not state.game_over:
        action = rng.choice(engine.legal_actions(state))
        actions.append(action)
        engine.step(state, action)
    return state, actions


# ---------------------------------------------------------------------------------------------- the engine's hook
@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_a_chance_source_is_asked_where_the_stream_is(rules):
    """The stream behind another source gives the very game the default gives: the same questions,
    asked at the same points, in the same order."""
    config = GameConfig(**rules)
    for seed in range(3):
        plain, actions = random_game(config, seed)
        recorder = Recorder(StreamChance(Stream.seeded(seed)))
        recorded, same_actions = random_game(config, seed, recorder)
        assert same_actions == actions
        assert recorded.summaries == plain.summaries
        assert np.array_equal(encode_state(recorded), encode_state(plain))
        assert recorder.answers[0][0] == "supply_order"
        assert sum(kind == "deal" for kind, _, _ in recorder.answers) == len(plain.summaries)


@pytest.mark.parametrize("rules", RULES[:3], ids=RULE_IDS[:3])
def test_a_copy_plays_on_alone(rules):
    state = engine.init(GameConfig(**rules), seed=5)
    rng = random.Random(5)
    while not state.game_over:
        before = encode_state(state)
        copy = state.copy()
        assert copy.stream is not state.stream and copy.stream.counter == state.stream.counter
        while not copy.game_over:
            engine.step(copy, rng.choice(engine.legal_actions(copy)))
        assert np.array_equal(encode_state(state), before)
        engine.step(state, rng.choice(engine.legal_actions(state)))
    assert state.stream.counter > 0


def test_a_copy_copies_every_field_of_the_state():
    """GameState.copy names the fields it copies: a field added to the state must be named there too."""
    from dataclasses import fields

    from ckc_env.engine import state as state_module

    shared = {"config", "n", "pool", "stream", "options", "chance"}  # passed to the copy's constructor
    copied = {*state_module._VALUES, *state_module._LISTS, *state_module._NESTED, "adler_offered", "face_up"}
    assert {f.name for f in fields(state_module.GameState)} == shared | copied
    state = engine.init(GameConfig(num_players=4, stasi=True, cafe_adler=True), seed=9)
    rng = random.Random(9)
    while not state.game_over:  # the copy and the original play on alike
        copy = state.copy()
        action = rng.choice(engine.legal_actions(state))
        engine.step(state, action)
        engine.step(copy, action)
        assert np.array_equal(encode_state(copy), encode_state(state))


# ---------------------------------------------------------------------------------------------- resampling
def positions(config: GameConfig, seed: int, every: int = 1):
    """Decision states of a random game (every ``every``-th)."""
    rng = random.Random(seed)
    state = engine.init(config, seed=seed)
    k = 0
    while not state.game_over:
        if k % every == 0:
            yield state
        k += 1
        engine.step(state, rng.choice(engine.legal_actions(state)))


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_a_resampled_world_looks_the_same_to_the_seat(rules):
    config = GameConfig(**rules)
    rng = random.Random(0)
    changed = 0
    for seed in range(2):
        for state in positions(config, seed):
            for seat in range(state.n):
                world = resample(state, seat, rng.random)
                assert np.array_equal(encode_observation(world, seat), encode_observation(state, seat))
                assert world.current_seat == state.current_seat
                assert engine.legal_actions(world) == engine.legal_actions(state)
                chips = sorted([c for h in world.holdings for c in h] + [c for s in world.supply for c in s])
                assert chips == list(range(len(world.pool)))
                if world.phase < SCORING:
                    assert INVESTIGATOR not in world.deck[16 + config.investigator_cards :]
                changed += world.clues != state.clues or world.deck != state.deck
                play_out = world.copy()
                while not play_out.game_over:
                    engine.step(play_out, rng.choice(engine.legal_actions(play_out)))
    assert changed


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_a_resampled_world_depends_on_the_information_set_alone(rules):
    """Two states a seat cannot tell apart (the true one and a world drawn from it) give the same
    world for the same draws: what a search draws is a function of what the seat knows."""
    from ckc_env.engine.state import _LISTS, _NESTED, _VALUES

    config = GameConfig(**rules)
    checked = 0
    for state in (s for seed in (3, 4) for s in positions(config, seed, every=4)):
        for seat in range(state.n):
            other = resample(state, seat, random.Random(seat).random)
            a, b = (resample(s, seat, random.Random(99).random) for s in (state, other))
            for name in (*_VALUES, *_LISTS, *_NESTED, "face_up", "adler_offered"):
                assert getattr(a, name) == getattr(b, name), name
            assert a.stream.key == b.stream.key
            checked += 1
    assert checked > 20


def test_resampled_clues_follow_the_exact_posterior():
    """The chief of many worlds drawn from a seat's information set is distributed as the seat's
    exact beliefs say."""
    config = GameConfig(num_players=4)
    for state in positions(config, 3):
        if state.phase < SCORING and state.deck_pos >= 6:
            break
    seat = state.current_seat
    expected = beliefs(PlayerView(state, seat)).chief
    rng = random.Random(1)
    draws = 4000
    counts = Counter(engine.round_setup.chief(resample(state, seat, rng.random)) for _ in range(draws))
    seen = np.array([counts[c] / draws for c in range(32)])
    assert np.abs(seen - expected).max() < 0.04
    assert set(counts) <= set(np.flatnonzero(expected))


def test_the_undrawn_deck_is_reshuffled_uniformly():
    config = GameConfig(num_players=3)  # two investigator cards in the top 18
    state = engine.init(config, seed=11)
    rng = random.Random(2)
    investigator_at = Counter()
    top_cat = Counter()
    for _ in range(3000):
        deck = resample(state, state.current_seat, rng.random).deck[state.deck_pos :]
        investigator_at.update(i for i, card in enumerate(deck) if card == INVESTIGATOR)
        top_cat[deck[-1]] += 1
    top = 16 + 2 - state.deck_pos
    assert set(investigator_at) <= set(range(top))
    rates = np.array([investigator_at[i] for i in range(top)]) / 3000
    assert np.abs(rates - 2 / top).max() < 0.04  # each top place holds one with P = 2 / top
    assert INVESTIGATOR not in top_cat and len(top_cat) > 20


# ---------------------------------------------------------------------------------------------- OpenSpiel
@pytest.mark.parametrize(
    "params",
    [
        {"players": 3},
        {"players": 4, "stasi": True, "cafe_adler": True},
        {"players": 5, "clue_face": "choose", "reopen_windows": True},
        {"players": 3, "stasi": True, "cafe_adler": True, "window_order": "clockwise_from_drawer", "reward": "win"},
        {"players": 5, "first_player": "2", "non_accuser_white": "chief_uncaught", "reward": "margin"},
    ],
    ids=["3p", "4p-stasi-adler", "5p-choose-reopen", "3p-variants-win", "5p-seat2-margin"],
)
def test_openspiels_own_random_simulation_checks(openspiel, params):
    """``pyspiel.random_sim_test``: legal actions, chance outcomes, clones, serialisation, rewards
    summing to the returns, within the utility bounds and the game length."""
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_parameters_are_the_rules(openspiel):
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME)
    assert game.config == GameConfig() and game.reward == "points"
    assert set(openspiel.PARAMETERS) == {"players", "reward"} | set(GameConfig.fields()) - {"num_players"}
    pool = "gold=3,3,4,4,5;white=1,1,1,1,1,1,2,2,2,2,2,2;black=0,0,0,-1,-1,-1"
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 4, "first_player": "2", "chip_pool": pool, "stasi": True})
    assert game.config == GameConfig(
        num_players=4,
        first_player=2,
        stasi=True,
        chip_pool={"gold": [3, 3, 4, 4, 5], "white": [1] * 6 + [2] * 6, "black": [0, 0, 0, -1, -1, -1]},
    )
    again = pyspiel.load_game(str(game))  # the game string keeps every parameter, chip pool and seat included
    assert again.config == game.config and str(again) == str(game)
    assert game.num_players() == 4 and game.num_distinct_actions() == 40
    for bad in ({"players": 7}, {"clue_face": "sometimes"}, {"reward": "glory"}, {"chip_pool": "gold 3; pink 1"}):
        with pytest.raises((ValueError, pyspiel.SpielError)):
            pyspiel.load_game(openspiel.GAME_NAME, bad)


@pytest.mark.parametrize("n, seat_faces", [(3, True), (4, True), (5, False)])
def test_chance_nodes_deal_uniformly(openspiel, n, seat_faces):
    """Every deal has the same probability, the engine's: tile orders, faces and decks uniform, the
    investigator cards in the top 16 + k places."""
    k = 5 - n
    deal = openspiel.chance.Deal(n, k, seat_faces)
    faces = 5 if seat_faces else 5 - n
    log_uniform = -(
        math.log(math.factorial(5)) + faces * math.log(2) + math.lgamma(33) + math.log(math.comb(16 + k, k))
    )
    rng = random.Random(n)
    for _ in range(200):
        partial, log_p = [], 0.0
        while len(partial) < deal.steps:
            outcomes = deal.outcomes(partial)
            assert abs(sum(p for _, p in outcomes) - 1) < 1e-9 and all(p > 0 for _, p in outcomes)
            forced = deal.forced(partial)
            assert (forced is not None) == (len(outcomes) == 1)
            action, p = rng.choices(outcomes, weights=[p for _, p in outcomes])[0]
            partial.append(action)
            log_p += math.log(p)
        assert log_p == pytest.approx(log_uniform, abs=1e-9)
        tiles, clues, bag, deck = deal.answer(partial)
        assert sorted(tiles + [c >> 1 for c in bag]) == list(range(5)) and len(clues) == n
        assert sorted(c for c in deck if c != INVESTIGATOR) == list(range(32))
        assert INVESTIGATOR not in deck[16 + k :] and deck.count(INVESTIGATOR) == k


def makes_a_node(kind: str, args: tuple) -> bool:
    """Whether a question has more than one answer (one with a single answer makes no chance node)."""
    if kind == "adler_pick":
        return len(args[0]) > 1
    if kind == "stasi_place":
        return args[0] > 0
    return True


def chance_sequence(kind: str, value: Any, question: Any) -> list[int]:
    """The chance outcomes that make the OpenSpiel game answer a question as the engine did."""
    if kind == "supply_order":
        return [chip for chips in value for chip in reversed(chips)]
    if kind == "deal":
        tiles, clues, bag, deck = value
        tossed = list(clues) + list(bag)
        return [*tiles, *(c >> 1 for c in bag), *(tossed[i] & 1 for i in question.faces), *deck]
    if kind == "window_order":
        return [SEAT_ORDERS[len(value)].index(list(value))]
    return [value]


@pytest.mark.parametrize("rules", RULES, ids=RULE_IDS)
def test_the_openspiel_game_is_the_engines_game(openspiel, rules):
    """Given the engine's chance outcomes as chance actions and the same decisions, the OpenSpiel
    game plays the engine's game: the same rounds, the same points."""
    config = GameConfig(**rules)
    game = openspiel.load(config)
    for seed in range(3):
        recorder = Recorder(StreamChance(Stream(key_of(seed))))
        played, actions = random_game(config, seed, recorder)
        state = game.new_initial_state()
        answers = iter((kind, value) for kind, args, value in recorder.answers if makes_a_node(kind, args))
        decisions = iter(actions)
        question = sequence = None
        while not state.is_terminal():
            if state.is_chance_node():
                course = state._course
                if course.question is not question:
                    question = course.question
                    kind, value = next(answers)
                    assert kind == question.kind
                    sequence = chance_sequence(kind, value, question)
                state.apply_action(sequence[len(course.partial)])
            else:
                question = None
                state.apply_action(next(decisions))
        assert state.game_state.summaries == played.summaries
        assert state.returns() == [float(t) for t in played.final["totals"]]


@pytest.mark.parametrize(
    "params",
    [{"players": 3, "stasi": True}, {"players": 4, "cafe_adler": True, "clue_face": "choose"}, {"players": 5}],
    ids=["3p-stasi", "4p-adler-choose", "5p"],
)
def test_resample_from_infostate(openspiel, params):
    """A resampled state gives the resampling player the same information state (string and
    tensor), observation and legal actions, and plays on to the end."""
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, params)
    rng = np.random.RandomState(0)
    for _ in range(2):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            decisions += 1
            if decisions % 3 == 0:
                player = int(rng.randint(game.num_players()))
                world = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
                assert world.information_state_string(player) == state.information_state_string(player)
                assert world.observation_string(player) == state.observation_string(player)
                assert world.information_state_tensor(player) == state.information_state_tensor(player)
                assert world.observation_tensor(player) == state.observation_tensor(player)
                assert world.current_player() == state.current_player()
                assert world.legal_actions() == state.legal_actions()
                assert world.returns()[player] == state.returns()[player]
                while not world.is_terminal():
                    if world.is_chance_node():
                        outcomes, probabilities = zip(*world.chance_outcomes(), strict=True)
                        world.apply_action(int(rng.choice(outcomes, p=probabilities)))
                    else:
                        world.apply_action(int(rng.choice(world.legal_actions())))
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_a_states_picture_shows_a_seat_only_its_information_set(openspiel):
    """``State.picture(player)`` is the AEC env's frame of that seat: a world resampled for the seat
    (its hidden cards, clues and chips drawn afresh) gives the same picture, pixel for pixel."""
    pytest.importorskip("PIL", reason="pictures need the render extra")
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 4, "cafe_adler": True})
    rng = np.random.RandomState(1)
    state, seen = game.new_initial_state(), 0
    while not state.is_terminal() and seen < 4:
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        player = state.current_player()
        world = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        picture = state.picture(player)
        assert picture.shape[2] == 3 and picture.dtype == np.uint8
        assert np.array_equal(world.picture(player), picture)
        seen += str(world) != str(state)  # the hidden part did change
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert seen == 4


def test_resampling_where_it_is_defined(openspiel):
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 3})
    state = game.new_initial_state()
    for _ in range(30):  # into the supply's chance nodes: a world is a new game
        state.apply_action(state.chance_outcomes()[0][0])
    fresh = state.resample_from_infostate(0, random.Random(0).random)
    assert fresh.is_chance_node() and str(fresh) == str(game.new_initial_state())
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[-1][0])
    state.apply_action(state.legal_actions()[-1])  # an accusation: the next card's window is a chance node
    while not state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="decision nodes"):
        state.resample_from_infostate(0, random.Random(0).random)


def test_a_chip_lost_in_a_swap_stays_with_the_swapper(openspiel):
    """What a player saw of its own chip going to a Cafe Adler swapper is kept in every world it draws."""
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 5, "cafe_adler": True})
    rng = np.random.RandomState(3)
    checked = 0
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal() and checked < 5:
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probabilities)))
                continue
            for player, known in enumerate(state._course.known):
                if known:
                    world = state.resample_from_infostate(player, rng.random_sample)
                    for chip, holder in known.items():
                        assert chip in world.game_state.holdings[holder]
                    checked += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
        if checked >= 5:
            break
    assert checked


def test_information_state_is_perfect_recall_and_private(openspiel):
    """The information state string recalls the decisions (others' chosen faces hidden); the
    observation string holds no hidden clue of another seat."""
    import pyspiel

    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": 3, "clue_face": "choose"})
    state = game.new_initial_state()
    rng = np.random.RandomState(4)
    while state.is_chance_node() or state.current_player() < 0:
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=probabilities)))
    chooser = state.current_player()
    before = [state.information_state_string(p) for p in range(3)]
    state.apply_action(34)  # clue face B
    after = [state.information_state_string(p) for p in range(3)]
    chosen = clue_name(state.game_state.clues[chooser])
    assert after[chooser].endswith(f":{chooser}:34\nown chips: ")
    assert f"clue {chosen}" in state.observation_string(chooser)
    for p in range(3):
        assert after[p] != before[p]
        if p != chooser:
            assert after[p].endswith(f":{chooser}:face\nown chips: ")
            assert chosen not in state.observation_string(p) and chosen not in after[p]


def test_an_ismcts_seat_in_a_tournament(openspiel):
    """``register_agents`` names the ISMCTS player for tournaments; a seeded one plays alike twice."""
    from ckc_env.agents import REGISTRY
    from ckc_env.evaluation.tournament import run_tournament

    openspiel.register_agents()
    try:
        lineup = [{"name": openspiel.ISMCTS_NAME, "simulations": 8}, "random", "random"]
        runs = [run_tournament(lineup, games=6, seed=1, config={"max_rounds": 1}, workers=1) for _ in range(2)]
    finally:
        REGISTRY.pop(openspiel.ISMCTS_NAME, None)
    assert runs[0].games == 6 and runs[0].engine == "scalar"
    assert runs[0].per_game == runs[1].per_game


def test_the_example_plays_ismcts_against_random_bots(openspiel, capsys):
    example = runpy.run_path(str(ROOT / "examples" / "openspiel_ismcts.py"), run_name="example_openspiel")
    example["openspiel_games"](players=3, games=2, simulations=4, max_rounds=1, seed=0)
    assert "ISMCTS (4 simulations) against 2 random bots, 2 games" in capsys.readouterr().out


def test_the_package_needs_no_open_spiel(openspiel):
    """Without pyspiel the engine, the environments and the tournaments import and play."""
    code = (
        "import sys; sys.modules['pyspiel'] = None\n"
        "import ckc_env, ckc_env.engine, ckc_env.resample, ckc_env.evaluation.tournament\n"
        "env = ckc_env.env(num_players=3); env.reset(seed=0)\n"
        "try:\n    import ckc_env.envs.openspiel\nexcept ImportError:\n    print('refused')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "refused"


# ---------------------------------------------------------------------------------------------- hostile values
@pytest.mark.parametrize(
    "params, message",
    [
        ({"simulations": 1e9}, r"invalid simulations=1000000000\.0: accepted values are integers from 1 to 100000"),
        ({"simulations": 10**9}, r"invalid simulations=1000000000: accepted values are integers from 1 to 100000"),
        ({"simulations": 0}, r"invalid simulations=0: accepted values are integers from 1"),
        ({"simulations": -5}, r"invalid simulations=-5"),
        ({"simulations": "10"}, r"invalid simulations='10'"),
        ({"simulations": 2.5}, r"invalid simulations=2\.5"),
        ({"simulations": True}, r"invalid simulations=True"),
        ({"rollouts": 0}, r"invalid rollouts=0: accepted values are integers from 1 to 100"),
        ({"rollouts": 10**6}, r"invalid rollouts=1000000"),
        ({"uct_c": float("nan")}, r"invalid uct_c=nan: accepted values are finite numbers > 0"),
        ({"uct_c": float("inf")}, r"invalid uct_c=inf"),
        ({"uct_c": 0}, r"invalid uct_c=0"),
        ({"uct_c": "4"}, r"invalid uct_c='4'"),
        ({"reward": "glory"}, r"invalid reward='glory': accepted values are \['points', 'win', 'margin'\]"),
    ],
)
def test_ismcts_parameters_are_checked_when_the_spec_is_validated(openspiel, capsys, params, message):
    """Each parameter with the value and its range, before any game is played (it used to be an
    AssertionError or a TypeError in play, or a run without end)."""
    import time

    from ckc_env import players
    from ckc_env.agents import REGISTRY
    from ckc_env.evaluation.commands import evaluate
    from ckc_env.evaluation.tournament import run_tournament

    openspiel.register_agents()
    spec = {"name": openspiel.ISMCTS_NAME, **params}
    started = time.perf_counter()
    try:
        for call in (
            lambda: players.validate(spec),
            lambda: run_tournament([spec, "random", "random"], games=3, workers=1),
            lambda: openspiel.ISMCTSAgent(seed=0, **params),
        ):
            with pytest.raises(ValueError, match=message):
                call()
        if "reward" not in params:
            game = openspiel.load(GameConfig(num_players=3))
            with pytest.raises(ValueError, match=message):
                openspiel.ismcts_bot(game, np.random.RandomState(0), **params)
        if not any(isinstance(v, str) and v[0].isdigit() for v in params.values()):  # "10" is 10 on a command line
            text = openspiel.ISMCTS_NAME + ":" + ",".join(f"{k}={v}" for k, v in params.items())
            with pytest.raises(SystemExit) as info:
                evaluate.main(["--lineup", text, "random", "random", "--games", "3", "--no-progress"])
            assert info.value.code == 2
            assert "invalid " + next(iter(params)) in capsys.readouterr().err
    finally:
        REGISTRY.pop(openspiel.ISMCTS_NAME, None)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    "params, message",
    [
        ({"players": 2**40}, r"invalid players=1099511627776: accepted values are 3, 4 or 5"),
        ({"players": -(2**40)}, r"invalid players=-1099511627776: accepted values are 3, 4 or 5"),
        ({"players": 7}, r"invalid players=7: accepted values are 3, 4 or 5"),
        ({"max_rounds": 2**63}, r"invalid max_rounds=9223372036854775808: accepted values are an integer from 1 to 5"),
        ({"target_points": 2**31}, r"invalid target_points=2147483648: accepted values are an integer from 1 to 50"),
        (
            {"first_player": "seat " + "9" * 5000},
            r"invalid first_player='seat 999.*': accepted values are 'random' or a seat",
        ),
        ({"bogus": 1, 3: 4}, r"unknown parameter\(s\) \['bogus', 3\]: accepted parameters are \['players'"),
    ],
)
def test_load_game_names_a_parameter_openspiel_cannot_hold(openspiel, params, message):
    """OpenSpiel converts parameters to C++ before the game's constructor sees them: an integer
    beyond a C++ int was pybind11's "Unable to cast Python instance" with no parameter named."""
    import pyspiel

    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(openspiel.GAME_NAME, params)
    with pytest.raises(ValueError, match=message):
        openspiel.config_of(params)


def test_a_game_string_with_an_integer_openspiel_cannot_hold_is_named(openspiel):
    import pyspiel

    with pytest.raises(ValueError, match=r"invalid players=1099511627776: accepted values are 3, 4 or 5"):
        pyspiel.load_game(f"{openspiel.GAME_NAME}(players=1099511627776,stasi=True)")
    with pytest.raises(ValueError, match=r"invalid max_rounds='9999.*': accepted values are an integer from 1 to 5"):
        pyspiel.load_game(f"{openspiel.GAME_NAME}(max_rounds={'9' * 5000})")
    game = pyspiel.load_game(openspiel.GAME_NAME, {"players": np.int64(4), "stasi": np.bool_(True)})
    assert game.config == GameConfig(num_players=4, stasi=True)
    assert pyspiel.load_game("kuhn_poker", {"players": 3}).num_players() == 3  # other games load as before
    assert pyspiel.load_game.__wrapped__ is not pyspiel.load_game
