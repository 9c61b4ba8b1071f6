"""Rule scenarios for RULES.md 5 (scoring), 6 (end of the game), 9 (seeded randomness), rewards and infos."""

from __future__ import annotations

import random

import numpy as np
import pytest
from rules_helpers import (
    ALL_A,
    BLACK,
    CHIEF_A,
    GOLD,
    ROUND_ASSISTANTS,
    ROUND_CATCH,
    ROUND_INNOCENTS,
    WHITE,
    absolute,
    accuse,
    act,
    acting,
    agent,
    build_deck,
    cats,
    first_player,
    last_drawer,
    make_env,
    over,
    own_chips,
    passes,
    piece,
    play_out,
    play_script,
    random_policy,
    round3,
    round_number,
    step,
    summary,
    supply,
)

import ckc_env


def _five_player_scoring(env, totals=None):
    """5 players: cats 31 (chief), 30 (assistant), 7 and 8 (innocents, 3 and 1 clue values) are drawn
    into rows of seats 0..3; in the window after seat 3's card, seats 3, 4, 0, 1 accuse 8, 31, 30, 7;
    seat 2 does not."""
    chips = {"gold": [4, 3, 3, 4, 5], "white": [2, *WHITE[:-1]], "black": [-1, 0, -1, 0, 0, 0, -1, -1]}
    deck = build_deck(5, top=[CHIEF_A, 30, 7, 8])
    env.reset(seed=0, options={"first_player": 0, "clues": ALL_A, "deck": deck, "chip_order": chips})
    passes(env, 0, 1, 2, 3, 4, totals=totals)
    passes(env, 1, 2, 3, 4, 0, totals=totals)
    passes(env, 2, 3, 4, 0, 1, totals=totals)
    for seat, cat in [(3, 8), (4, CHIEF_A), (0, 30), (1, 7)]:
        act(env, seat, accuse(cat), totals=totals)


# ---------------------------------------------------------------------- 5. scoring
def test_s5_chips_gold_white_black_handed_out_in_accusation_order():
    env = make_env(5, max_rounds=1)
    totals = {}
    _five_player_scoring(env, totals)
    assert over(env)
    info = summary(env)
    assert info["accusations"] == [
        {"seat": 3, "cat": 8, "colour": "black", "received": True, "cards_drawn": 4},  # innocent
        {"seat": 4, "cat": CHIEF_A, "colour": "gold", "received": True, "cards_drawn": 4},  # chief
        {"seat": 0, "cat": 30, "colour": "white", "received": True, "cards_drawn": 4},  # assistant
        {"seat": 1, "cat": 7, "colour": "black", "received": True, "cards_drawn": 4},  # 3 clue values
    ]
    assert info["non_accusers"] == [{"seat": 2, "colour": "black", "received": True}]  # chief drawn
    # Black chips -1, 0, -1 go to seats 3, 1, 2 in that order (accusation order, non-accuser last).
    expected = {0: [2], 1: [0], 2: [-1], 3: [-1], 4: [4]}
    for seat, values in expected.items():
        assert own_chips(env, seat) == values
        assert totals[seat] == sum(values)
    assert info["chip_colours"] == [[0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1], [1, 0, 0]]
    assert info["supply"] == [4, 11, 5]


def _non_accuser_colour(scenario: str, option: str | None) -> str:
    """Play a 3-player round in one of three situations; returns the colour the non-accuser took."""
    env = make_env(3, max_rounds=1, **({} if option is None else {"non_accuser_white": option}))
    if scenario == "chief_in_deck":
        setup, script, non_accuser = round3([1, 2]), [(0, accuse(1)), (1, accuse(2))], 2
    elif scenario == "chief_caught":
        setup, script, non_accuser = round3([1, CHIEF_A]), [(0, accuse(1)), (1, accuse(CHIEF_A))], 2
    else:  # seat 1 draws the chief into its row; nobody accuses him
        setup = round3([1, CHIEF_A, 4])
        script, non_accuser = [(0, accuse(1)), (1, 0), (2, 0), (2, accuse(4))], 1
    env.reset(seed=0, options={"first_player": 0, **setup})
    play_script(env, script)
    info = summary(env)
    assert info["chief_drawn"] == (scenario != "chief_in_deck")
    [record] = info["non_accusers"]
    assert record["seat"] == non_accuser and record["received"]
    seen = np.rint(absolute(env, 0, "chip_colours")[non_accuser] * 10).astype(int).tolist()
    assert seen == [0, int(record["colour"] == "white"), int(record["colour"] == "black")]
    return record["colour"]


@pytest.mark.parametrize(
    ("scenario", "colour"),
    [("chief_in_deck", "white"), ("chief_drawn_uncaught", "black"), ("chief_caught", "black")],
)
@pytest.mark.parametrize("option", [None, "chief_in_deck"], ids=["default", "explicit"])
def test_s5_non_accuser_white_when_chief_in_deck(scenario, colour, option):
    """Default (Spanish/French editions): white only when the chief was still in the deck."""
    assert _non_accuser_colour(scenario, option) == colour


@pytest.mark.parametrize(
    ("scenario", "colour"),
    [("chief_in_deck", "white"), ("chief_drawn_uncaught", "white"), ("chief_caught", "black")],
)
def test_s5_option_chief_uncaught(scenario, colour):
    """Option chief_uncaught (German edition): white whenever nobody accused the chief."""
    assert _non_accuser_colour(scenario, "chief_uncaught") == colour


def test_s5_colour_runs_out_in_accusation_order():
    """Two whites for three white takers: seat 2 (first accuser) and seat 0 get them, seat 1
    (the non-accuser, served last) gets nothing, though it comes before seat 2 in seat order."""
    pool = {"gold": GOLD, "white": [1, 2], "black": BLACK}
    env = make_env(3, max_rounds=3, chip_pool=pool)
    setup, _ = ROUND_ASSISTANTS
    env.reset(seed=0, options={"first_player": 0, **setup, "chip_order": {"white": [2, 1]}})
    passes(env, 0, 1, 2)
    passes(env, 1)
    act(env, 2, accuse(30))
    act(env, 0, accuse(29))
    info = summary(env)
    assert info["accusations"] == [
        {"seat": 2, "cat": 30, "colour": "white", "received": True, "cards_drawn": 2},
        {"seat": 0, "cat": 29, "colour": "white", "received": True, "cards_drawn": 2},
    ]
    assert info["non_accusers"] == [{"seat": 1, "colour": "white", "received": False}]
    assert (own_chips(env, 2), own_chips(env, 0), own_chips(env, 1)) == ([2], [1], [])


def test_s5_clues_revealed_at_scoring_bag_tile_tossed():
    env = make_env(3, max_rounds=1)
    setup = {"clues": [1, 2, 5], "bag": [7, 8], "deck": build_deck(3, top=[2, 3])}
    env.reset(seed=0, options={"first_player": 0, **setup})
    for seat in range(3):  # during the round: only the own clue, no bag face
        assert not piece(env, seat, "public_clues").any()
        exposed = absolute(env, seat, "exposed_clues")
        assert not exposed.any()
    act(env, 0, accuse(2))
    act(env, 1, accuse(3))
    info = summary(env)
    assert info["clues"] == [1, 2, 5] and info["public_clues"] == [] and info["bag_clues"] == [7, 8]
    assert info["chief"] == 0b10010  # no hat, sunglasses, sweater, no newspaper, grey
    for seat in range(3):
        exposed = absolute(env, seat, "exposed_clues")
        assert [int(np.flatnonzero(e)[0]) for e in exposed] == [1, 2, 5]
        assert cats(piece(env, seat, "public_clues")) == {7, 8}


def test_s5_chip_colours_public_values_private():
    env = make_env(5, max_rounds=1)
    _five_player_scoring(env)
    colours = [[0, 1, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1], [1, 0, 0]]
    values = {0: [2], 1: [0], 2: [-1], 3: [-1], 4: [4]}
    for observer in range(5):
        seen = np.rint(absolute(env, observer, "chip_colours") * 10).astype(int).tolist()
        assert seen == colours
        own = np.rint(piece(env, observer, "own_chip_values") * 10).astype(int)
        assert {v - 2: int(k) for v, k in enumerate(own) if k} == {values[observer][0]: 1}
        info = env.infos[agent(observer)]
        assert info["own_chips"] == {"values": values[observer], "points": sum(values[observer])}


def test_s5_catcher_is_first_player_of_next_round():
    env = make_env(3, max_rounds=2)
    rounds = [round3([1, CHIEF_A]), round3([2, 4])]  # round 2 dealt for first player 1
    env.reset(seed=0, options={"first_player": 0, "rounds": rounds})
    act(env, 0, accuse(1))
    act(env, 1, accuse(CHIEF_A))  # seat 1 catches the chief
    assert summary(env)["next_first_player"] == 1
    assert round_number(env) == 2
    assert first_player(env) == 1 and last_drawer(env) == 1 and acting(env) == 1
    for observer in range(3):
        assert first_player(env, observer) == 1


# ---------------------------------------------------------------------- 6. end of the game
def test_s6_game_ends_at_10_points():
    pool = {"gold": [5] * 5, "white": WHITE, "black": BLACK}
    env = make_env(3, chip_pool=pool)
    setup, script = ROUND_CATCH
    env.reset(seed=0, options={"first_player": 0, "rounds": [setup] * 3})
    play_script(env, script)
    assert not over(env) and round_number(env) == 2  # 5 points: the game goes on
    assert not summary(env)["game_over"]
    play_script(env, script)
    assert over(env)  # seat 0 has 10 points
    info = summary(env)
    assert info["game_over"] and info["reasons"] == ["points"] and info["round"] == 2
    assert info["totals"][0] == 10


def test_s6_game_ends_above_target_points_option():
    env = make_env(3, target_points=4)
    setup, script = ROUND_CATCH
    env.reset(seed=0, options={"first_player": 0, "rounds": [setup], "chip_order": {"gold": [4, 3, 3, 4, 5]}})
    play_script(env, script)
    assert over(env) and summary(env)["reasons"] == ["points"]


def test_s6_game_ends_when_a_colour_is_used_up():
    setup, script = ROUND_CATCH
    for golds, ends in (([3], True), ([3, 3], False)):
        env = make_env(3, chip_pool={"gold": golds, "white": WHITE, "black": BLACK})
        env.reset(seed=0, options={"first_player": 0, "rounds": [setup] * 2})
        play_script(env, script)
        assert over(env) == ends
        assert summary(env)["game_over"] == ends
        if ends:
            assert summary(env)["reasons"] == ["colour_used_up"]
            assert supply(env)[0] == 0


def _summaries_of_random_game(env, seed: int, choose) -> list[dict]:
    """Play ``env()`` with random legal actions (``choose(legal)``); return player_0's round summaries."""
    env.reset(seed=seed)
    summaries = []
    for name in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        if name == "player_0" and "round_summary" in info:
            summaries.append(info["round_summary"])
        env.step(None if terminated or truncated else choose(np.flatnonzero(obs["action_mask"]).tolist()))
    return summaries


def test_s6_stasi_chip_does_not_undo_a_used_up_black_supply():
    """RULES.md 6 [decision] (as reported): 3 players, Stasi, a 2-chip black pool. In round 1 seat 2
    takes the Stasi chip and seat 0 the last black chip: black is used up, the game ends there
    (seed 24: a game found with that course)."""
    env = ckc_env.env(
        num_players=3,
        stasi=True,
        summary_infos=True,
        chip_pool={"gold": [3, 4, 5], "white": [1, 1, 2], "black": [0, -1]},
    )
    rng = np.random.default_rng(24)
    summaries = _summaries_of_random_game(env, 24, lambda legal: int(rng.choice(legal)))
    assert len(summaries) == 1
    last = summaries[0]
    assert last["stasi_taken_by"] == 2 and last["accusations"][1]["seat"] == 0
    assert last["game_over"] and last["reasons"] == ["colour_used_up"] and last["supply"][2] == 0


def test_s6_a_player_due_black_who_gets_none_ends_a_stasi_game():
    """RULES.md 6 [decision] (as reported): 4 players, Stasi, seed 51 (a game found with that course).
    In round 4 seat 0 is due black and gets none: the game ends with that round, for that reason."""
    env = ckc_env.env(num_players=4, stasi=True, summary_infos=True)
    rng = random.Random(51)
    summaries = _summaries_of_random_game(env, 51, rng.choice)
    last = summaries[-1]
    assert last["round"] == 4 and last["game_over"] and "colour_used_up" in last["reasons"]
    missed = [r for r in last["accusations"] + last["non_accusers"] if not r["received"]]
    assert [(r["seat"], r["colour"]) for r in missed] == [(0, "black")]
    assert all(not s["game_over"] for s in summaries[:-1])


def test_s6_reasons_list_every_condition_that_holds():
    """The last round's scoring also uses up gold: both reasons are listed."""
    setup, script = ROUND_CATCH
    env = make_env(3, max_rounds=1, chip_pool={"gold": [3], "white": WHITE, "black": BLACK})
    env.reset(seed=0, options={"first_player": 0, **setup})
    play_script(env, script)
    assert over(env) and summary(env)["reasons"] == ["colour_used_up", "last_round"]


@pytest.mark.parametrize("max_rounds", [5, 2])
def test_s6_game_ends_after_the_last_round(max_rounds):
    """Five rounds (or max_rounds): nobody reaches 10, no colour runs out."""
    pool = {"gold": GOLD, "white": [1] * 12, "black": [0] * 20}
    env = make_env(3, chip_pool=pool, **({} if max_rounds == 5 else {"max_rounds": max_rounds}))
    setup, script = ROUND_INNOCENTS
    env.reset(seed=0, options={"first_player": 0, "rounds": [setup] * max_rounds})
    for r in range(1, max_rounds + 1):
        assert round_number(env) == r and not over(env)
        play_script(env, script)
        assert summary(env)["game_over"] == (r == max_rounds)
    assert over(env)
    info = summary(env)
    assert info["reasons"] == ["last_round"]
    assert info["totals"] == [0, 0, max_rounds]
    assert info["winners"] == [2]


def test_s6_highest_total_wins():
    env = make_env(5, max_rounds=1, reward="win")
    _five_player_scoring(env)
    info = summary(env)
    assert info["totals"] == [2, 0, -1, -1, 4] and info["winners"] == [4]
    assert info["gold"] == [0, 0, 0, 0, 1]
    assert env.rewards == {agent(s): (1.0 if s == 4 else -0.25) for s in range(5)}


def test_s6_gold_tiebreak():
    """Seats 0 and 1 both have 3 points; seat 0's gold chip breaks the tie."""
    env = make_env(3, max_rounds=2, reward="win")
    r1 = (round3([CHIEF_A, 30]), [(0, accuse(CHIEF_A)), (1, accuse(30))])  # 0 gold, 1 white, 2 black
    r2 = (round3([1, 27]), [(0, accuse(1)), (1, accuse(27))])  # 0 black, 1 white, 2 white (chief in deck)
    chips = {"gold": GOLD, "white": [2, 1, 1] + [1] * 4 + [2] * 5, "black": [0, 0, -1, -1, -1, -1, 0, 0]}
    env.reset(seed=0, options={"first_player": 0, "rounds": [r1[0], r2[0]], "chip_order": chips})
    totals = {}
    play_script(env, r1[1], totals)
    play_script(env, r2[1], totals)
    info = summary(env)
    assert info["totals"] == [3, 3, 1] and info["gold"] == [1, 0, 0]
    assert info["winners"] == [0]
    assert totals == {0: 1.0, 1: -0.5, 2: -0.5}


def test_s6_shared_win():
    """Seats 0 and 2 tie on points and gold chips: both win."""
    env = make_env(3, max_rounds=1, reward="win")
    setup, script = ROUND_ASSISTANTS
    white = [2, 2, 1] + [1] * 5 + [2] * 4  # seat 2, seat 0 (accusers), then seat 1 (non-accuser)
    env.reset(seed=0, options={"first_player": 0, **setup, "chip_order": {"white": white}})
    totals = {}
    play_script(env, script, totals)
    info = summary(env)
    assert info["totals"] == [2, 1, 2] and info["gold"] == [0, 0, 0]
    assert info["winners"] == [0, 2]
    assert totals == {0: 0.5, 1: -1.0, 2: 0.5}


# ---------------------------------------------------------------------- rewards and infos
@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("variants", [{}, {"stasi": True, "cafe_adler": True}])
def test_rewards_points_sum_to_final_totals(n, variants):
    for seed in range(5):
        env = make_env(n, window_order="random", **variants)
        env.reset(seed=seed)
        totals = dict.fromkeys(range(n), 0.0)
        play_out(env, random_policy(np.random.default_rng(seed)), totals)
        info = summary(env)
        assert [totals[s] for s in range(n)] == info["totals"]
        for s in range(n):
            assert env.infos[agent(s)]["own_chips"]["points"] == info["totals"][s]


@pytest.mark.parametrize("n", [3, 5])
def test_rewards_win_scheme(n):
    for seed in range(6):
        env = make_env(n, reward="win", window_order="random")
        env.reset(seed=seed)
        totals = dict.fromkeys(range(n), 0.0)
        rng = np.random.default_rng(seed)
        while not over(env):
            assert all(r == 0 for r in env.rewards.values())  # nothing before the end
            step(env, random_policy(rng)(env), totals)
        winners = summary(env)["winners"]
        for s in range(n):
            expected = 1 / len(winners) if s in winners else -1 / (n - len(winners))
            assert totals[s] == pytest.approx(expected)


def test_infos_round_summary_contents():
    env = make_env(5, max_rounds=2)
    _five_player_scoring(env)
    assert not over(env)
    for s in range(5):  # every agent gets the same public summary
        info = summary(env, s)
        assert info == summary(env, 0)
    info = summary(env)
    assert info["round"] == 1
    assert info["clues"] == ALL_A and info["public_clues"] == [] and info["bag_clues"] == []
    assert info["chief"] == CHIEF_A and info["chief_drawn"]
    assert sorted(info["assistants"]) == [15, 23, 27, 29, 30]
    assert info["next_first_player"] == 4
    assert info["stasi_taken_by"] is None and info["swaps"] == []
    assert info["game_over"] is False
    assert "totals" not in info and "winners" not in info


def _keys(obj, prefix=""):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield f"{prefix}{key}"
            yield from _keys(value, f"{prefix}{key}.")
    elif isinstance(obj, list):
        for item in obj:
            yield from _keys(item, prefix)


def test_infos_never_show_other_players_chip_values():
    """Each agent's info holds the public summary (colours, no values before the end) and its own chips."""
    checked = 0
    for seed in range(6):
        env = make_env(4, stasi=True, cafe_adler=True, window_order="random")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        seen_round = 0
        while not over(env):
            env.step(random_policy(rng)(env))
            infos = [env.infos[agent(s)] for s in range(4)]
            new = [i for i in infos if "round_summary" in i and i["round_summary"]["round"] > seen_round]
            if not new:
                continue
            assert len(new) == 4  # the step that ended a round: every agent is informed
            seen_round = new[0]["round_summary"]["round"]
            for s, info in enumerate(infos):
                checked += 1
                assert set(info) == {"round_summary", "own_chips"}
                keys = set(_keys(info["round_summary"]))
                # chip values appear only as the final totals (all chips turned over at the end)
                assert not {k for k in keys if "value" in k or k.split(".")[-1] == "chip" or "points" in k}
                assert ("totals" in keys) == info["round_summary"]["game_over"]
                own = np.rint(piece(env, s, "own_chip_values") * 10).astype(int)
                hist = {v - 2: int(k) for v, k in enumerate(own) if k}
                values = info["own_chips"]["values"]
                assert {v: values.count(v) for v in values} == hist
                assert info["own_chips"]["points"] == sum(values)
    assert checked >= 6 * 4


# ---------------------------------------------------------------------- 9. seeded randomness
def test_s9_same_seed_same_actions_same_game():
    def run(seed):
        env = make_env(4, stasi=True, cafe_adler=True, window_order="random")
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        trace = []
        while not over(env):
            trace.append(env.observe(env.agent_selection)["observation"].copy())
            env.step(random_policy(rng)(env))
        return trace, env.unwrapped.state()

    a, b, c = run(5), run(5), run(6)
    assert len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    assert np.array_equal(a[1], b[1])
    assert len(a[0]) != len(c[0]) or not all(np.array_equal(x, y) for x, y in zip(a[0], c[0], strict=True))


def test_s9_environment_places_cards_itself():
    """No decision is ever about placing a card or announcing points: only windows, forced
    accusations, clue faces and Cafe Adler choices."""
    env = make_env(5, clue_face="choose", cafe_adler=True, window_order="random")
    env.reset(seed=3)
    log = play_out(env, random_policy(np.random.default_rng(3)))
    assert {d["kind"] for d in log} <= {"window", "forced_accusation", "clue_face", "cafe_adler"}
    assert over(env) and summary(env)["game_over"]
