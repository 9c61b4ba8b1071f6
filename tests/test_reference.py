"""Cross-check of ckc_env against the independent referee in ``tests/reference_rules.py``.

Every game is dealt from a ``random.Random(seed)`` and fixed in the env through its documented
reset options (``first_player``, ``rounds``, ``chip_order``); the env is then driven through its
public AEC API (``raw_env``) with random legal actions taken from the action mask, and the same
actions are fed to the referee. Compared:

* at every decision: whose decision it is (``agent_selection``), its kind (the ``decision``
  piece), the legal actions (the action mask), every piece of the acting player's observation the
  rules determine, the all-zero mask and the observation of another player, and now and then
  ``state()`` (hidden pieces included: clues, bag, chief, deck, everyone's chip values);
* at every round end: the ``round_summary`` info (clues, chief, accusations in order with colour
  and whether a chip was received, non-accusers, Stasi, swaps, chip colours, supply, next first
  player, game over, and at the end totals, gold and winners), every agent's ``own_chips`` and
  the sum of its ``points`` rewards;
* at the end: every agent terminated exactly when the referee ends the game.

The env's randomness that a deal cannot fix is handled as ``reference_rules`` explains: random
window orders are accepted as sets, and the Stasi chip's place and the chip a Cafe Adler swap
takes are read from what the players concerned see in their own observations.

The sweep covers 3, 4 and 5 players x {base, Stasi, Cafe Adler, both} x both ``non_accuser_white``
options x the three window orders, 8 games each, with random max_rounds (1..5), target points,
short chip pools (so colours run out), ``clue_face="choose"``, adversarial decks (rows kept short
so targets run out in the forced accusations) and policies from "accuse at once" to "always pass".
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import numpy as np
import pytest
from reference_rules import (
    ADLER_VALUE,
    COLOURS,
    INVESTIGATOR,
    KEEP,
    PASS,
    Deal,
    Referee,
    Rules,
    chief_spy,
    random_deal,
)

import ckc_env
from ckc_env.observation import OBSERVATION, STATE

KIND_INDEX = {"window": 0, "forced_accusation": 1, "clue_face": 2, "cafe_adler": 3}
SUMMARY_KEYS = (
    "round",
    "clues",
    "public_clues",
    "bag_clues",
    "chief",
    "chief_drawn",
    "assistants",
    "cards",
    "accusations",
    "non_accusers",
    "stasi_exposed",
    "stasi_taken_by",
    "swaps",
    "chip_colours",
    "supply",
    "next_first_player",
    "game_over",
)
END_KEYS = ("totals", "gold", "winners")
SLICES = {p.name: OBSERVATION.slice(p.name) for p in OBSERVATION.pieces}  # computed once: slice() is slow
STATE_SLICES = {p.name: STATE.slice(p.name) for p in STATE.pieces}


def seat_of(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


def env_kwargs(rules: Rules) -> dict:
    return {
        "num_players": rules.num_players,
        "window_order": rules.window_order,
        "reopen_windows": rules.reopen_windows,
        "clue_face": rules.clue_face,
        "non_accuser_white": rules.non_accuser_white,
        "stasi": rules.stasi,
        "max_rounds": rules.max_rounds,
        "target_points": rules.target_points,
        "cafe_adler": rules.cafe_adler,
        "chip_pool": {c: list(v) for c, v in rules.chip_pool.items()},
    }


# --- expected observation pieces ---------------------------------------------------------------


def one_hot(size: int, index) -> np.ndarray:
    out = np.zeros(size, np.float32)
    if index is not None:
        out[index] = 1.0
    return out


def cat_bits(cats) -> np.ndarray:
    out = np.zeros(32, np.float32)
    for c in cats:
        out[c] = 1.0
    return out


def expected_observation(ref: Referee, seat: int, kind: str | None, colour: str | None) -> dict[str, np.ndarray]:
    """The pieces of a player's observation that RULES.md and the env card determine (``kind`` is
    the player's pending decision, None when another player is to act).

    Left out: the ``drawer`` (whose turn it is to draw) after scoring, where the piece's
    description does not say what it is when the round ended in a window. During Cafe Adler decisions (after the round is scored) the pieces
    that speak of "this round" keep this round's values, as the piece descriptions say
    (``first_player``; ``targets``: "in a row, not accused"), and the Stasi card is held by the
    player who took the Stasi chip at this scoring (RULES.md 7: it takes the card when it shows
    the chip; the previous holder's card went back to the middle before the hand-out).
    """
    n = ref.n
    rules = ref.rules
    scored = ref.phase in ("scoring", "cafe_adler")  # "scoring" once the game is over

    def rel(s):
        return None if s is None else (s - seat) % n

    seats = [(seat + r) % n for r in range(n)]  # absolute seat of relative seat r
    pad = [[0.0] * 32] * (5 - n)
    public = ref.public_clues + (ref.bag[len(ref.public_clues) :] if scored else [])
    exp = {
        "seat_present": [1.0] * n + [0.0] * (5 - n),
        "num_players": one_hot(3, n - 3),
        "rules": [
            rules.stasi,
            rules.cafe_adler,
            rules.clue_face == "choose",
            rules.non_accuser_white == "chief_uncaught",
        ],
        "round": one_hot(5, ref.round_index),
        "decision": one_hot(4, None if kind is None else KIND_INDEX[kind]),
        "last_card": one_hot(33, ref.last_card),
        "last_drawer": one_hot(5, rel(ref.last_drawer)),
        "deck_size": [len(ref.deck) / 34],
        "investigators_left": [ref.deck.count(INVESTIGATOR) / 2],
        "public_clues": sum((one_hot(10, c) for c in public), np.zeros(10)),
        "rows": [cat_bits(ref.rows[s]) for s in seats] + pad,
        "discards": [cat_bits(ref.discards[s]) for s in seats] + pad,
        "face_up_adler": [np.asarray(ref.adler_counts(s, "up")) / 2 for s in seats] + [[0.0] * 3] * (5 - n),
        "supply": [ref.supply_count(c) / 20 for c in COLOURS],
        "own_tile": one_hot(5, ref.deal.rounds[ref.round_index].clues[seat] // 2),
        "own_clue": one_hot(10, ref.clues[seat]),  # zeros while the face is to be chosen
        "own_points": [ref.points(seat) / 10],
        "own_hidden_adler": np.asarray(ref.adler_counts(seat, "hidden")) / 2,
        "adler_decision": one_hot(3, None if colour is None else COLOURS.index(colour)),
    }
    exposed = np.zeros((5, 10))
    stasi = np.zeros(5)
    exp["first_player"] = one_hot(5, rel(ref.first_player))
    exp["targets"] = cat_bits(ref.targets())
    if ref.phase == "suspicion":
        exp["drawer"] = one_hot(5, rel(ref.drawer))  # the drawer whose card's window is open
    elif ref.phase == "clue_face":
        exp["drawer"] = one_hot(5, rel(ref.first_player))  # nobody has drawn yet
    elif ref.phase == "forced":
        exp["drawer"] = one_hot(5, rel((ref.last_drawer + 1) % n))  # after the last card, the next player
    if scored:  # every clue is revealed at scoring
        for s in range(n):
            exposed[rel(s), ref.clues[s]] = 1.0
        if ref.stasi_card is not None:
            stasi[rel(ref.stasi_card)] = 1.0
    elif ref.stasi_card is not None:
        holder = ref.stasi_card
        if ref.clues[holder] is not None:  # with clue_face="choose": once its face is chosen
            exposed[rel(holder), ref.clues[holder]] = 1.0
        stasi[rel(holder)] = 1.0
    exp["exposed_clues"] = exposed
    exp["stasi_card"] = stasi
    accused = np.zeros((5, 32))
    order = np.zeros((5, 4))
    for position, (who, cat) in enumerate(ref.accusations):
        accused[rel(who), cat] = 1.0
        order[rel(who), position] = 1.0
    exp["accused"] = accused
    exp["accusation_order"] = order
    exp["accusation_cards"] = [ref.accused_after.get(s, 0) / 34 for s in seats] + [0.0] * (5 - n)
    exp["chip_colours"] = [np.asarray(ref.colour_counts(s)) / 10 for s in seats] + [[0.0] * 3] * (5 - n)
    values = np.zeros(8)
    for v in ref.chip_values(seat):
        values[v + 2] += 0.1
    exp["own_chip_values"] = values
    return exp


def compare_vector(layout, slices: dict, vec: np.ndarray, pieces: dict, what: str) -> None:
    expected = vec.copy()  # the pieces the rules leave open stay as they are
    for name, value in pieces.items():
        expected[slices[name]] = np.asarray(value, np.float32).ravel()
    if np.abs(vec - expected).max() < 1e-5:
        return
    bad = [n for n in pieces if not np.allclose(layout.view(vec, n), layout.view(expected, n), atol=1e-5)]
    name = bad[0]
    raise AssertionError(
        f"{what} differs in {bad}: {name}: env {layout.view(vec, name).tolist()} "
        f"!= reference {layout.view(expected, name).tolist()}"
    )


def check_observation(obs: dict, ref: Referee, seat: int, kind: str | None, colour: str | None) -> None:
    pieces = expected_observation(ref, seat, kind, colour)
    compare_vector(OBSERVATION, SLICES, obs["observation"], pieces, f"observation of seat {seat} ({kind})")


def check_state(state: np.ndarray, ref: Referee, acting: int | None, kind: str | None = None) -> None:
    """``state()``: the public pieces seen from seat 0 (``decision``: the acting seat's) plus every hidden piece."""
    n = ref.n
    public = expected_observation(ref, 0, None, None)
    public["decision"] = one_hot(4, None if kind is None else KIND_INDEX[kind])
    pieces = {name: value for name, value in public.items() if name in STATE_SLICES}
    clues = np.zeros((5, 10))
    for s in range(n):
        if ref.clues[s] is not None:
            clues[s, ref.clues[s]] = 1.0
    values = np.zeros((5, 8))
    for s in range(n):
        for v in ref.chip_values(s):
            values[s, v + 2] += 0.1
    pieces.update(
        acting_seat=one_hot(5, acting),
        clues=clues,
        bag=sum((one_hot(10, c) for c in ref.bag), np.zeros(10)),
        chief=one_hot(32, None if None in ref.clues else chief_spy(ref.clues + ref.bag)),
        deck_cats=cat_bits(c for c in ref.deck if c != INVESTIGATOR),
        chip_values=values,
        points=[ref.points(s) / 10 for s in range(n)] + [0.0] * (5 - n),
        hidden_adler=[np.asarray(ref.adler_counts(s, "hidden")) / 2 for s in range(n)] + [[0.0] * 3] * (5 - n),
    )
    compare_vector(STATE, STATE_SLICES, state, pieces, "state()")


# --- driving one game ------------------------------------------------------------------------


def env_summary(env, round_no: int) -> dict:
    summaries = [env.infos[a].get("round_summary") for a in env.possible_agents]
    first = summaries[0]
    assert first is not None, f"no round_summary after round {round_no}"
    for s in summaries[1:]:
        assert s == first, "agents see different round summaries"
    assert first["round"] == round_no, (
        f"env's latest round_summary is for round {first['round']}, the referee expected round {round_no}"
    )
    return first


def compare_summary(env, ref: Referee, totals: dict, stats: Counter) -> None:
    want = ref.summaries[-1]
    got = env_summary(env, want["round"])
    for key in SUMMARY_KEYS + (END_KEYS if want["game_over"] else ()):
        assert got[key] == want[key], (
            f"round {want['round']} summary[{key!r}]: env {got[key]!r} != reference {want[key]!r}"
        )
    for agent in env.possible_agents:
        s = seat_of(agent)
        assert totals[agent] == ref.points(s), (
            f"{agent}: summed points rewards {totals[agent]} != points {ref.points(s)}"
        )
        own = env.infos[agent]["own_chips"]
        assert own["points"] == ref.points(s), f"{agent} own_chips points {own['points']} != {ref.points(s)}"
        assert sorted(own["values"]) == ref.chip_values(s), f"{agent} own_chips values {own['values']}"
    stats["rounds"] += 1
    stats["accusations"] += len(want["accusations"])
    stats["non_accusers"] += len(want["non_accusers"])
    stats["several_non_accusers"] += len(want["non_accusers"]) > 1
    stats["chip_not_received"] += sum(not x["received"] for x in want["accusations"] + want["non_accusers"])
    stats["chief_caught"] += any(x["cat"] == want["chief"] for x in want["accusations"])
    stats["first_player_changed"] += want["next_first_player"] != want["first_player"]
    stats["chief_in_deck"] += not want["chief_drawn"]
    stats["white_non_accuser"] += sum(x["colour"] == "white" for x in want["non_accusers"])
    stats["black_non_accuser"] += sum(x["colour"] == "black" for x in want["non_accusers"])
    stats["stasi_taken"] += want["stasi_taken_by"] is not None
    stats["stasi_exposed"] += want["stasi_exposed"] is not None
    stats["swaps"] += len(want["swaps"])


def own_values(env, agent: str) -> Counter:
    """An agent's own chip values from its observation, without the kept Stasi chip (-2)."""
    counts = OBSERVATION.view(env.observe(agent)["observation"], "own_chip_values")
    return Counter({v: round(float(c) * 10) for v, c in zip(range(-2, 6), counts, strict=True) if v != -2 and c > 0})


def resolve_chances(env, ref: Referee, stats: Counter, last_obs: dict) -> None:
    """Answer the referee's chances from what the env shows the players concerned."""
    while ref.pending is not None and ref.pending.kind.startswith("chance"):
        d = ref.pending
        if d.kind == "chance_stasi":
            # the Stasi chip's taker got no chip this round (it went back to the supply); every
            # other black taker got one: read the counts from each candidate's own observation
            takers = [
                s
                for s in d.seats
                if s is not None and sum(own_values(env, f"player_{s}").values()) == len(ref.chips[s])
            ]
            assert len(takers) <= 1, f"several players got no black chip: {takers}"
            stats["stasi_chance"] += 1
            ref.resolve(takers[0] if takers else None)
        else:
            # a Cafe Adler swap: the swapper sees the chip it took (the referee has not moved it yet)
            seat, colour = last_obs["seat"], last_obs["colour"]
            obs = env.observe(f"player_{seat}")["observation"]
            diff = own_values(env, f"player_{seat}")
            diff.subtract(Counter(v for _, v, _ in ref.chips[seat]))
            diff[ADLER_VALUE[colour]] += 1
            gained = [v for v, c in diff.items() for _ in range(c) if c > 0]
            assert len(gained) == 1 and all(c >= 0 for c in diff.values()), f"swap of seat {seat}: diff {diff}"
            c = COLOURS.index(colour)
            hidden = (
                round(float(OBSERVATION.view(obs, "own_hidden_adler")[c]) * 2) - ref.adler_counts(seat, "hidden")[c] + 1
            )
            stats["adler_chance"] += 1
            ref.resolve((gained[0], bool(hidden)))


def sync(env, ref: Referee, totals: dict, seen: list, stats: Counter, last: dict) -> None:
    """After a reset or a step: answer the referee's chances, compare any finished round."""
    resolve_chances(env, ref, stats, last)
    if len(ref.summaries) > seen[0]:
        assert len(ref.summaries) == seen[0] + 1, "two rounds ended in one step"
        seen[0] = len(ref.summaries)
        last["acted"] = set()  # agents who acted since this summary
        compare_summary(env, ref, totals, stats)


def choose(rng: random.Random, legal: list[int], pass_prob: float) -> int:
    """Random legal actions: pass with probability ``pass_prob`` (keep an Adler chip with 0.3),
    else a random other."""
    default = PASS if PASS in legal else KEEP if KEEP in legal else None
    prob = 0.3 if default == KEEP else pass_prob
    if default is not None and (len(legal) == 1 or rng.random() < prob):
        return default
    return rng.choice([a for a in legal if a != default])


def play(rules: Rules, deal: Deal, rng: random.Random, pass_prob: float, stats: Counter, reward: str = "points"):
    """Play one game through the env with random legal actions, checking it against the referee."""
    env = ckc_env.raw_env(**env_kwargs(rules), reward=reward, summary_infos=True)
    env.reset(seed=rng.randrange(2**31), options=deal.as_options(rules.clue_face))
    ref = Referee(rules, deal)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    seen = [0]
    last = {"acted": set()}
    sync(env, ref, totals, seen, stats, last)
    while ref.pending is not None:
        d = ref.pending
        agent = env.agent_selection
        seat = seat_of(agent)
        assert not any(env.terminations.values()), "env ended the game, the referee did not"
        assert seat in d.seats, f"env asks {agent}, the referee expects a {d.kind} decision of seats {d.seats}"
        if ref.summaries and agent not in last["acted"]:  # "the info is kept until the agent acts"
            info = env.infos[agent].get("round_summary")
            assert info is not None and info["round"] == ref.summaries[-1]["round"], f"{agent} lost its round_summary"
        obs = env.observe(agent)
        legal = sorted(int(a) for a in np.flatnonzero(obs["action_mask"]))
        colour = None
        if d.kind == "cafe_adler":
            piece = OBSERVATION.view(obs["observation"], "adler_decision")
            assert piece.sum() == 1, f"{agent}: adler_decision {piece.tolist()}"
            colour = COLOURS[int(piece.argmax())]
            assert colour in d.options, f"{agent} decides about a {colour} Adler chip, the referee expects {d.options}"
            want = d.options[colour]
        else:
            want = d.legal
        assert legal == sorted(want), f"{agent} {d.kind}: env legal {legal} != reference {sorted(want)}"
        check_observation(obs, ref, seat, d.kind, colour)
        if rng.random() < 0.25:
            check_state(env.state(), ref, seat, d.kind)
        other = rng.choice(env.possible_agents)  # someone else's view of the same moment
        if other != agent:
            other_obs = env.observe(other)
            assert not other_obs["action_mask"].any(), f"{other} has an action mask while {agent} acts"
            if rng.random() < 0.3:
                check_observation(other_obs, ref, seat_of(other), None, None)
        action = choose(rng, legal, pass_prob)
        env.step(action)
        for a, r in env.rewards.items():
            totals[a] += r
        stats["decisions"] += 1
        stats[d.kind] += 1
        stats["window_accusations"] += d.kind == "window" and action != PASS
        if d.kind == "window" and rules.window_order == "random" and len(d.seats) == rules.num_players:
            stats[f"random_window_first_offset_{(seat - ref.drawer) % rules.num_players}"] += 1
        ref.step(seat, action, colour)
        last["acted"].add(agent)
        last.update(seat=seat, colour=colour)
        if reward == "points":
            sync(env, ref, totals, seen, stats, last)
        else:
            resolve_chances(env, ref, stats, last)
    assert all(env.terminations.values()), "the referee ended the game, the env did not"
    check_state(env.state(), ref, None)
    assert not any(env.truncations.values())
    final = ref.summaries[-1]
    assert final["game_over"]
    stats["games"] += 1
    stats[f"max_rounds_{rules.max_rounds}"] += 1
    stats.update(ref.counts)
    stats["stasi_kept"] += ref.stasi_kept_by is not None
    if max(final["totals"]) >= rules.target_points:
        stats["end_points"] += 1
    elif min(final["supply"]) == 0:
        stats["end_colour"] += 1
    else:
        stats["end_rounds"] += 1
    stats["shared_win"] += len(final["winners"]) > 1
    return env, ref, totals


# --- random configurations ------------------------------------------------------------------


def small_pool(rng: random.Random, rules: Rules) -> dict:
    """A short random chip pool, so that colours run out (still with the chips the variants replace)."""
    gold = [rng.choice([3, 4, 5]) for _ in range(rng.randint(1, 3))]
    white = [rng.choice([1, 2]) for _ in range(rng.randint(1, 4))]
    black = [rng.choice([0, -1]) for _ in range(rng.randint(1, 4))]
    if rules.cafe_adler:
        gold.append(3)
        white += [1, 1]
        black.append(-1)
    if rules.stasi:
        black.append(-1)
    return {"gold": gold, "white": white, "black": black}


def random_rules(rng: random.Random, n: int, variant: str, non_accuser_white: str, window_order: str) -> Rules:
    rules = Rules(
        num_players=n,
        window_order=window_order,
        non_accuser_white=non_accuser_white,
        stasi=variant in ("stasi", "both"),
        cafe_adler=variant in ("adler", "both"),
        clue_face="choose" if rng.random() < 0.25 else "random",
        reopen_windows=rng.random() < 0.3,
        max_rounds=rng.randint(1, 5),
        target_points=rng.choice([10, 10, 10, rng.randint(2, 12)]),
    )
    if rng.random() < 0.3:
        rules.chip_pool = small_pool(rng, rules)
    return rules


def random_game(rng: random.Random, n: int, variant: str, naw: str, order: str):
    rules = random_rules(rng, n, variant, naw, order)
    deal = random_deal(rng, rules, bias=rng.choice([0.0, 0.0, 0.6, 0.9, 1.0]))
    pass_prob = rng.choice([0.0, 0.5, 0.8, 0.95, 0.99, 1.0])
    return rules, deal, pass_prob


VARIANTS = ("base", "stasi", "adler", "both")
NON_ACCUSER = ("chief_in_deck", "chief_uncaught")
ORDERS = ("clockwise_from_drawer", "clockwise_after_drawer", "random")
BATCHES = [(n, v, naw, order) for n in (3, 4, 5) for v in VARIANTS for naw in NON_ACCUSER for order in ORDERS]
GAMES_PER_BATCH = 8


@functools.cache
def run_batch(n: int, variant: str, naw: str, order: str) -> Counter:
    stats = Counter()
    rng = random.Random(f"{n}-{variant}-{naw}-{order}")
    for _ in range(GAMES_PER_BATCH):
        rules, deal, pass_prob = random_game(rng, n, variant, naw, order)
        play(rules, deal, rng, pass_prob, stats)
    return stats


@pytest.mark.parametrize(("n", "variant", "naw", "order"), BATCHES)
def test_env_agrees_with_reference(n, variant, naw, order):
    assert run_batch(n, variant, naw, order)["games"] == GAMES_PER_BATCH


def test_sweep_covers_the_rules():
    """The random sweep reaches every situation the reference models (guards against a sweep
    that silently stops exercising something)."""
    stats = Counter()
    for batch in BATCHES:
        stats.update(run_batch(*batch))
    print(dict(sorted(stats.items())))
    for key in (
        "clue_face",
        "window",
        "forced_accusation",
        "cafe_adler",
        "window_accusations",
        "window_reopened",
        "investigator_windows",
        "auto_accusations",
        "forced_skips",
        "several_non_accusers",
        "chip_not_received",
        "chief_caught",
        "first_player_changed",
        "chief_in_deck",
        "white_non_accuser",
        "black_non_accuser",
        "stasi_taken",
        "stasi_exposed",
        "stasi_chance",
        "stasi_kept",
        "stasi_ended_black",
        "swaps",
        "adler_chance",
        "adler_taken_hidden",
        "end_points",
        "end_colour",
        "end_rounds",
        "shared_win",
        *(f"max_rounds_{k}" for k in range(1, 6)),
    ):
        assert stats[key] > 0, f"the sweep never reached {key}"
    # random window order: the first seat asked in a full window is not always at the same offset
    assert sum(stats[f"random_window_first_offset_{k}"] > 0 for k in range(5)) >= 3


@pytest.mark.parametrize("n", [3, 4, 5])
def test_win_rewards(n):
    """reward="win": 0 until the end, then the winners share +1 and the others share -1."""
    rng = random.Random(f"win-{n}")
    for _ in range(6):
        rules, deal, pass_prob = random_game(rng, n, rng.choice(VARIANTS), rng.choice(NON_ACCUSER), "random")
        _, ref, totals = play(rules, deal, rng, pass_prob, Counter(), reward="win")
        winners = ref.summaries[-1]["winners"]
        losers = [s for s in range(n) if s not in winners]
        for s in range(n):
            want = 1 / len(winners) if s in winners else -1 / len(losers)
            assert totals[f"player_{s}"] == pytest.approx(want), (s, winners, totals)
