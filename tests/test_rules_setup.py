"""Rule scenarios for RULES.md 1 (components), 2 (game set-up) and 3 (round set-up)."""

from __future__ import annotations

import numpy as np
import pytest
from rules_helpers import (
    ALL_A,
    BLACK,
    CHIEF_A,
    GOLD,
    WHITE,
    accuse,
    act,
    acting,
    agent,
    build_deck,
    cats,
    clue_count,
    decision,
    deck_left,
    discards,
    drawer_sequence,
    first_player,
    last_card,
    last_drawer,
    legal,
    make_env,
    one_hot_index,
    over,
    pass_until,
    piece,
    play_out,
    rows,
    summary,
    supply,
)

from ckc_env.engine.cards import INVESTIGATOR

ALL_CATS = set(range(32))


def investigators_left(env, observer: int = 0) -> int:
    return round(float(piece(env, observer, "investigators_left")[0]) * 2)


# ---------------------------------------------------------------------- 1. components
@pytest.mark.parametrize("n", [3, 4, 5])
def test_s1_components_deck_is_32_unique_cats_plus_unused_investigators(n):
    k = 5 - n
    env = make_env(n, max_rounds=1)
    env.reset(seed=11)
    # At the first decision: cards drawn = cats placed + investigator cards drawn, from 32 + k.
    drawn = 32 + k - deck_left(env)
    placed = set().union(*rows(env), *discards(env))
    assert drawn == len(placed) + (k - investigators_left(env))
    assert investigators_left(env) <= k
    play_out(env)  # everyone passes; the deck runs out
    assert over(env)
    assert deck_left(env) == 0 and investigators_left(env) == 0
    all_rows, all_discards = rows(env), discards(env)
    piles = all_rows + all_discards
    assert sum(len(p) for p in piles) == 32  # every cat once...
    assert set().union(*piles) == ALL_CATS  # ...and all 32 of them


@pytest.mark.parametrize("feature", range(5))
@pytest.mark.parametrize("side", [0, 1])
def test_s1_components_natural_card_id_bit_i_is_value_a(feature, side):
    """Cat 1 << i shows value A of feature i (and value B of the others)."""
    clues = [2 * ((feature + s) % 5) for s in range(5)]
    clues[0] += side  # seat 0: feature i, value A (side 0) or B (side 1)
    env = make_env(5, max_rounds=1)
    # Seat 0 draws cat 1 << i, then seat 1 draws a cat showing value A everywhere except maybe
    # feature i: it has seat 1's clue (value A of another feature), so a window opens.
    second = 31 if side == 0 else 31 ^ (1 << feature)
    env.reset(seed=0, options={"first_player": 0, "clues": clues, "deck": build_deck(5, top=[1 << feature, second])})
    pass_until(env, lambda: deck_left(env) == 30)  # the window after seat 1's card
    if side == 0:
        assert rows(env)[0] == {1 << feature} and discards(env)[0] == set()
    else:
        assert rows(env)[0] == set() and discards(env)[0] == {1 << feature}
    assert rows(env)[1] == {second}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_s1_components_clue_tiles_one_per_feature(n):
    """5 tiles, one per feature, two faces each: the seats' clues and the bag tiles cover every feature once."""
    for seed in range(5):
        env = make_env(n, max_rounds=1)
        env.reset(seed=seed)
        tiles = [one_hot_index(piece(env, s, "own_tile")) for s in range(n)]
        play_out(env)
        info = summary(env)
        faces = info["clues"] + info["public_clues"] + info["bag_clues"]
        assert sorted(c // 2 for c in faces) == [0, 1, 2, 3, 4]
        assert [c // 2 for c in info["clues"]] == tiles
        assert all(0 <= c < 10 for c in faces)


def test_s1_components_default_chip_pool():
    env = make_env(5)
    env.reset(seed=0)
    assert supply(env) == [5, 12, 8]  # gold, white, black
    # The documented values are exactly the pool: chip_order must order all of them...
    env.reset(seed=0, options={"chip_order": {"gold": GOLD, "white": WHITE, "black": BLACK}})
    assert supply(env) == [5, 12, 8]
    # ...and any other multiset of values is rejected.
    for colour, bad in [("gold", [3, 4, 4, 5, 5]), ("white", [1] * 7 + [2] * 5), ("black", [0] * 5 + [-1] * 3)]:
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"chip_order": {colour: bad}})


def _catch_chief_3p(env, options=None, seed=0):
    """3 players, seat 0 catches the chief (gold), seat 1 accuses an innocent (black); one round."""
    opts = {"first_player": 0, "clues": ALL_A[:3], "bag": [6, 8], "deck": build_deck(3, top=[CHIEF_A, 2])}
    env.reset(seed=seed, options={**opts, **(options or {})})
    act(env, 0, accuse(CHIEF_A))
    act(env, 1, accuse(2))
    assert over(env)


def test_s1_components_chip_pool_option():
    pool = {"gold": [5, 5], "white": [2], "black": [0, 0, 0]}
    env = make_env(3, max_rounds=1, chip_pool=pool)
    env.reset(seed=0)
    assert supply(env) == [2, 1, 3]
    _catch_chief_3p(env)
    assert env.infos[agent(0)]["own_chips"]["values"] == [5]


# ---------------------------------------------------------------------- 2. game set-up
@pytest.mark.parametrize("n", [3, 4, 5])
def test_s2_game_setup_seats_0_to_n_minus_1(n):
    env = make_env(n)
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    assert env.agents == env.possible_agents
    for s in range(n):
        assert list(piece(env, s, "seat_present")) == [1] * n + [0] * (5 - n)
        assert one_hot_index(piece(env, s, "num_players")) == n - 3


@pytest.mark.parametrize("n", [3, 4, 5])
def test_s2_game_setup_play_goes_clockwise(n):
    """Each card is drawn by the next seat clockwise (an investigator card's drawer draws again)."""
    deck = build_deck(n)  # cats in increasing order, investigator cards at the end of the top half
    env = make_env(n, max_rounds=1)
    env.reset(seed=3, options={"first_player": 2, "deck": deck})
    expected = drawer_sequence(deck, n, first=2)
    seen = {}
    while not over(env) and decision(env) == "window":
        position = len(deck) - deck_left(env) - 1
        seen[position] = (last_card(env), last_drawer(env))
        env.step(0)
    assert len(seen) > 20
    for position, (card, drawer) in seen.items():
        assert card == deck[position]
        assert drawer == expected[position]


def test_s2_first_player_random_from_seeded_rng():
    env = make_env(5)
    firsts = []
    for seed in range(30):
        env.reset(seed=seed)
        firsts.append(first_player(env))
        env.reset(seed=seed)
        assert first_player(env) == firsts[-1]  # same seed, same first player
    assert set(firsts) == {0, 1, 2, 3, 4}


@pytest.mark.parametrize("seat", [0, 3])
def test_s2_first_player_option_fixed(seat):
    """first_player fixed by the config argument or by the reset option: that seat draws first."""
    options = {"clues": ALL_A[:4], "bag": [8], "deck": build_deck(4, top=[CHIEF_A])}
    for env, extra in [(make_env(4, first_player=seat), {}), (make_env(4), {"first_player": seat})]:
        for seed in range(3):
            env.reset(seed=seed, options={**options, **extra})
            for observer in range(4):  # everyone sees it
                assert first_player(env, observer) == seat
            assert deck_left(env) == 32 and last_card(env) == CHIEF_A and last_drawer(env) == seat


def test_s2_taking_a_chip_is_uniformly_random_within_colour():
    """Chips are shuffled face-down by colour: the gold chip taken varies with the seed."""
    values = []
    for seed in range(60):
        env = make_env(3, max_rounds=1)
        _catch_chief_3p(env, seed=seed)
        values.append(env.infos[agent(0)]["own_chips"]["values"][0])
    counts = {v: values.count(v) for v in set(values)}
    assert set(counts) == {3, 4, 5}  # gold 3, 3, 4, 4, 5
    assert counts[5] < counts[3] + counts[4]  # one 5 among five golds


# ---------------------------------------------------------------------- 3. round set-up
@pytest.mark.parametrize("n", [3, 4, 5])
def test_s3_round_setup_each_player_draws_a_tile_rest_stay_in_bag(n):
    for seed in range(6):
        env = make_env(n, max_rounds=1)
        env.reset(seed=seed)
        tiles = [one_hot_index(piece(env, s, "own_tile")) for s in range(n)]
        own = [one_hot_index(piece(env, s, "own_clue")) for s in range(n)]
        assert len(set(tiles)) == n
        assert [c // 2 for c in own] == tiles  # the clue is a face of the own tile
        play_out(env)
        info = summary(env)
        assert info["clues"] == own
        assert len(info["public_clues"]) + len(info["bag_clues"]) == 5 - n


def test_s3_round_setup_clue_face_random_by_default():
    sides = {s: set() for s in range(5)}
    for seed in range(20):
        env = make_env(5)
        env.reset(seed=seed)
        for s in range(5):
            sides[s].add(one_hot_index(piece(env, s, "own_clue")) % 2)
    assert all(v == {0, 1} for v in sides.values())


def test_s3_round_setup_clue_face_choose_decisions():
    """clue_face='choose': each player picks the face (actions 33/34), clockwise from the first player."""
    env = make_env(5, clue_face="choose", max_rounds=1)
    deck = build_deck(5, top=[0])  # cat 0: sweater, so in seat 2's row only if seat 2 shows "sweater"
    env.reset(seed=0, options={"first_player": 2, "tiles": [0, 1, 2, 3, 4], "deck": deck})
    for seat in [2, 3, 4, 0, 1]:
        assert acting(env) == seat and decision(env) == "clue_face"
        assert legal(env) == [33, 34]
        assert not piece(env, seat, "own_clue").any()  # no face yet
        side = 1 if seat in (2, 3) else 0
        act(env, seat, 33 + side)
        assert one_hot_index(piece(env, seat, "own_clue")) == 2 * seat + side
    # Seat 2 chose "sweater" (clue 5): cat 0 goes into its row, and a window opens.
    assert decision(env) == "window" and last_drawer(env) == 2
    assert rows(env)[2] == {0}
    play_out(env)
    assert summary(env)["clues"] == [0, 2, 5, 7, 8]
    assert summary(env)["chief"] == 0b10011


def test_s3_round_setup_bag_face_hidden_until_revealed():
    """4 players: the bag tile's face is not in any observation before an investigator card reveals it."""
    deck = build_deck(4, top=[1, 3, 32])  # seat 0 row, seat 1 row, seat 2 draws the investigator card
    obs = {}
    for bag in ([8], [9]):
        env = make_env(4)
        env.reset(seed=5, options={"first_player": 0, "clues": ALL_A[:4], "bag": bag, "deck": deck})
        obs[bag[0]] = [env.observe(agent(s))["observation"].copy() for s in range(4)]
        assert not piece(env, 0, "public_clues").any()
        pass_until(env, lambda env=env: last_card(env) == INVESTIGATOR)
        obs[bag[0]].append(piece(env, 0, "public_clues").copy())
    for s in range(4):
        assert np.array_equal(obs[8][s], obs[9][s])
    assert cats(obs[8][4]) == {8} and cats(obs[9][4]) == {9}


def test_s3_round_setup_deck_5_players_32_cats_no_investigators():
    for seed in range(5):
        env = make_env(5, max_rounds=1)
        env.reset(seed=seed)
        assert investigators_left(env) == 0
        while not over(env):
            drawn = 32 - deck_left(env)
            assert drawn == len(set().union(*rows(env), *discards(env)))
            assert last_card(env) != INVESTIGATOR
            env.step(legal(env)[0])


@pytest.mark.parametrize("n", [3, 4])
def test_s3_round_setup_investigator_cards_in_top_half(n):
    """3-4 players: the 5-n investigator cards lie in the top 16 + (5 - n) cards, at varying places."""
    k = 5 - n
    positions = set()
    for seed in range(40):
        env = make_env(n, max_rounds=1)
        env.reset(seed=seed)
        while not over(env):
            drawn = 32 + k - deck_left(env)
            if drawn >= 16 + k:
                assert investigators_left(env) == 0
            if last_card(env) == INVESTIGATOR:
                assert drawn <= 16 + k
                positions.add(drawn)
            env.step(legal(env)[0])
    assert len(positions) >= 5  # shuffled into the first half, not at a fixed place


def test_s3_round_setup_deck_option_keeps_investigators_in_top_half():
    env = make_env(4)
    deck = build_deck(4)
    bad = [c for c in deck if c != INVESTIGATOR]
    bad.insert(17, INVESTIGATOR)  # position 17 is below the top 16 + 1
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": bad})


@pytest.mark.parametrize(
    ("clues", "bag"),
    [(ALL_A[:3], [6, 8]), ([1, 3, 5], [7, 9]), ([9, 0, 5, 2], [7]), ([3, 8, 1, 6, 5], [])],
)
def test_s3_round_setup_chief_and_assistants(clues, bag):
    """The chief has all five clue values (players' clues and bag faces), assistants exactly 4."""
    n = len(clues)
    env = make_env(n, max_rounds=1)
    env.reset(seed=2, options={"clues": clues, "bag": bag})
    play_out(env)
    info = summary(env)
    values = clues + bag
    chief = [c for c in range(32) if clue_count(c, values) == 5]
    assert info["chief"] == chief[0] and len(chief) == 1
    assert sorted(info["assistants"]) == [c for c in range(32) if clue_count(c, values) == 4]
    assert len(info["assistants"]) == 5


def test_s3_round_setup_first_player_unchanged_when_nobody_caught_chief():
    env = make_env(3, max_rounds=2)
    rounds = [
        {"clues": ALL_A[:3], "bag": [6, 8], "deck": build_deck(3, top=[4, 1])},  # chief stays in the deck
        {"clues": ALL_A[:3], "bag": [6, 8], "deck": build_deck(3, top=[4, 1])},
    ]
    env.reset(seed=0, options={"first_player": 2, "rounds": rounds})
    act(env, 2, accuse(4))
    act(env, 0, accuse(1))
    assert summary(env)["next_first_player"] == 2
    assert first_player(env) == 2 and last_drawer(env) == 2 and acting(env) == 2
    assert one_hot_index(piece(env, 0, "round")) == 1  # round 2


def test_s3_round_setup_each_round_starts_from_a_fresh_table():
    """A new round deals a new deck of all the cats: rows, discards, accusations and public clues start empty."""
    env = make_env(4, max_rounds=2)
    round1 = {"clues": ALL_A[:4], "bag": [9], "deck": build_deck(4, top=[1, INVESTIGATOR, 2, 4])}
    round2 = {"clues": ALL_A[:4], "bag": [8], "deck": build_deck(4, top=[CHIEF_A])}
    env.reset(seed=0, options={"first_player": 0, "rounds": [round1, round2]})
    pass_until(env, lambda: last_card(env) == 4)
    act(env, 2, accuse(1))
    act(env, 3, accuse(2))
    act(env, 0, accuse(4))  # round 1 ends: 3 of 4 accused, the investigator card revealed "orange"
    assert summary(env)["public_clues"] == [9]
    assert one_hot_index(piece(env, 0, "round")) == 1
    assert (last_card(env), deck_left(env)) == (CHIEF_A, 32)
    assert rows(env) == [{CHIEF_A}, set(), set(), set()] and discards(env) == [set()] * 4
    for observer in range(4):
        assert not piece(env, observer, "accused").any() and not piece(env, observer, "public_clues").any()
        assert investigators_left(env, observer) == 1
