"""Rule scenarios for RULES.md 4 (suspicion phase): draws, rows, accusations, windows, round end."""

from __future__ import annotations

import numpy as np
import pytest
from rules_helpers import (
    ALL_A,
    CHIEF_A,
    absolute,
    accuse,
    act,
    acting,
    build_deck,
    cats,
    decision,
    deck_left,
    discards,
    drawer_sequence,
    last_card,
    last_drawer,
    legal,
    make_env,
    mask,
    over,
    pass_until,
    passes,
    piece,
    play_out,
    random_policy,
    rows,
    summary,
)

from ckc_env.engine.cards import INVESTIGATOR


def _reset(env, n, deck, first=0, clues=None, bag=None, seed=0):
    clues = ALL_A[:n] if clues is None else clues
    bag = ALL_A[n:] if bag is None else bag
    env.reset(seed=seed, options={"first_player": first, "clues": clues, "bag": bag, "deck": deck})


def _public_piles(env, n):
    """Rows and discard piles as every observer sees them (absolute seats); all must agree."""
    views = [(rows(env, o), discards(env, o)) for o in range(n)]
    assert all(v == views[0] for v in views)
    return views[0]


# ---------------------------------------------------------------------- drawing and placing
def test_s4_cat_with_drawer_clue_goes_to_row_else_discard_pile():
    env = make_env(5, max_rounds=1)
    _reset(env, 5, build_deck(5, top=[1, 0, 4, 2]))
    # seat 0 (clue "hat") drew cat 1 (hat): row
    assert (last_card(env), last_drawer(env)) == (1, 0)
    assert _public_piles(env, 5) == ([{1}, set(), set(), set(), set()], [set()] * 5)
    passes(env, 0, 1, 2, 3, 4)
    # seat 1 (clue "sunglasses") drew cat 0 (no sunglasses): discard pile
    assert (last_card(env), last_drawer(env)) == (0, 1)
    assert _public_piles(env, 5) == ([{1}, set(), set(), set(), set()], [set(), {0}, set(), set(), set()])
    passes(env, 1, 2, 3, 4, 0)
    # seat 2 (clue "trench coat") drew cat 4 (trench coat): row
    assert _public_piles(env, 5)[0][2] == {4}
    passes(env, 2, 3, 4, 0, 1)
    # seat 3 (clue "newspaper") drew cat 2 (sunglasses, no newspaper): discard pile
    assert _public_piles(env, 5)[1][3] == {2}


def test_s4_no_window_until_a_cat_can_be_accused():
    """Cards that land on discard piles leave nobody a target: no decision until the first row cat."""
    env = make_env(5, max_rounds=1)
    _reset(env, 5, build_deck(5, top=[0, 1, 2, 8]))  # three discards, then seat 3's row
    assert deck_left(env) == 28 and last_card(env) == 8 and acting(env) == 3
    assert _public_piles(env, 5) == ([set(), set(), set(), {8}, set()], [{0}, {1}, {2}, set(), set()])


def test_s4_investigator_card_reveals_public_clue_then_drawer_draws_again():
    """4 players: the investigator card reveals the bag tile (window before the redraw); own clue still sorts."""
    env = make_env(4, max_rounds=1)
    # bag: "orange" (9). Seat 1 (clue "sunglasses") draws the investigator card, then cat 0
    # (orange, no sunglasses): discard pile, although it shows the public clue.
    _reset(env, 4, build_deck(4, top=[1, INVESTIGATOR, 0, 4]), bag=[9])
    assert not piece(env, 0, "public_clues").any()
    passes(env, 0, 1, 2, 3)
    assert last_card(env) == INVESTIGATOR and last_drawer(env) == 1
    assert deck_left(env) == 33 - 2  # window opens before the redraw
    for seat in range(4):
        assert cats(piece(env, seat, "public_clues")) == {9}
    assert _public_piles(env, 4) == ([{1}, set(), set(), set()], [set()] * 4)
    passes(env, 1, 2, 3, 0)
    assert (last_card(env), last_drawer(env), deck_left(env)) == (0, 1, 30)
    assert _public_piles(env, 4) == ([{1}, set(), set(), set()], [set(), {0}, set(), set()])
    passes(env, 1, 2, 3, 0)
    assert (last_card(env), last_drawer(env)) == (4, 2)  # then the turn passes on to seat 2
    assert cats(piece(env, 2, "public_clues")) == {9}  # public for the rest of the round


def test_s4_investigator_cards_reveal_bag_tiles_in_order_3_players():
    env = make_env(3, max_rounds=1)
    deck = build_deck(3, top=[1, INVESTIGATOR, 2, INVESTIGATOR, 4])
    _reset(env, 3, deck, bag=[9, 6])
    passes(env, 0, 1, 2)
    assert (last_card(env), last_drawer(env)) == (INVESTIGATOR, 1)
    assert cats(piece(env, 0, "public_clues")) == {9}
    passes(env, 1, 2, 0)
    assert (last_card(env), last_drawer(env)) == (2, 1) and rows(env)[1] == {2}
    passes(env, 1, 2, 0)
    assert (last_card(env), last_drawer(env)) == (INVESTIGATOR, 2)
    assert cats(piece(env, 0, "public_clues")) == {6, 9}
    passes(env, 2, 0, 1)
    assert (last_card(env), last_drawer(env)) == (4, 2) and rows(env)[2] == {4}


# ---------------------------------------------------------------------- accusations
def _accuse_early_scenario():
    """5 players: seat 0 draws cat 1 (row), cats 0 and 2 are discarded, seats 3, 4, 0 draw row cats."""
    env = make_env(5, max_rounds=1)
    deck = build_deck(5, top=[1, 0, 2, 8, 16, 3], clues=ALL_A, discard_rest=True)
    _reset(env, 5, deck)
    return env


def test_s4_accusation_one_per_player_and_per_cat_and_rechecked_in_window():
    env = _accuse_early_scenario()
    assert acting(env) == 0 and legal(env) == [0, accuse(1)]
    act(env, 0, accuse(1))
    # Nobody else has a target left in this window; the discards (cards 1 and 2) open no window.
    assert (acting(env), last_card(env), deck_left(env)) == (3, 8, 28)
    assert legal(env) == [0, accuse(8)]  # cat 1 was accused, cats 0 and 2 are discarded
    passes(env, 3, 4, 1, 2)  # seat 0 already accused: skipped
    assert (acting(env), last_card(env)) == (4, 16)
    passes(env, 4, 1, 2, 3)
    # The accuser keeps drawing: seat 0 draws cat 3 (hat) into its row, but is not asked.
    assert (last_card(env), last_drawer(env), acting(env)) == (3, 0, 1)
    assert rows(env)[0] == {1, 3}
    assert legal(env) == [0, accuse(3), accuse(8), accuse(16)]
    log = play_out(env)
    assert all(d["seat"] != 0 for d in log)
    accusations = summary(env)["accusations"]
    assert accusations[0] == {"seat": 0, "cat": 1, "colour": "black", "received": True, "cards_drawn": 1}
    assert len({a["cat"] for a in accusations}) == len(accusations) == 4  # one per cat
    assert len({a["seat"] for a in accusations}) == 4  # one per player


def test_s4_accusation_only_row_cats():
    env = _accuse_early_scenario()
    act(env, 0, accuse(1))
    for discarded in (0, 2):  # on the discard piles of seats 1 and 2
        assert mask(env)[accuse(discarded)] == 0
        with pytest.raises(ValueError):
            env.step(accuse(discarded))
    for not_drawn in (5, CHIEF_A):  # still in the deck
        assert mask(env)[accuse(not_drawn)] == 0
    with pytest.raises(ValueError):
        env.step(accuse(1))  # already accused by seat 0
    assert acting(env) == 3 and legal(env) == [0, accuse(8)]  # nothing changed
    targets = cats(piece(env, 3, "targets"))
    assert targets == {8}


def test_s4_accusation_out_of_turn_any_row_and_final():
    """A player accuses a cat in another player's row during someone else's turn; it stays for the round."""
    env = _accuse_early_scenario()
    pass_until(env, lambda: last_card(env) == 8)
    passes(env, 3)
    act(env, 4, accuse(8))  # cat 8 lies in seat 3's row, seat 3 drew it
    for observer in range(5):
        accused = absolute(env, observer, "accused")
        assert cats(accused[4]) == {8} and not accused[[0, 1, 2, 3]].any()
        assert absolute(env, observer, "accusation_order")[4][0] == 1
    passes(env, 0, 1, 2)
    assert (last_card(env), last_drawer(env)) == (16, 4)
    passes(env, 0, 1, 2, 3)  # seat 4 drew, but has accused: not asked
    # seat 4 is never asked again this round; its accusation is unchanged
    log = play_out(env)
    assert all(d["seat"] != 4 for d in log)
    assert summary(env)["accusations"][0] == {
        "seat": 4,
        "cat": 8,
        "colour": "black",
        "received": True,
        "cards_drawn": 4,
    }


@pytest.mark.parametrize("n", [3, 4, 5])
def test_s4_round_ends_at_once_when_all_but_one_accused(n):
    """The window closes early: the last seat of the window is never asked; the chief stays in the deck."""
    deck = build_deck(n, top=[1 << s for s in range(n - 1)], clues=ALL_A[:n], discard_rest=True)
    env = make_env(n, max_rounds=1)
    _reset(env, n, deck)
    size = 32 + 5 - n
    pass_until(env, lambda: deck_left(env) == size - (n - 1))
    drawer = n - 2
    assert last_drawer(env) == drawer
    order = [(drawer + i) % n for i in range(n)]
    for i, seat in enumerate(order[:-1]):
        act(env, seat, accuse(1 << i))
    assert over(env)  # seat order[-1] was never asked
    info = summary(env)
    assert [a["seat"] for a in info["accusations"]] == order[:-1]
    assert [x["seat"] for x in info["non_accusers"]] == [order[-1]]
    assert not info["chief_drawn"]
    assert deck_left(env) == size - (n - 1)


# ---------------------------------------------------------------------- empty deck
@pytest.mark.parametrize(("n", "first"), [(3, 0), (4, 1), (5, 3)])
def test_s4_empty_deck_last_card_window_then_forced_accusations(n, first):
    """After the last card's window, the players who have not accused must accuse, clockwise from the
    player after the one who drew the last card."""
    deck = build_deck(n)  # cats in increasing order: many row cats, the chief (31) last
    env = make_env(n, max_rounds=1)
    _reset(env, n, deck, first=first)
    pass_until(env, lambda: deck_left(env) == 0)
    last = drawer_sequence(deck, n, first)[-1]
    assert (last_card(env), last_drawer(env)) == (CHIEF_A, last)
    window = pass_until(env)  # the last card's window: everyone passes
    assert [s for s, _ in window] == [(last + i) % n for i in range(n)]
    forced_order = [(last + 1 + i) % n for i in range(n - 1)]
    for seat in forced_order:
        assert acting(env) == seat and decision(env) == "forced_accusation"
        options = legal(env)
        assert 0 not in options and len(options) >= 2  # no pass
        act(env, seat, options[-1])
    assert over(env)
    info = summary(env)
    assert [a["seat"] for a in info["accusations"]] == forced_order
    assert info["non_accusers"] == [{"seat": last, "colour": "black", "received": True}]  # chief drawn


def test_s4_forced_single_target_accused_automatically_no_target_skipped():
    """Rows hold cat 1 and the chief only. The first forced accuser chooses; the second has a single
    target and accuses it without being asked; the others have none and do not accuse."""
    deck = build_deck(5, top=[1], bottom=[CHIEF_A], clues=ALL_A, discard_rest=True)
    env = make_env(5, max_rounds=1)
    _reset(env, 5, deck)
    log = pass_until(env, lambda: deck_left(env) == 0)
    assert all(kind == "window" for _, kind in log) and len(log) == 5 * 31
    assert rows(env) == [{1}, {CHIEF_A}, set(), set(), set()]  # seat 1 drew the chief last
    pass_until(env)
    assert acting(env) == 2 and decision(env) == "forced_accusation"
    assert legal(env) == [accuse(1), accuse(CHIEF_A)]
    act(env, 2, accuse(CHIEF_A))
    assert over(env)  # seat 3 was not asked: its only target was accused for it
    info = summary(env)
    assert info["accusations"] == [
        {"seat": 2, "cat": CHIEF_A, "colour": "gold", "received": True, "cards_drawn": 32},
        {"seat": 3, "cat": 1, "colour": "black", "received": True, "cards_drawn": 32},
    ]
    # seats 4, 0, 1 had no target: they count as not having accused (black: the chief was drawn)
    assert info["non_accusers"] == [{"seat": s, "colour": "black", "received": True} for s in (4, 0, 1)]


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"clue_face": "choose", "stasi": True, "cafe_adler": True}])
def test_s4_never_a_decision_with_a_single_legal_action(n, options):
    """The env asks no decision with one legal action; rows always hold cats showing their owner's clue."""
    for seed in range(4):
        env = make_env(n, window_order="random", **options)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        policy = random_policy(rng)
        steps = 0
        while not over(env):
            assert len(legal(env)) >= 2
            seat = int(env.agent_selection.split("_")[1])
            clue = int(np.flatnonzero(piece(env, seat, "own_clue"))[0]) if piece(env, seat, "own_clue").any() else -1
            if clue >= 0:
                for cat in rows(env, seat)[seat]:
                    assert ((cat >> (clue // 2)) & 1) == 1 - clue % 2
                for cat in discards(env, seat)[seat]:
                    assert ((cat >> (clue // 2)) & 1) == clue % 2
            env.step(policy(env))
            steps += 1
        assert steps > 0


# ---------------------------------------------------------------------- window order
def _windows(env, count):
    """Pass through ``count`` windows; returns (drawer, [seats asked in order]) per window."""
    out = []
    while len(out) < count and not over(env) and decision(env) == "window":
        key = deck_left(env)
        drawer, seats = last_drawer(env), []
        while not over(env) and decision(env) == "window" and deck_left(env) == key:
            seats.append(acting(env))
            env.step(0)
        out.append((drawer, seats))
    return out


@pytest.mark.parametrize(
    ("order", "offset"), [("clockwise_from_drawer", 0), ("clockwise_after_drawer", 1)], ids=["from", "after"]
)
def test_s4_window_order_clockwise_options(order, offset):
    n = 5
    env = make_env(n, window_order=order)
    env.reset(seed=4, options={"first_player": 2})
    windows = _windows(env, 15)
    assert len(windows) == 15
    for drawer, seats in windows:
        assert seats == [(drawer + offset + i) % n for i in range(n)]


def test_s4_window_order_random_is_fresh_each_window_and_seeded():
    env = make_env(5, window_order="random")
    env.reset(seed=9)
    windows = _windows(env, 20)
    orders = [tuple(seats) for _, seats in windows]
    assert all(sorted(o) == [0, 1, 2, 3, 4] for o in orders)  # every eligible seat once
    assert len(set(orders)) >= 10
    assert any(seats[0] != drawer for drawer, seats in windows)
    env.reset(seed=9)
    assert [tuple(s) for _, s in _windows(env, 20)] == orders  # same seed, same orders


def test_s4_every_drawn_card_is_public():
    env = make_env(4, max_rounds=1)
    env.reset(seed=21)
    while not over(env):
        _public_piles(env, 4)
        card = last_card(env)
        assert all(last_card(env, o) == card for o in range(4))
        env.step(legal(env)[0])


# ---------------------------------------------------------------------- reopen_windows [option]
def _three_targets(reopen: bool, order: str = "clockwise_from_drawer"):
    """5 players: seats 0, 1, 2 draw cats 1, 2, 4 into their rows (everyone passes the first two
    windows); the window after seat 2's card is open, its order 2, 3, 4, 0, 1."""
    env = make_env(5, max_rounds=1, reopen_windows=reopen, window_order=order)
    _reset(env, 5, build_deck(5, top=[1, 2, 4, 8]))
    passes(env, 0, 1, 2, 3, 4)
    passes(env, 1, 2, 3, 4, 0)
    assert (last_card(env), acting(env), legal(env)) == (4, 2, [0, accuse(1), accuse(2), accuse(4)])
    return env


def test_s4_reopen_windows_off_a_player_who_passed_cannot_answer():
    """Default: a player who passed gets no decision when a later accusation is made in the window."""
    env = _three_targets(reopen=False)
    passes(env, 2, 3)
    act(env, 4, accuse(1))
    passes(env, 0, 1)
    assert (last_card(env), last_drawer(env)) == (8, 3)  # the next card: seats 2 and 3 were not asked again


def test_s4_reopen_windows_on_the_players_who_passed_decide_again_in_window_order():
    """[option] reopen_windows: seat 4's accusation gives seats 2 and 3 (who passed before it) one more
    decision after the window's order is through, in that order; seats 0 and 1, who passed after it,
    get none."""
    env = _three_targets(reopen=True)
    passes(env, 2, 3)
    act(env, 4, accuse(1))
    passes(env, 0, 1)
    assert last_card(env) == 4 and decision(env) == "window"  # still the same window
    assert acting(env) == 2 and legal(env) == [0, accuse(2), accuse(4)]
    passes(env, 2, 3)
    assert (last_card(env), last_drawer(env)) == (8, 3)  # nobody accused again: the window closed


def test_s4_reopen_windows_each_accusation_reopens_for_those_who_passed_before_it():
    """A re-asked player's accusation reopens the window for the players who passed since the last
    accusation (seats 0 and 1 here); a window still ends."""
    env = _three_targets(reopen=True)
    passes(env, 2, 3)
    act(env, 4, accuse(1))  # seats 2 and 3 are owed a decision
    passes(env, 0, 1)
    act(env, 2, accuse(2))  # re-asked, seat 2 accuses: seats 0 and 1 passed before it
    passes(env, 3)  # seat 3's second decision
    assert acting(env) == 0 and legal(env) == [0, accuse(4)]
    passes(env, 0, 1)
    assert (last_card(env), last_drawer(env)) == (8, 3)
    accusations = [(a, c) for a, c in zip(*np.nonzero(absolute(env, 0, "accused")), strict=True)]
    assert sorted(accusations) == [(2, 2), (4, 1)]


def test_s4_reopen_windows_rechecks_eligibility():
    """Re-asked players must still be able to accuse: with every target taken nobody is asked again."""
    env = make_env(5, max_rounds=1, reopen_windows=True)
    _reset(env, 5, build_deck(5, top=[1, 2, 8]))
    passes(env, 0, 1, 2, 3, 4)
    assert (last_card(env), acting(env)) == (2, 1)
    passes(env, 1, 2)
    act(env, 3, accuse(1))
    act(env, 4, accuse(2))  # the last target: seats 1 and 2 are owed a decision but have none left
    assert last_card(env) != 2  # the window closed: later cards were drawn


def test_s4_reopen_windows_random_order_asks_again_in_the_windows_order():
    """With a random window order the player who passed before the accusation is asked again once
    the window's order is through."""
    for seed in range(6):
        env = make_env(5, max_rounds=1, reopen_windows=True, window_order="random")
        _reset(env, 5, build_deck(5, top=[1, 2, 4, 8]), seed=seed)
        while last_card(env) != 4:  # everyone passes the first two windows
            env.step(0)
        first = acting(env)
        env.step(0)
        act(env, acting(env), accuse(1))
        asked = [first]
        for _ in range(3):  # the rest of the window's order passes
            asked.append(acting(env))
            env.step(0)
        assert last_card(env) == 4 and acting(env) == first  # asked again, in the same window
        env.step(0)
        assert last_card(env) != 4
