"""Rule scenarios for RULES.md 7 (the Stasi officer) and 8 (Cafe Adler)."""

from __future__ import annotations

import numpy as np
import pytest
from rules_helpers import (
    ALL_B,
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
    decision,
    legal,
    make_env,
    over,
    own_chips,
    piece,
    play_script,
    round3,
    round_number,
    summary,
    supply,
)

from ckc_env.engine.actions import KEEP, swap

STASI_FIRST = ["stasi", 0, 0, 0, 0, -1, -1, -1]  # the black chips of the Stasi pool, Stasi chip first
ADLER_LAST = [0, 0, 0, 0, -1, -1, -1, "adler"]  # the black chips of the Cafe Adler pool, Adler chip last


def exposed(env, observer: int) -> dict[int, int]:
    """Clues lying face-up as ``observer`` sees them: absolute seat -> clue."""
    return {
        s: int(np.flatnonzero(row)[0]) for s, row in enumerate(absolute(env, observer, "exposed_clues")) if row.any()
    }


def stasi_card(env, observer: int) -> int:
    hot = np.flatnonzero(piece(env, observer, "stasi_card"))
    return -1 if not len(hot) else (observer + int(hot[0])) % env.unwrapped.config.num_players


def counts(env, observer: int, name: str) -> list[list[int]]:
    """Per-colour counts of a (seats, 3) chip piece, absolute seats (pieces are scaled by 1/10 or 1/2)."""
    scale = 10 if name == "chip_colours" else 2
    return np.rint(absolute(env, observer, name) * scale).astype(int).tolist()


# ---------------------------------------------------------------------- 7. the Stasi officer
def test_s7_stasi_pool_replaces_a_black_minus_1():
    env = make_env(4, stasi=True)
    env.reset(seed=0, options={"chip_order": {"black": STASI_FIRST}})
    assert supply(env) == [5, 12, 8]
    with pytest.raises(ValueError):  # only three -1 are left
        env.reset(seed=0, options={"chip_order": {"black": [0, 0, 0, 0, -1, -1, -1, -1]}})


def test_s7_stasi_exposes_clue_next_round():
    """Seat 0 takes the Stasi chip in round 1: its round-2 clue is public all round 2, then the card goes back."""
    env = make_env(3, stasi=True, max_rounds=3)
    round2 = {"clues": ALL_B[:3], "bag": ALL_B[3:], "deck": build_deck(3, top=[2, 1])}  # chief 0
    env.reset(
        seed=0,
        options={"first_player": 0, "rounds": [ROUND_INNOCENTS[0], round2], "chip_order": {"black": STASI_FIRST}},
    )
    for observer in range(3):
        assert exposed(env, observer) == {} and stasi_card(env, observer) == -1
    totals = {}
    play_script(env, ROUND_INNOCENTS[1], totals)  # seat 0 takes the first black chip: the Stasi chip
    info = summary(env)
    assert info["stasi_taken_by"] == 0 and info["stasi_exposed"] is None
    assert own_chips(env, 0) == [] and totals[0] == 0  # the chip went back to the supply
    assert own_chips(env, 1) == [0]
    assert supply(env)[2] == 8 - 2 + 1
    # Round 2: seat 0's clue (1: "no hat") lies face-up for everyone.
    assert round_number(env) == 2
    for observer in range(3):
        assert exposed(env, observer) == {0: 1} and stasi_card(env, observer) == 0
    act(env, 0, 1 + 2)  # seat 0 accuses cat 2 (assistant: white)
    for observer in range(3):
        assert exposed(env, observer) == {0: 1}
    act(env, 1, 1 + 1)  # seat 1 accuses cat 1 (assistant: white); seat 2: white (chief in deck)
    info = summary(env)
    assert info["stasi_exposed"] == 0 and info["stasi_taken_by"] is None
    # Round 3: the card went back to the middle, nobody took the Stasi chip: no clue is exposed.
    assert round_number(env) == 3
    for observer in range(3):
        assert exposed(env, observer) == {} and stasi_card(env, observer) == -1


@pytest.mark.parametrize("end", ["last_round", "colour_used_up"])
def test_s7_stasi_kept_in_last_round_minus_2(end):
    if end == "last_round":  # seat 0 takes the Stasi chip in the only round
        env = make_env(3, stasi=True, max_rounds=1)
        (setup, script), holder = ROUND_INNOCENTS, 0
    else:  # seat 1 takes it in a round that uses up the gold chips
        env = make_env(3, stasi=True, chip_pool={"gold": [3], "white": WHITE, "black": [0] * 4 + [-1] * 4})
        (setup, script), holder = ROUND_CATCH, 1
    env.reset(seed=0, options={"first_player": 0, **setup, "chip_order": {"black": STASI_FIRST}})
    totals = {}
    play_script(env, script, totals)
    assert over(env)
    info = summary(env)
    assert info["reasons"] == [end] and info["stasi_taken_by"] == holder
    assert own_chips(env, holder) == [-2]
    assert info["totals"][holder] == -2 and totals[holder] == -2


def test_s7_stasi_chip_ends_the_game_when_it_empties_the_black_supply():
    """RULES.md 6 [decision], 7: the only black chip is the Stasi chip. Seat 0 takes it: black is used
    up at the end of the hand-out, and its return would not undo that, so the game ends there and
    seat 0 keeps the Stasi chip (-2)."""
    env = make_env(3, stasi=True, max_rounds=2, chip_pool={"gold": GOLD, "white": WHITE, "black": [-1]})
    env.reset(seed=0, options={"first_player": 0, "rounds": [round3([1, 30])]})
    assert supply(env) == [5, 12, 1]
    totals = {}
    play_script(env, [(0, 1 + 1), (1, 1 + 30)], totals)  # seat 0: innocent, black (the Stasi chip); seat 1: white
    info = summary(env)
    assert over(env) and info["game_over"]
    assert info["reasons"] == ["colour_used_up"] and info["stasi_taken_by"] == 0
    assert info["supply"] == [5, 10, 0]
    assert own_chips(env, 0) == [-2] and totals[0] == -2 and info["totals"][0] == -2


def test_s7_a_player_due_black_gets_nothing_after_the_stasi_chip():
    """RULES.md 6 [decision], 7: seat 0 takes the Stasi chip, the last black chip; seat 1 is due black
    and gets none: the game ends, and seat 0 keeps the Stasi chip."""
    env = make_env(3, stasi=True, max_rounds=3, chip_pool={"gold": GOLD, "white": WHITE, "black": [-1]})
    setup, script = ROUND_INNOCENTS  # seats 0 and 1 accuse innocents (black), seat 2 takes white
    env.reset(seed=0, options={"first_player": 0, "rounds": [setup]})
    play_script(env, script)
    info = summary(env)
    assert over(env) and info["reasons"] == ["colour_used_up"]
    assert [(a["seat"], a["colour"], a["received"]) for a in info["accusations"]] == [
        (0, "black", True),
        (1, "black", False),
    ]
    assert info["stasi_taken_by"] == 0 and own_chips(env, 0) == [-2]


def test_s7_stasi_chip_goes_back_only_if_the_game_goes_on():
    """RULES.md 7 [decision]: the taker holds the Stasi chip (face-up, -2) until the end check; the game
    goes on, so it goes back into the black supply and its taker's points are as before."""
    env = make_env(3, stasi=True, cafe_adler=True, max_rounds=2)
    setup, script = ROUND_INNOCENTS  # seat 0: black (the Stasi chip), seat 1: black (Cafe Adler), seat 2: white
    chips = {"black": ["stasi", "adler", 0, 0, 0, 0, -1, -1], "white": [1] * 4 + ["adler", "adler"] + [2] * 6}
    env.reset(seed=0, options={"first_player": 0, **setup, "chip_order": chips})
    totals = {}
    play_script(env, script, totals)
    # Seat 1's hidden black Adler chip could be swapped only for the Stasi chip, which lies face-up
    # while held: no swap is possible, so seat 1 is never asked, and round 2 starts.
    assert round_number(env) == 2 and not over(env)
    assert decision(env) == "window"
    info = summary(env)
    assert info["stasi_taken_by"] == 0 and not info["game_over"]
    assert info["supply"][2] == 8 - 2 + 1  # the Stasi chip is back
    assert own_chips(env, 0) == [] and totals[0] == 0  # -2 when taken, +2 back
    assert own_chips(env, 1) == [-1]


def test_s7_held_stasi_chip_counts_minus_2_at_the_end_check():
    """RULES.md 7 [decision]: seat 0 takes the Stasi chip in round 3 and, in the same scoring phase, swaps
    its hidden gold Cafe Adler chip (3) for seat 1's gold 5. Its chips then show 2 + 5, but the held
    Stasi chip counts -2 at the end check: 5 points, short of target_points=7, so the game goes on."""
    env = make_env(3, stasi=True, cafe_adler=True, target_points=7)
    round1 = (round3([29, CHIEF_A]), [(0, accuse(29)), (1, accuse(CHIEF_A))])
    round2 = (
        round3([2, 4, CHIEF_A]),
        [(1, 0), (2, 0), (0, 0), (2, 0), (0, 0), (1, 0), (0, accuse(CHIEF_A)), (1, accuse(2))],
    )
    round3_ = (round3([1, 2]), [(0, accuse(1)), (1, accuse(2))])
    chips = {
        "gold": [5, "adler", 3, 4, 4],
        "white": [2, 1, 1, 1, 1, "adler", "adler", 2, 2, 2, 2, 2],
        "black": [0, 0, 0, "stasi", 0, -1, -1, "adler"],
    }
    rounds = [round1[0], round2[0], round3_[0]]
    env.reset(seed=0, options={"first_player": 0, "rounds": rounds, "chip_order": chips})
    totals = {}
    play_script(env, round1[1], totals)  # seat 0: white 2; seat 1: gold 5; seat 2: black 0
    assert round_number(env) == 2
    play_script(env, round2[1], totals)  # seat 0: the gold Cafe Adler chip (3); seats 1, 2: black 0
    act(env, 0, KEEP, kind="cafe_adler", totals=totals)
    assert round_number(env) == 3
    play_script(env, round3_[1], totals)  # seat 0: the Stasi chip; seat 1: black 0; seat 2: white
    assert acting(env) == 0 and decision(env) == "cafe_adler"
    seen = np.rint(piece(env, 0, "own_chip_values") * 10).astype(int)  # counts of values -2..5
    assert {v - 2: int(k) for v, k in enumerate(seen) if k} == {-2: 1, 2: 1, 3: 1}  # the held Stasi chip: -2
    assert round(float(piece(env, 0, "own_points")[0]) * 10) == 3 and totals[0] == 3
    act(env, 0, swap(1), totals=totals)  # the gold 5 of seat 1
    info = summary(env)
    assert info["round"] == 3 and info["stasi_taken_by"] == 0 and not info["game_over"]
    assert round_number(env) == 4 and not over(env)
    assert own_chips(env, 0) == [2, 5] and totals[0] == 7  # the Stasi chip went back after the check


def test_s7_stasi_exposed_clue_with_chosen_face():
    """clue_face='choose': the Stasi card holder's clue lies face-up once its face is chosen."""
    env = make_env(3, stasi=True, clue_face="choose", max_rounds=2)
    tiles = {"tiles": [0, 1, 2], "bag": [6, 8]}
    rounds = [{**tiles, "deck": build_deck(3, top=[1, 2])}, {**tiles, "deck": build_deck(3, top=[2, 1])}]
    env.reset(seed=0, options={"first_player": 0, "rounds": rounds, "chip_order": {"black": STASI_FIRST}})
    play_script(env, [(0, 33), (1, 33), (2, 33), (0, 1 + 1), (1, 1 + 2)])  # seat 0 takes the Stasi chip
    assert summary(env)["stasi_taken_by"] == 0
    assert acting(env) == 0 and decision(env) == "clue_face"
    for observer in range(3):
        assert stasi_card(env, observer) == 0 and exposed(env, observer) == {}  # no face yet
    act(env, 0, 34)  # "no hat"
    for observer in range(3):
        assert exposed(env, observer) == {0: 1}


# ---------------------------------------------------------------------- 8. Cafe Adler
def test_s8_cafe_adler_pool():
    env = make_env(4, cafe_adler=True)
    order = {"gold": ["adler", 3, 4, 4, 5], "white": ["adler", "adler"] + [1] * 4 + [2] * 6, "black": ADLER_LAST}
    env.reset(seed=0, options={"chip_order": order})
    assert supply(env) == [5, 12, 8]
    for colour, bad in [("gold", GOLD), ("white", WHITE), ("black", [0] * 4 + [-1] * 4)]:
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"chip_order": {colour: bad}})
    both = make_env(4, cafe_adler=True, stasi=True)
    both.reset(seed=0, options={"chip_order": {"black": ["stasi", "adler", 0, 0, 0, 0, -1, -1]}})
    assert supply(both) == [5, 12, 8]


def test_s8_cafe_adler_chip_values_and_no_decision_without_target():
    """Gold Adler = 3, black Adler = -1 [decision]; seat 0's gold Adler has no possible swap: no decision."""
    env = make_env(3, cafe_adler=True, max_rounds=1)
    setup, script = ROUND_CATCH  # 0 gold, 1 black (innocent), 2 black (non-accuser)
    chips = {"gold": ["adler", 3, 4, 4, 5], "black": ["adler", 0, 0, 0, 0, -1, -1, -1]}
    env.reset(seed=0, options={"first_player": 0, **setup, "chip_order": chips})
    play_script(env, script)
    # Seat 1's black Adler chip can be swapped with seat 2's black chip: seat 1 decides.
    assert acting(env) == 1 and decision(env) == "cafe_adler"
    assert legal(env) == [KEEP, swap(1)]
    assert piece(env, 1, "adler_decision").tolist() == [0, 0, 1]  # black
    assert piece(env, 1, "own_hidden_adler").tolist() == [0, 0, 0.5]
    act(env, 1, KEEP)
    assert over(env)  # seat 0 (gold Adler, nobody else has gold) was never asked
    assert own_chips(env, 0) == [3] and own_chips(env, 1) == [-1] and own_chips(env, 2) == [0]
    assert summary(env)["swaps"] == []


def _adler_swap_game():
    """Round 1: seats 2 and 0 accuse assistants (white: Adler chip, 2), seat 1 does not (white: 1)."""
    env = make_env(3, cafe_adler=True, max_rounds=2)
    white = ["adler", 2, 1, "adler", 1, 1, 1, 2, 2, 2, 2, 2]
    rounds = [ROUND_ASSISTANTS[0], ROUND_INNOCENTS[0]]
    env.reset(
        seed=0, options={"first_player": 0, "rounds": rounds, "chip_order": {"white": white, "black": ADLER_LAST}}
    )
    totals = {}
    play_script(env, ROUND_ASSISTANTS[1], totals)
    assert totals == {0: 2.0, 1: 1.0, 2: 1.0}  # Adler white worth 1
    return env, totals


def test_s8_cafe_adler_keep_or_swap_decision():
    env, _ = _adler_swap_game()
    assert acting(env) == 2 and decision(env) == "cafe_adler"
    assert legal(env) == [KEEP, swap(1), swap(2)]  # seat 0 (+1) holds a 2, seat 1 (+2) a 1
    assert piece(env, 2, "adler_decision").tolist() == [0, 1, 0]  # white
    assert piece(env, 2, "own_hidden_adler").tolist() == [0, 0.5, 0]
    assert "round_summary" not in env.infos[agent(2)]  # the round summary comes after the swaps


def test_s8_cafe_adler_swap():
    """Seat 2 swaps its white Adler chip with seat 0: it takes seat 0's white 2, seat 0 gets the Adler face-up."""
    env, totals = _adler_swap_game()
    act(env, 2, swap(1), totals=totals)
    assert totals == {0: 1.0, 1: 1.0, 2: 2.0}  # the swap moves 2 - 1 = 1 point
    info = summary(env)
    assert info["swaps"] == [{"seat": 2, "with": 0, "colour": "white"}]
    assert own_chips(env, 2) == [2] and own_chips(env, 0) == [1]
    for observer in range(3):
        assert counts(env, observer, "face_up_adler") == [[0, 1, 0], [0, 0, 0], [0, 0, 0]]
        assert counts(env, observer, "chip_colours") == [[0, 1, 0]] * 3  # colours unchanged
    assert piece(env, 2, "own_hidden_adler").tolist() == [0, 0, 0]
    assert piece(env, 0, "own_hidden_adler").tolist() == [0, 0, 0]  # face-up: not hidden


def test_s8_swapped_adler_chip_cannot_be_swapped_again():
    """Round 2: seat 0 holds only the face-up Adler chip in white: it is never asked, and seat 2
    (new hidden white Adler) cannot take that chip: its only target is seat 1."""
    env, totals = _adler_swap_game()
    act(env, 2, swap(1), totals=totals)
    assert round_number(env) == 2
    play_script(env, ROUND_INNOCENTS[1], totals)  # 0 black, 1 black, 2 white (the second Adler chip)
    assert acting(env) == 2 and decision(env) == "cafe_adler"
    assert legal(env) == [KEEP, swap(2)]  # seat 1 (+2); not seat 0 (+1)
    act(env, 2, swap(2), totals=totals)
    assert over(env)  # seat 0 was not asked about its face-up Adler chip
    assert own_chips(env, 2) == [1, 2] and own_chips(env, 1) == [0, 1]
    assert counts(env, 0, "face_up_adler") == [[0, 1, 0], [0, 1, 0], [0, 0, 0]]
    assert summary(env)["swaps"] == [{"seat": 2, "with": 1, "colour": "white"}]
    assert [totals[s] for s in range(3)] == summary(env)["totals"] == [1, 1, 3]


def test_s8_kept_adler_chip_offered_again_in_later_round():
    env, totals = _adler_swap_game()
    act(env, 2, KEEP, totals=totals)
    assert summary(env)["swaps"] == []
    white_left = supply(env)[1]
    play_script(env, ROUND_INNOCENTS[1], totals)  # seat 2 takes the second Adler chip as non-accuser
    assert supply(env)[1] == white_left - 1
    # Seat 2 is asked once for each hidden Adler chip: the one kept in round 1, then the new one.
    assert acting(env) == 2 and decision(env) == "cafe_adler"
    act(env, 2, KEEP)
    assert acting(env) == 2 and decision(env) == "cafe_adler"
    act(env, 2, KEEP)
    assert over(env)


def test_s8_swap_takes_a_random_chip_of_that_colour():
    """Seat 0 holds white 2 and white 1: over seeds, seat 2's swap takes either."""
    taken = set()
    for seed in range(12):
        env = make_env(3, cafe_adler=True, max_rounds=2)
        white = ["adler", 2, 1, 1, 1, 1, "adler", 2, 2, 2, 2, 2]  # round 2: seats 2, 0, 1 take a 1 each
        round2 = round3([29, 30])  # same as round 1
        env.reset(
            seed=seed,
            options={
                "first_player": 0,
                "rounds": [ROUND_ASSISTANTS[0], round2],
                "chip_order": {"white": white, "black": ADLER_LAST},
            },
        )
        play_script(env, ROUND_ASSISTANTS[1])
        act(env, 2, KEEP)
        play_script(env, ROUND_ASSISTANTS[1])
        assert legal(env) == [KEEP, swap(1), swap(2)]
        act(env, 2, swap(1))  # seat 0 holds a 2 and a 1
        values = own_chips(env, 2)
        assert len(values) == 2 and values[0] == 1
        taken.add(values[1])
        assert own_chips(env, 0) == [1, 3 - values[1]]  # the other one, and the Adler chip (1)
    assert taken == {1, 2}


def test_s8_decisions_clockwise_from_round_first_player():
    """[env decision] two holders: asked seat by seat clockwise from the round's first player (1)."""
    env = make_env(3, cafe_adler=True, max_rounds=1)
    setup = round3([30, 29])  # seat 1 draws 30, seat 2 draws 29
    env.reset(
        seed=0,
        options={"first_player": 1, **setup, "chip_order": {"white": ["adler", "adler", 2, 1, 1, 1, 1, 2, 2, 2, 2, 2]}},
    )
    play_script(env, [(1, 0), (2, 0), (0, 0), (2, 1 + 30), (0, 1 + 29)])
    assert acting(env) == 2 and decision(env) == "cafe_adler"
    assert legal(env) == [KEEP, swap(1), swap(2)]  # seat 0 holds a hidden Adler chip: a target
    act(env, 2, KEEP)
    assert acting(env) == 0 and decision(env) == "cafe_adler"
    act(env, 0, KEEP)
    assert over(env)
