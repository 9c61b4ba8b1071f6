"""The observation and state layouts: every piece holds what the env card says it holds.

Three kinds of checks:

- positions built through reset options, where each piece's expected content is known by hand
  (rows of relative seats, discards, last card, public clues after an investigator card,
  accusations, forced accusation and clue-face decisions, chips after scoring, the Stasi card,
  Cafe Adler decisions and swaps);
- a reference encoder written from the env card's piece meanings (``expected_observation``,
  ``expected_state``), compared piece by piece with the env over random games of every
  configuration;
- the layouts themselves: every piece is documented in the env card, the spaces' bounds hold,
  the sizes do not depend on the player count.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import ckc_env
import ckc_env.envs.aec as cc
from ckc_env.engine.game import IN_WINDOW, SCORING, SWAPPING, legal_actions
from ckc_env.observation import OBSERVATION, STATE

INV = 32
PASS, KEEP = 0, 35
SEATS = 5
GOLD, WHITE, BLACK = 0, 1, 2
STASI_KIND, ADLER_KIND = 1, 2


def accuse(cat: int) -> int:
    return 1 + cat


def one_hot(i: int | None, size: int) -> np.ndarray:
    out = np.zeros(size, np.float32)
    if i is not None and i >= 0:
        out[i] = 1.0
    return out


def bits(cats, size: int = 32) -> np.ndarray:
    out = np.zeros(size, np.float32)
    for c in cats:
        out[c] = 1.0
    return out


def obs_of(env, seat: int) -> np.ndarray:
    return env.observe(f"player_{seat}")["observation"]


def piece(vector: np.ndarray, name: str, layout=OBSERVATION) -> np.ndarray:
    return layout.view(vector, name)


def deck_with(top: list[int], n: int) -> list[int]:
    """A legal round-1 deck: ``top`` first (may hold investigator cards), then the other cats in
    increasing order, the missing investigator cards at the last allowed positions."""
    k = 5 - n
    rest = [c for c in range(32) if c not in top]
    missing = k - top.count(INV)
    deck = top + rest
    for i in range(missing):
        deck.insert(16 + k - missing + i, INV)
    assert len(deck) == 32 + k
    return deck


def make(n: int, options: dict, **config):
    config.setdefault("window_order", "clockwise_from_drawer")
    env = ckc_env.raw_env(num_players=n, summary_infos=True, **config)
    env.reset(seed=0, options=options)
    return env


def step_as(env, seat: int, action: int) -> None:
    assert env.agent_selection == f"player_{seat}", (env.agent_selection, seat)
    env.step(action)


# =========================================================================== hand-built positions
ALL_A = [0, 2, 4, 6, 8]  # seat i shows value A of feature i: a cat goes to seat i's row iff bit i is set


def scenario_rows():
    """5 players, first player 2: cats 0, 1, 8 discarded by seats 2, 3, 4, cat 3 into seat 0's row."""
    env = make(5, {"first_player": 2, "clues": ALL_A, "deck": deck_with([0, 1, 8, 3], 5)})
    return env


def test_rows_discards_and_the_first_window():
    env = scenario_rows()
    assert env.agent_selection == "player_0"
    discarded = {2: 0, 3: 1, 4: 8}
    for k in range(5):
        o = obs_of(env, k)
        for r in range(5):
            seat = (k + r) % 5
            assert np.array_equal(piece(o, "rows")[r], bits([3] if seat == 0 else []))
            assert np.array_equal(piece(o, "discards")[r], bits([discarded[seat]] if seat in discarded else []))
        assert np.array_equal(piece(o, "seat_present"), np.ones(5))
        assert np.array_equal(piece(o, "num_players"), [0, 0, 1])
        assert np.array_equal(piece(o, "rules"), [0, 0, 0, 0])
        assert np.array_equal(piece(o, "round"), one_hot(0, 5))
        assert np.array_equal(piece(o, "decision"), one_hot(0 if k == 0 else None, 4))
        assert np.array_equal(piece(o, "first_player"), one_hot((2 - k) % 5, 5))
        assert np.array_equal(piece(o, "drawer"), one_hot((0 - k) % 5, 5))  # the window of seat 0's card
        assert np.array_equal(piece(o, "last_card"), one_hot(3, 33))
        assert np.array_equal(piece(o, "last_drawer"), one_hot((0 - k) % 5, 5))
        assert piece(o, "deck_size")[0] == pytest.approx(28 / 34)
        assert piece(o, "investigators_left")[0] == 0
        assert not piece(o, "public_clues").any() and not piece(o, "exposed_clues").any()
        assert not piece(o, "stasi_card").any()
        assert not piece(o, "accused").any() and not piece(o, "accusation_order").any()
        assert np.array_equal(piece(o, "targets"), bits([3]))
        assert not piece(o, "chip_colours").any() and not piece(o, "face_up_adler").any()
        assert np.allclose(piece(o, "supply"), [5 / 20, 12 / 20, 8 / 20])
        assert np.array_equal(piece(o, "own_tile"), one_hot(k, 5))
        assert np.array_equal(piece(o, "own_clue"), one_hot(ALL_A[k], 10))
        assert not piece(o, "own_chip_values").any() and piece(o, "own_points")[0] == 0
        assert not piece(o, "own_hidden_adler").any() and not piece(o, "adler_decision").any()
    s = env.state()
    assert np.array_equal(piece(s, "acting_seat", STATE), one_hot(0, 5))
    assert np.array_equal(piece(s, "clues", STATE), np.stack([one_hot(c, 10) for c in ALL_A]))
    assert not piece(s, "bag", STATE).any()
    assert np.array_equal(piece(s, "chief", STATE), one_hot(31, 32))
    assert np.array_equal(piece(s, "deck_cats", STATE), bits(set(range(32)) - {0, 1, 8, 3}))
    assert np.array_equal(piece(s, "rows", STATE)[0], bits([3]))  # state seats are absolute
    assert np.array_equal(piece(s, "discards", STATE)[4], bits([8]))


def test_accused_and_accusation_order():
    env = scenario_rows()
    step_as(env, 0, PASS)
    step_as(env, 1, accuse(3))  # seats 2, 3, 4: no target left, not asked
    # seat 1 draws cat 2 (bit 1): its row; window from seat 1, who has accused: seat 2 is asked
    assert env.agent_selection == "player_2"
    for k in range(5):
        o = obs_of(env, k)
        rel1 = (1 - k) % 5
        for r in range(5):
            assert np.array_equal(piece(o, "accused")[r], bits([3] if r == rel1 else []))
            assert np.array_equal(piece(o, "accusation_order")[r], one_hot(0 if r == rel1 else None, 4))
        assert np.array_equal(piece(o, "targets"), bits([2]))
        assert np.array_equal(piece(o, "rows")[rel1], bits([2]))
        assert np.array_equal(piece(o, "last_card"), one_hot(2, 33))
    step_as(env, 2, accuse(2))
    o = obs_of(env, 0)
    assert np.array_equal(piece(o, "accusation_order")[1], one_hot(0, 4))
    assert np.array_equal(piece(o, "accusation_order")[2], one_hot(1, 4))
    assert np.array_equal(piece(o, "accused")[2], bits([2]))


def test_investigator_card_reveals_a_public_clue():
    """4 players, bag [9]: seat 0 draws cat 1 into its row, seat 1 the investigator card."""
    env = make(4, {"first_player": 0, "clues": ALL_A[:4], "bag": [9], "deck": deck_with([1, INV], 4)})
    for seat in range(4):  # the window of cat 1
        o = obs_of(env, seat)
        assert not piece(o, "public_clues").any()
        assert piece(o, "investigators_left")[0] == 0.5
        step_as(env, seat, PASS)
    assert env.agent_selection == "player_1"  # window of the investigator card, from its drawer
    for k in range(4):
        o = obs_of(env, k)
        assert np.array_equal(piece(o, "public_clues"), one_hot(9, 10))
        assert piece(o, "investigators_left")[0] == 0
        assert np.array_equal(piece(o, "last_card"), one_hot(INV, 33))
        assert np.array_equal(piece(o, "last_drawer"), one_hot((1 - k) % 4, 5))
        assert np.array_equal(piece(o, "drawer"), one_hot((1 - k) % 4, 5))
        assert piece(o, "deck_size")[0] == pytest.approx(31 / 34)
        assert np.array_equal(piece(o, "seat_present"), [1, 1, 1, 1, 0])
        assert np.array_equal(piece(o, "num_players"), [0, 1, 0])
    assert np.array_equal(piece(env.state(), "bag", STATE), one_hot(9, 10))


def test_forced_accusation_decision():
    env = make(5, {"first_player": 0, "clues": ALL_A, "deck": list(range(32))})
    while True:
        o = env.observe(env.agent_selection)
        if not o["action_mask"][PASS]:
            break
        env.step(PASS)
    seat = int(env.agent_selection.split("_")[1])
    o = obs_of(env, seat)
    assert np.array_equal(piece(o, "decision"), one_hot(1, 4))
    assert piece(o, "deck_size")[0] == 0
    assert np.array_equal(piece(o, "last_card"), one_hot(31, 33))
    assert np.array_equal(piece(o, "last_drawer"), one_hot((31 % 5 - seat) % 5, 5))
    assert (seat - 31 % 5) % 5 == 1  # forced accusations start after the last drawer
    mask = env.observe(env.agent_selection)["action_mask"]
    assert np.array_equal(mask[1:33], piece(o, "targets"))
    assert piece(o, "targets").sum() >= 2


def test_clue_face_decision():
    env = make(4, {"first_player": 1, "tiles": [3, 1, 4, 0]}, clue_face="choose")
    o = obs_of(env, 1)
    assert env.agent_selection == "player_1"
    assert np.array_equal(piece(o, "decision"), one_hot(2, 4))
    assert np.array_equal(piece(o, "own_tile"), one_hot(1, 5))
    assert not piece(o, "own_clue").any()
    assert not piece(o, "last_card").any() and not piece(o, "last_drawer").any()
    assert np.array_equal(piece(o, "rules"), [0, 0, 1, 0])
    assert not piece(env.state(), "chief", STATE).any()  # a face is still to be chosen
    env.step(34)  # value B of feature 1
    o = obs_of(env, 1)
    assert np.array_equal(piece(o, "own_clue"), one_hot(3, 10))
    assert not piece(o, "decision").any()
    assert np.array_equal(piece(obs_of(env, 2), "decision"), one_hot(2, 4))
    assert not piece(obs_of(env, 2), "own_clue").any()


def test_rules_flags():
    env = make(3, {}, stasi=True, cafe_adler=True, clue_face="choose", non_accuser_white="chief_uncaught")
    assert np.array_equal(piece(obs_of(env, 0), "rules"), [1, 1, 1, 1])
    assert np.array_equal(piece(obs_of(env, 0), "num_players"), [1, 0, 0])
    assert np.array_equal(piece(obs_of(env, 2), "seat_present"), [1, 1, 1, 0, 0])


# ---------------------------------------------------------------- Cafe Adler: decision and swap
ADLER_ORDER = {
    "gold": [5, 3, 4, 4, "adler"],
    "white": ["adler", 2, 1, 1, 1, 1, 2, 2, 2, 2, 2, "adler"],
    "black": [0, 0, 0, 0, -1, -1, -1, "adler"],
}


def scenario_adler():
    """4 players, chief 31. Seat 0 accuses assistant 15 (white: the Adler chip), seat 1 the chief
    (gold 5), seat 2 assistant 23 (white 2); seat 3 has not accused: black 0 (the chief was drawn).
    Then seat 0 decides about its hidden white Adler chip."""
    env = make(
        4,
        {
            "first_player": 0,
            "clues": ALL_A[:4],
            "bag": [8],
            "deck": deck_with([15, 31, 23], 4),
            "chip_order": ADLER_ORDER,
        },
        cafe_adler=True,
        max_rounds=2,
    )
    step_as(env, 0, accuse(15))
    step_as(env, 1, accuse(31))
    step_as(env, 2, accuse(23))
    return env


def test_cafe_adler_decision_pieces():
    env = scenario_adler()
    assert env.agent_selection == "player_0"
    assert legal_actions(env.unwrapped.game) == [KEEP, 37]  # keep, or swap with seat +2
    colours = {0: [0, 1, 0], 1: [1, 0, 0], 2: [0, 1, 0], 3: [0, 0, 1]}
    for k in range(4):
        o = obs_of(env, k)
        assert np.array_equal(piece(o, "decision"), one_hot(3 if k == 0 else None, 4))
        assert np.array_equal(piece(o, "adler_decision"), one_hot(WHITE if k == 0 else None, 3))
        for r in range(4):
            assert np.allclose(piece(o, "chip_colours")[r], np.array(colours[(k + r) % 4]) / 10)
        assert not piece(o, "chip_colours")[4].any()
        assert np.allclose(piece(o, "supply"), [4 / 20, 10 / 20, 7 / 20])
        # the round is scored: every clue and the bag are face-up
        for r in range(4):
            assert np.array_equal(piece(o, "exposed_clues")[r], one_hot(ALL_A[(k + r) % 4], 10))
        assert np.array_equal(piece(o, "public_clues"), one_hot(8, 10))
    o0 = obs_of(env, 0)
    assert np.array_equal(piece(o0, "own_hidden_adler"), [0, 0.5, 0])
    assert np.allclose(piece(o0, "own_chip_values"), one_hot(1 + 2, 8) / 10)  # value 1 at index 1 - (-2)
    assert piece(o0, "own_points")[0] == pytest.approx(0.1)
    assert np.allclose(piece(obs_of(env, 1), "own_chip_values"), one_hot(5 + 2, 8) / 10)
    assert np.allclose(piece(obs_of(env, 3), "own_chip_values"), one_hot(0 + 2, 8) / 10)
    assert not piece(obs_of(env, 1), "own_hidden_adler").any()
    s = env.state()
    assert np.allclose(piece(s, "points", STATE), [0.1, 0.5, 0.2, 0, 0])
    assert np.allclose(piece(s, "hidden_adler", STATE)[0], [0, 0.5, 0])
    assert np.allclose(piece(s, "chip_values", STATE)[2], one_hot(2 + 2, 8) / 10)


def test_first_player_piece_during_the_adler_decision_is_this_rounds():
    env = scenario_adler()
    for k in range(4):
        assert np.array_equal(piece(obs_of(env, k), "first_player"), one_hot((0 - k) % 4, 5))


def test_cafe_adler_swap_pieces():
    env = scenario_adler()
    env.step(37)  # seat 0 swaps with seat +2: takes its white 2, seat 2 gets the Adler chip face-up
    assert env.rewards["player_0"] == 1 and env.rewards["player_2"] == -1
    assert env.unwrapped.game.round_index == 1  # round 2 started
    for k in range(4):
        o = obs_of(env, k)
        for r in range(5):
            expected = [0, 0.5, 0] if r < 4 and (k + r) % 4 == 2 else [0, 0, 0]
            assert np.allclose(piece(o, "face_up_adler")[r], expected)
        assert np.array_equal(piece(o, "round"), one_hot(1, 5))
        assert np.array_equal(piece(o, "first_player"), one_hot((1 - k) % 4, 5))  # seat 1 caught the chief
        assert not piece(o, "accused").any() and not piece(o, "accusation_order").any()
        assert not piece(o, "exposed_clues").any()
    o0, o2 = obs_of(env, 0), obs_of(env, 2)
    assert np.allclose(piece(o0, "own_chip_values"), one_hot(2 + 2, 8) / 10)
    assert piece(o0, "own_points")[0] == pytest.approx(0.2)
    assert not piece(o0, "own_hidden_adler").any()
    assert np.allclose(piece(o2, "own_chip_values"), one_hot(1 + 2, 8) / 10)
    assert not piece(o2, "own_hidden_adler").any()  # face-up now
    assert np.allclose(piece(env.state(), "face_up_adler", STATE)[2], [0, 0.5, 0])


def scenario_two_hidden_adler():
    """3 players, 2 rounds: seat 0 takes both white Adler chips (one per round) and cannot swap."""
    deck = deck_with([15, 31], 3)
    env = make(
        3,
        {
            "first_player": 0,
            "rounds": [{"deck": deck, "clues": ALL_A[:3], "bag": [6, 8]}] * 2,
            "chip_order": {
                "gold": [3, 4, 4, 5, "adler"],
                "white": ["adler", "adler", *[1] * 4, *[2] * 6],
                "black": [0, 0, 0, 0, -1, -1, -1, "adler"],
            },
        },
        cafe_adler=True,
        max_rounds=2,
    )
    step_as(env, 0, accuse(15))  # white: Adler chip 1
    step_as(env, 1, accuse(31))  # gold; round over, nobody else holds white: no Adler decision
    # round 2, first player seat 1: seat 1 draws 15 into its row; window from seat 1
    step_as(env, 1, PASS)
    step_as(env, 2, PASS)
    step_as(env, 0, accuse(15))  # white: Adler chip 2
    step_as(env, 2, accuse(31))  # seat 2 draws the chief; game over after round 2
    game = env.unwrapped.game
    hidden = [c for c in game.holdings[0] if game.pool.kind[c] == ADLER_KIND and c not in game.face_up]
    if not game.game_over or len(hidden) != 2:
        raise LookupError("scenario broken: seat 0 should hold two hidden white Adler chips")
    return env


def test_two_hidden_adler_chips_in_the_observation():
    env = scenario_two_hidden_adler()
    assert np.allclose(piece(obs_of(env, 0), "own_hidden_adler"), [0, 1.0, 0])


def test_two_hidden_adler_chips_in_the_state():
    env = scenario_two_hidden_adler()
    assert np.allclose(piece(env.state(), "hidden_adler", STATE)[0], [0, 1.0, 0])


# --------------------------------------------------------------------------------------- Stasi
def test_stasi_card_exposes_the_holders_clue_next_round():
    """Round 1: seat 1 accuses innocent cat 2 and takes the Stasi chip (first black chip).
    Round 2: seat 1's clue (value B of feature 1) lies face-up for everyone."""
    deck = deck_with([15, 2, 23], 4)
    env = make(
        4,
        {
            "first_player": 0,
            "rounds": [
                {"deck": deck, "clues": ALL_A[:4], "bag": [8]},
                {"clues": [1, 3, 5, 7], "bag": [9]},
            ],
            "chip_order": {"black": ["stasi", 0, 0, 0, 0, -1, -1, -1]},
        },
        stasi=True,
        max_rounds=2,
    )
    step_as(env, 0, accuse(15))
    step_as(env, 1, accuse(2))
    step_as(env, 2, accuse(23))
    summary = env.infos["player_0"]["round_summary"]
    assert summary["stasi_taken_by"] == 1
    assert env.unwrapped.game.round_index == 1
    for k in range(4):
        o = obs_of(env, k)
        rel = (1 - k) % 4
        assert np.array_equal(piece(o, "stasi_card"), one_hot(rel, 5))
        for r in range(5):
            assert np.array_equal(piece(o, "exposed_clues")[r], one_hot(3 if r == rel else None, 10))
        assert not piece(o, "chip_colours")[rel].any()  # the Stasi chip went back
        assert np.allclose(piece(o, "supply"), [5 / 20, 9 / 20, 8 / 20])
        assert np.array_equal(piece(o, "own_clue"), one_hot([1, 3, 5, 7][k], 10))


# ============================================================== reference encoder from the env card
def _round_first_player(game) -> int:
    """This round's first player: the drawer of the round's first card (or the one asked first)."""
    return game.card_order[0][0] if game.card_order else game.first_player


def _chip_value(game, chip) -> int:
    return -2 if game.pool.kind[chip] == STASI_KIND else game.pool.value[chip]


def _public(game, seat: int) -> dict[str, np.ndarray]:
    n = game.n

    def rel(absolute: int) -> int:
        return (absolute - seat) % n

    def seats_table(width, fill) -> np.ndarray:
        out = np.zeros((SEATS, width), np.float32)
        for s in range(n):
            out[rel(s)] = fill(s)
        return out

    scored = game.phase >= SCORING
    drawn = [card for _, card in game.card_order]
    revealed = drawn.count(INV)
    accused_cats = {cat for _, cat in game.accusations}
    row_cats = {c for s in range(n) for c in range(32) if (game.rows[s] >> c) & 1}
    holder = game.summaries[game.round_index - 1]["stasi_taken_by"] if game.round_index else None
    # The Stasi card: with the exposed seat during the round; from the hand-out on, with the taker.
    taker = game.stasi_taker if game.stasi_taker >= 0 else None
    card_holder = taker if scored else holder
    exposed = dict(enumerate(game.clues)) if scored else {}
    if not scored and holder is not None and game.clues[holder] >= 0:
        exposed = {holder: game.clues[holder]}
    order = np.zeros((SEATS, 4), np.float32)
    for position, (who, _) in enumerate(game.accusations):
        order[rel(who), position] = 1

    def colour_counts(s, face_up_only=False):
        counts = np.zeros(3, np.float32)
        for chip in game.holdings[s]:
            if not face_up_only or chip in game.face_up:
                counts[game.pool.colour[chip]] += 1
        return counts

    return {
        "seat_present": bits(range(n), SEATS),
        "num_players": one_hot(n - 3, 3),
        "rules": np.array(
            [
                game.config.stasi,
                game.config.cafe_adler,
                game.config.clue_face == "choose",
                game.config.non_accuser_white == "chief_uncaught",
            ],
            np.float32,
        ),
        "round": one_hot(game.round_index, 5),
        "first_player": one_hot(rel(_round_first_player(game)), SEATS),
        "drawer": one_hot(rel(game.card_order[-1][0] if game.card_order else game.first_player), SEATS),
        "last_card": one_hot(drawn[-1] if drawn else None, 33),
        "last_drawer": one_hot(rel(game.card_order[-1][0]) if drawn else None, SEATS),
        "deck_size": np.array([(32 + 5 - n - len(drawn)) / 34], np.float32),
        "investigators_left": np.array([(5 - n - revealed) / 2], np.float32),
        "public_clues": bits(game.bag if scored else game.bag[:revealed], 10),
        "exposed_clues": seats_table(10, lambda s: one_hot(exposed.get(s), 10)),
        "stasi_card": one_hot(rel(card_holder) if card_holder is not None else None, SEATS),
        "rows": seats_table(32, lambda s: bits(c for c in range(32) if (game.rows[s] >> c) & 1)),
        "discards": seats_table(32, lambda s: bits(c for c in range(32) if (game.discards[s] >> c) & 1)),
        "accused": seats_table(32, lambda s: bits(cat for who, cat in game.accusations if who == s)),
        "accusation_order": order,
        "accusation_cards": seats_table(1, lambda s: game.accused_at[s] / 34).ravel(),
        "targets": bits(row_cats - accused_cats),
        "chip_colours": seats_table(3, lambda s: colour_counts(s) / 10),
        "face_up_adler": seats_table(3, lambda s: colour_counts(s, face_up_only=True) / 2),
        "supply": np.array([len(s) / 20 for s in game.supply], np.float32),
    }


def _values(values) -> np.ndarray:
    out = np.zeros(8, np.float32)
    for v in values:
        out[v + 2] += 0.1
    return out


def _hidden_adler(game, s) -> np.ndarray:
    out = np.zeros(3, np.float32)
    for chip in game.holdings[s]:
        if game.pool.kind[chip] == ADLER_KIND and chip not in game.face_up:
            out[game.pool.colour[chip]] += 0.5
    return out


def expected_observation(game, seat: int) -> dict[str, np.ndarray]:
    out = _public(game, seat)
    acting = game.current_seat == seat
    values = [_chip_value(game, c) for c in game.holdings[seat]]
    adler = acting and game.pending_kind == 3
    out.update(
        {
            "decision": one_hot(game.pending_kind if acting else None, 4),
            "own_tile": one_hot(game.tiles[seat], 5),
            "own_clue": one_hot(game.clues[seat], 10),
            "own_chip_values": _values(values),
            "own_points": np.array([sum(values) / 10], np.float32),
            "own_hidden_adler": _hidden_adler(game, seat),
            "adler_decision": one_hot(game.pool.colour[game.pending_chip] if adler else None, 3),
        }
    )
    return out


def expected_state(game) -> dict[str, np.ndarray]:
    out = _public(game, 0)
    n = game.n
    clues_known = min(game.clues) >= 0
    chief = sum(1 << (c // 2) for c in game.clues + game.bag if c % 2 == 0) if clues_known else None

    def per_seat(width, fill):
        table = np.zeros((SEATS, width), np.float32)
        for s in range(n):
            table[s] = fill(s)
        return table

    out.update(
        {
            "acting_seat": one_hot(game.current_seat, SEATS),
            "decision": one_hot(game.pending_kind if game.current_seat >= 0 else None, 4),
            "clues": per_seat(10, lambda s: one_hot(game.clues[s], 10)),
            "bag": bits(game.bag, 10),
            "chief": one_hot(chief, 32),
            "deck_cats": bits(c for c in game.deck[game.deck_pos :] if c != INV),
            "chip_values": per_seat(8, lambda s: _values(_chip_value(game, c) for c in game.holdings[s])),
            "points": np.array(
                [sum(_chip_value(game, c) for c in game.holdings[s]) / 10 if s < n else 0 for s in range(SEATS)],
                np.float32,
            ),
            "hidden_adler": per_seat(3, lambda s: _hidden_adler(game, s)),
        }
    )
    return out


def _skip(name: str, game) -> bool:
    # The drawer piece is checked where the card defines it by a drawn card: while a window is
    # open (the last card's drawer) and before the first draw.
    return name == "drawer" and not (game.phase == IN_WINDOW or not game.card_order)


def compare(layout, vector: np.ndarray, expected: dict[str, np.ndarray], game, who: str) -> None:
    assert set(expected) == {p.name for p in layout.pieces}
    for p in layout.pieces:
        if _skip(p.name, game):
            continue
        got = layout.view(vector, p.name)
        want = np.asarray(expected[p.name], np.float32).reshape(p.shape)
        assert np.allclose(got, want, atol=1e-6), (who, p.name, got, want)


REFERENCE_CONFIGS = [
    {"num_players": 3},
    {"num_players": 4, "stasi": True, "window_order": "clockwise_after_drawer"},
    {"num_players": 5, "cafe_adler": True, "clue_face": "choose"},
    {"num_players": 3, "stasi": True, "cafe_adler": True, "non_accuser_white": "chief_uncaught"},
    {"num_players": 4, "cafe_adler": True, "clue_face": "choose", "window_order": "clockwise_from_drawer"},
    {"num_players": 5, "stasi": True, "cafe_adler": True},
]


@pytest.mark.parametrize("config", REFERENCE_CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_every_piece_matches_the_env_card_over_random_games(config):
    for seed in range(4):
        env = ckc_env.raw_env(**config)
        env.reset(seed=seed)
        game = env.unwrapped.game
        rng = random.Random(seed)
        phases = set()
        while True:
            phases.add(game.phase)
            for seat, agent in enumerate(env.possible_agents):
                compare(OBSERVATION, env.observe(agent)["observation"], expected_observation(game, seat), game, agent)
            compare(STATE, env.state(), expected_state(game), game, "state")
            if game.game_over:
                break
            env.step(rng.choice(legal_actions(game)))
        if config.get("cafe_adler") and seed == 0:
            assert SWAPPING in phases or len(game.summaries) == 1


SEAT_PIECES = [  # pieces indexed by seat (relative in the observation, absolute in the state)
    *("first_player", "drawer", "last_drawer", "stasi_card", "exposed_clues", "rows", "discards", "accused"),
    *("accusation_order", "chip_colours", "face_up_adler"),
]
STATE_SEAT_PIECES = [*SEAT_PIECES, "acting_seat", "clues", "chip_values", "points", "hidden_adler"]


def test_padded_seats_are_zero():
    """3 and 4 players: relative seats the game does not have are zero in every per-seat piece."""
    seat_pieces = [OBSERVATION.by_name[name] for name in SEAT_PIECES]
    assert all(p.shape[0] == SEATS for p in seat_pieces)
    for n in (3, 4):
        env = ckc_env.raw_env(num_players=n, stasi=True, cafe_adler=True)
        env.reset(seed=n)
        rng = random.Random(n)
        game = env.unwrapped.game
        while not game.game_over:
            for agent in env.possible_agents:
                o = env.observe(agent)["observation"]
                for p in seat_pieces:
                    assert not OBSERVATION.view(o, p.name)[n:].any(), (n, p.name)
                assert np.array_equal(OBSERVATION.view(o, "seat_present"), bits(range(n), 5))
            s = env.state()
            for name in STATE_SEAT_PIECES:
                assert not STATE.view(s, name)[n:].any(), (n, name)
            env.step(rng.choice(legal_actions(game)))


# ========================================================================== the layouts themselves
def test_every_piece_is_documented_in_the_env_card():
    card = cc.__doc__
    for layout in (OBSERVATION, STATE):
        for p in layout.pieces:
            start = layout.offsets[p.name]
            index = f"{start}" if p.size == 1 else f"{start}-{start + p.size - 1}"
            assert f"| {index} | `{p.name}` |" in card, p.name
            assert p.meaning in card
    assert f"Box(float32, ({OBSERVATION.size},))" in card
    assert f"Box(float32, ({STATE.size},))" in card


def test_layouts_are_contiguous_and_disjoint():
    for layout in (OBSERVATION, STATE):
        offset = 0
        for p in layout.pieces:
            assert layout.offsets[p.name] == offset
            offset += p.size
        assert offset == layout.size


def test_sizes_do_not_depend_on_the_player_count():
    shapes = set()
    for n in (3, 4, 5):
        env = ckc_env.env(num_players=n)
        env.reset(seed=0)
        obs = env.observe(env.agent_selection)
        shapes.add((obs["observation"].shape, obs["action_mask"].shape, env.state().shape))
        assert env.observation_space("player_0")["observation"].shape == (OBSERVATION.size,)
        assert env.state_space.shape == (STATE.size,)
    assert shapes == {((OBSERVATION.size,), (40,), (STATE.size,))}


@pytest.mark.parametrize(
    "config",
    [
        {"num_players": 3, "stasi": True, "cafe_adler": True},
        {"num_players": 5, "stasi": True, "cafe_adler": True, "clue_face": "choose"},
        {"num_players": 4, "chip_pool": {"gold": [5] * 20, "white": [2] * 20, "black": [-1] * 20}},
    ],
    ids=["3p", "5p", "4p-big-pool"],
)
def test_spaces_contain_every_observation_and_state(config):
    env = ckc_env.raw_env(**config, max_rounds=5, target_points=50)
    low, high = OBSERVATION.bounds()
    state_low, state_high = STATE.bounds()
    for seed in range(6):
        env.reset(seed=seed)
        rng = random.Random(seed)
        game = env.unwrapped.game
        while True:
            for agent in env.possible_agents:
                obs = env.observe(agent)
                vector = obs["observation"]
                outside = np.flatnonzero((vector < low) | (vector > high))
                assert outside.size == 0, [p.name for p in OBSERVATION.pieces if OBSERVATION.offsets[p.name] in outside]
                assert env.observation_space(agent).contains(obs)
            state = env.state()
            assert np.all((state >= state_low) & (state <= state_high))
            assert env.state_space.contains(state)
            if game.game_over:
                break
            env.step(rng.choice(legal_actions(game)))
