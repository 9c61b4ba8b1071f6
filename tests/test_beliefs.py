"""Exact beliefs (``ckc_env.reading.beliefs``) against an independent brute force, Monte Carlo and a
leak check.

The reference here shares no code with ``ckc_env.reading.beliefs``. From a seat's information set
(its own clue, or its own tile while the face is still to be chosen; every seat's row and discard pile as
sets of cats; the public clues revealed from the bag; the clue lying face-up under the Stasi card
and whose it is) :func:`hidden_deals` enumerates every complete hidden deal: each seat whose clue
is unknown gets a distinct remaining feature and a face, the tiles still in the bag get the other
remaining features (in every order) and faces. A deal is kept when every cat in each seat's row
shows that seat's clue value and no cat in its discard pile does. Every kept deal is equally
likely (the tiles are dealt uniformly, the faces are fair coins, the deck is shuffled
independently of them, an investigator card reveals any bag tile with the same chance), so
:func:`brute_force` counts: P(chief), P(assistant) and P(innocent) of each cat from the number of
clue values it shows in each deal, and each seat's clue distribution.

- ``test_beliefs_match_brute_force``: ``beliefs(view)`` equals the brute force to 1e-12 at random
  decisions of random-play games, 3, 4 and 5 players, from every seat's point of view: base games,
  games with investigator cards (public clues), Stasi games from round 2 on (the Stasi chip is
  forced to the first player who takes a black chip), ``clue_face="choose"`` decisions, and Cafe
  Adler decisions (everything revealed). Each case asserts it reached the positions it is there for.
- ``test_beliefs_invariants``: the true chief, every seat's true clue and true tile have positive
  probability; chief sums to 1, assistant to 5, chief + assistant + innocent = 1 per cat, all in
  [0, 1]; each seat's clue distribution sums to 1; the own clue is one-hot (while its face is still
  to be chosen, all on the own tile), so is a Stasi-exposed clue; a revealed bag tile is nobody's.
- ``test_beliefs_match_monte_carlo``: hidden states sampled from the prior (seeded NumPy RNG) and
  kept when consistent with what the seat saw (rejection sampling); the chief frequencies and the
  clue frequencies of every seat agree with ``beliefs`` within 5 standard errors.
- ``test_beliefs_do_not_leak``: two games dealt through reset options so that they differ only in
  what one seat cannot know (another consistent hidden deal, picked by the brute force, with a
  different chief where one exists), played with the same actions: the seat's public view is
  identical and so are its beliefs, bit for bit. ``test_leak_check_catches_a_planted_leak``
  shows the check fails for a posterior that peeks at the other seats' clues.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product

import numpy as np
import pytest

import ckc_env
from ckc_env.engine.actions import CAFE_ADLER, CLUE_FACE, FORCED_ACCUSATION, WINDOW
from ckc_env.engine.chips import build_pool, chip_token
from ckc_env.engine.game import legal_actions
from ckc_env.engine.view import PlayerView
from ckc_env.reading.beliefs import beliefs, weighted_beliefs

N_FEATURES, N_CATS, N_CLUES = 5, 32, 10
INVESTIGATOR = 32
PASS, FACE_A = 0, 33  # actions (env card): pass; show value A of the own tile (34: value B)
TOL = 1e-12


# ---------------------------------------------------------------------- the independent reference
def shows(cat: int, clue: int) -> bool:
    """Whether the cat shows the clue's value: bit f of a cat is set for value A of feature f,
    and clue 2f + side means value A (side 0) or B (side 1) of feature f."""
    feature, side = divmod(clue, 2)
    return (cat >> feature) & 1 == 1 - side


def cats_of(mask: int) -> frozenset[int]:
    return frozenset(cat for cat in range(N_CATS) if (mask >> cat) & 1)


@dataclass(frozen=True)
class InfoSet:
    """What one seat knows of the round's clues."""

    n: int
    seat: int
    own_clue: int | None  # None while the seat's face is still to be chosen
    own_tile: int
    public: tuple[int, ...]  # bag tiles revealed by investigator cards
    exposed: tuple[tuple[int, int], ...]  # (seat, clue) lying face-up
    rows: tuple[frozenset[int], ...]
    discards: tuple[frozenset[int], ...]

    def known(self) -> dict[int, int]:
        known = dict(self.exposed)
        if self.own_clue is not None:
            known[self.seat] = self.own_clue
        return known


def info_set(view: PlayerView) -> InfoSet:
    n = view.num_players
    return InfoSet(
        n=n,
        seat=view.seat,
        own_clue=view.own_clue if view.own_clue >= 0 else None,
        own_tile=view.own_tile,
        public=tuple(view.public_clues),
        exposed=tuple(sorted(view.exposed_clues.items())),
        rows=tuple(cats_of(view.rows[s]) for s in range(n)),
        discards=tuple(cats_of(view.discards[s]) for s in range(n)),
    )


def hidden_deals(info: InfoSet) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every complete hidden deal consistent with the information set, as (clue of every seat,
    clues of the tiles still in the bag in the order they would be revealed)."""
    known = info.known()
    fixed = {clue // 2 for clue in known.values()} | {clue // 2 for clue in info.public}
    remaining = [f for f in range(N_FEATURES) if f not in fixed]
    unknown = [s for s in range(info.n) if s not in known]
    k = len(unknown)
    assert len(remaining) == k + (N_FEATURES - info.n - len(info.public)), "tiles do not add up"
    fits = {
        (s, clue): all(shows(cat, clue) for cat in info.rows[s])
        and not any(shows(cat, clue) for cat in info.discards[s])
        for s in unknown
        for clue in range(N_CLUES)
    }
    own_index = unknown.index(info.seat) if info.own_clue is None else -1
    template = [known.get(s, -1) for s in range(info.n)]
    for order in permutations(remaining):  # features of the unknown seats, then of the bag
        if own_index >= 0 and order[own_index] != info.own_tile:
            continue  # the seat knows which tile it drew
        for clues in product(*[(2 * f, 2 * f + 1) for f in order]):  # every choice of faces
            if all(fits[s, clue] for s, clue in zip(unknown, clues[:k], strict=True)):
                seat_clues = template[:]
                for s, clue in zip(unknown, clues[:k], strict=True):
                    seat_clues[s] = clue
                yield tuple(seat_clues), clues[k:]


@dataclass
class Posterior:
    chief: np.ndarray
    assistant: np.ndarray
    innocent: np.ndarray
    clue: np.ndarray
    deals: int
    bag_hidden: int  # tiles still hidden in the bag


def brute_force(info: InfoSet) -> Posterior:
    """The posterior by counting the consistent hidden deals, all equally likely."""
    by_clue_set: Counter[frozenset[int]] = Counter()
    clue_count = np.zeros((info.n, N_CLUES))
    for seat_clues, bag in hidden_deals(info):
        everything = frozenset(seat_clues + info.public + bag)
        assert sorted(clue // 2 for clue in everything) == list(range(N_FEATURES))
        by_clue_set[everything] += 1
        for s, clue in enumerate(seat_clues):
            clue_count[s, clue] += 1
    total = sum(by_clue_set.values())
    if total == 0:
        raise AssertionError(f"no hidden deal is consistent with {info}")
    chief, assistant, innocent = np.zeros(N_CATS), np.zeros(N_CATS), np.zeros(N_CATS)
    for clues, weight in by_clue_set.items():
        shown = clue_values_shown(clues)
        chief[shown == 5] += weight
        assistant[shown == 4] += weight
        innocent[shown <= 3] += weight
    return Posterior(
        chief=chief / total,
        assistant=assistant / total,
        innocent=innocent / total,
        clue=clue_count / total,
        deals=total,
        bag_hidden=N_FEATURES - info.n - len(info.public),
    )


@cache
def clue_values_shown(clues: frozenset[int]) -> np.ndarray:
    """How many of the five clue values each cat shows."""
    return np.array([sum(shows(cat, clue) for clue in clues) for cat in range(N_CATS)])


def true_chief(clues: list[int]) -> int:
    """The cat showing every clue value (all five clues known)."""
    (cat,) = [cat for cat in range(N_CATS) if all(shows(cat, clue) for clue in clues)]
    return cat


# ---------------------------------------------------------------------- positions by random play
def stasi_first(config: dict) -> dict:
    """chip_order making the Stasi chip the first black chip taken (the rest in pool order)."""
    pool = build_pool(ckc_env.raw_env(**config).config)
    tokens = [chip_token(pool, chip) for chip in pool.ids_of(2)]
    tokens.remove("stasi")
    return {"black": ["stasi", *tokens]}


def random_action(game, rng: np.random.Generator, pass_prob: float) -> int:
    legal = legal_actions(game)
    if game.pending_kind == WINDOW:
        if rng.random() < pass_prob:
            return PASS
        legal = legal[1:]
    return int(legal[rng.integers(len(legal))])


def random_play(n: int, seed: int, games: int, stop_prob: float, **config) -> Iterator[ckc_env.raw_env]:
    """Play ``games`` random games (accusation windows mostly pass); yield the env at random
    decisions (a clue face decision with probability 1/2, any other with ``stop_prob``)."""
    rng = np.random.default_rng(seed)
    env = ckc_env.raw_env(num_players=n, **config)
    options = {"chip_order": stasi_first({"num_players": n, **config})} if config.get("stasi") else None
    for game_index in range(games):
        env.reset(seed=seed * 1_000 + game_index, options=options)
        game = env.unwrapped.game
        pass_prob = (0.9, 0.97, 0.995)[game_index % 3]
        while not game.game_over:
            if rng.random() < (0.5 if game.pending_kind == CLUE_FACE else stop_prob):
                yield env
            env.step(random_action(game, rng, pass_prob))


CASES = {
    # name: (players, config, games, stop probability, required coverage)
    "3p": (3, {}, 12, 0.2, {"public"}),
    "4p": (4, {}, 10, 0.2, {"public"}),
    "5p": (5, {}, 8, 0.2, set()),
    "3p-stasi": (3, {"stasi": True}, 10, 0.2, {"public", "exposed"}),
    "4p-stasi-adler": (4, {"stasi": True, "cafe_adler": True}, 20, 0.2, {"public", "exposed", "adler"}),
    "5p-stasi": (5, {"stasi": True}, 8, 0.2, {"exposed"}),
    "3p-choose": (3, {"clue_face": "choose"}, 8, 0.1, {"public", "choosing"}),
    "4p-choose-stasi": (4, {"clue_face": "choose", "stasi": True}, 8, 0.1, {"public", "exposed", "choosing"}),
    "5p-choose": (5, {"clue_face": "choose"}, 6, 0.1, {"choosing"}),
}


def case_positions(name: str) -> Iterator[ckc_env.raw_env]:
    n, config, games, stop_prob, _ = CASES[name]
    seed = sorted(CASES).index(name) + 1
    yield from random_play(n, seed, games, stop_prob, **config)


def coverage(view: PlayerView, game) -> set[str]:
    tags = set()
    if view.public_clues and not view.scoring:
        tags.add("public")
    if view.exposed_clues and not view.scoring:
        tags.add("exposed")
    if view.own_clue < 0:
        tags.add("choosing")
    if game.pending_kind == CAFE_ADLER:
        tags.add("adler")
    return tags


def assert_beliefs_equal(got, want: Posterior, where: str) -> None:
    for field in ("chief", "assistant", "innocent", "clue"):
        a, b = getattr(got, field), getattr(want, field)
        if a.shape != b.shape or np.abs(a - b).max() > TOL:  # assert_allclose only to report
            np.testing.assert_allclose(a, b, rtol=0, atol=TOL, err_msg=f"{field} {where}")
    # beliefs counts bag tiles as a set, the brute force in every order of revelation
    assert got.assignments * math.factorial(want.bag_hidden) == want.deals, where


@pytest.mark.parametrize("name", sorted(CASES))
def test_beliefs_match_brute_force(name: str) -> None:
    n = CASES[name][0]
    required = CASES[name][4]
    seen: Counter[str] = Counter()
    positions = 0
    for env in case_positions(name):
        game = env.unwrapped.game
        positions += 1
        for seat in range(n):
            view = PlayerView(game, seat)
            where = f"({name}, round {game.round_index + 1}, seat {seat}, cards {view.card_order}, clues {game.clues}, bag {game.bag})"
            assert_beliefs_equal(beliefs(view), brute_force(info_set(view)), where)
            seen.update(coverage(view, game))
    assert positions >= 50, positions
    for tag in required:
        assert seen[tag] >= 10, f"{name}: only {seen[tag]} seat-positions of kind {tag!r}"


# ---------------------------------------------------------------------- invariants
@pytest.mark.parametrize("name", ["3p", "4p-stasi-adler", "5p-stasi", "4p-choose-stasi"])
def test_beliefs_invariants(name: str) -> None:
    n = CASES[name][0]
    checked = 0
    for env in case_positions(name):
        game = env.unwrapped.game
        all_chosen = min(game.clues) >= 0
        for seat in range(n):
            view = PlayerView(game, seat)
            b = beliefs(view)
            where = f"({name}, round {game.round_index + 1}, seat {seat}, clues {game.clues}, bag {game.bag})"
            for p in (b.chief, b.assistant, b.innocent, b.clue):
                assert np.all(p >= -TOL) and np.all(p <= 1 + TOL), where
            assert abs(b.chief.sum() - 1) < TOL, where
            assert abs(b.assistant.sum() - 5) < 1e-11, where
            np.testing.assert_allclose(b.chief + b.assistant + b.innocent, 1.0, rtol=0, atol=TOL, err_msg=where)
            np.testing.assert_allclose(b.clue.sum(axis=1), 1.0, rtol=0, atol=TOL, err_msg=where)
            if all_chosen:
                assert b.chief[true_chief(game.clues + game.bag)] > 0, where
            for s, clue in enumerate(game.clues):
                if clue >= 0:
                    assert b.clue[s, clue] > 0, f"seat {s}'s true clue {clue} ruled out {where}"
                tile = game.tiles[s]
                assert b.clue[s, 2 * tile] + b.clue[s, 2 * tile + 1] > 0, where
            if view.own_clue >= 0:
                np.testing.assert_array_equal(b.clue[seat], np.eye(N_CLUES)[view.own_clue], err_msg=where)
            else:  # the face is still to be chosen: the seat knows its tile
                assert abs(b.clue[seat, 2 * view.own_tile] + b.clue[seat, 2 * view.own_tile + 1] - 1) < TOL, where
            for s, clue in view.exposed_clues.items():
                np.testing.assert_array_equal(b.clue[s], np.eye(N_CLUES)[clue], err_msg=where)
            for clue in view.public_clues:  # a revealed tile is nobody's clue
                assert np.all(b.clue[:, clue] == 0) and np.all(b.clue[:, clue ^ 1] == 0), where
            checked += 1
    assert checked >= 150


# ---------------------------------------------------------------------- Monte Carlo
CLUE_MASKS = np.array([sum(1 << cat for cat in range(N_CATS) if shows(cat, clue)) for clue in range(N_CLUES)])


def monte_carlo(info: InfoSet, samples: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """Sample hidden states from the prior (the unknown tiles dealt uniformly to the unknown seats
    and the bag, fair faces), keep those consistent with what the seat saw; returns the chief
    frequencies, the clue frequencies of every seat and the number kept."""
    known = info.known()
    fixed = {c // 2 for c in known.values()} | {c // 2 for c in info.public}
    remaining = np.array([f for f in range(N_FEATURES) if f not in fixed])
    unknown = [s for s in range(info.n) if s not in known]
    order = remaining[np.argsort(rng.random((samples, len(remaining))), axis=1)]
    clues = 2 * order + rng.integers(2, size=order.shape)
    ok = np.ones(samples, dtype=bool)
    for i, s in enumerate(unknown):
        shown = CLUE_MASKS[clues[:, i]]
        row = sum(1 << cat for cat in info.rows[s])
        discards = sum(1 << cat for cat in info.discards[s])
        ok &= (row & ~shown) == 0
        ok &= (discards & shown) == 0
        if s == info.seat:
            ok &= order[:, i] == info.own_tile
    chief_known = sum(1 << (c // 2) for c in [*known.values(), *info.public] if c % 2 == 0)
    chief = chief_known + ((clues % 2 == 0) << order).sum(axis=1)
    kept = int(ok.sum())
    chief_freq = np.bincount(chief[ok], minlength=N_CATS) / kept
    clue_freq = np.zeros((info.n, N_CLUES))
    for s, clue in known.items():
        clue_freq[s, clue] = 1.0
    for i, s in enumerate(unknown):
        clue_freq[s] = np.bincount(clues[ok, i], minlength=N_CLUES) / kept
    return chief_freq, clue_freq, kept


def assert_within(freq: np.ndarray, p: np.ndarray, kept: int, where: str) -> None:
    """|frequency - p| within 5 standard errors of a binomial proportion (exact at p = 0 or 1)."""
    bound = 5 * np.sqrt(p * (1 - p) / kept) + 1e-12
    bad = np.flatnonzero(np.abs(freq - p) > bound)
    assert bad.size == 0, f"{where}: at {bad.tolist()} frequencies {freq[bad]} vs beliefs {p[bad]} (kept {kept})"


def monte_carlo_positions() -> list[tuple[str, ckc_env.raw_env, int]]:
    """A handful of positions where the chief is uncertain: (case, pickled env, seat), one per
    case and wanted feature (public clue, Stasi-exposed clue, face to choose, or plain)."""
    import pickle

    wanted = {"3p": "public", "4p": "public", "5p": "", "5p-stasi": "exposed", "3p-stasi": "exposed"}
    wanted |= {"4p-choose-stasi": "choosing", "5p-choose": ""}
    picks = []
    for name, tag in wanted.items():
        rng = np.random.default_rng(len(picks))
        found = 0
        for env in case_positions(name):
            seat = int(rng.integers(CASES[name][0]))
            view = PlayerView(env.unwrapped.game, seat)
            if (
                (not tag or tag in coverage(view, env.unwrapped.game))
                and np.count_nonzero(beliefs(view).chief) >= 3
                and rng.random() < 0.3
            ):
                picks.append((name, pickle.loads(pickle.dumps(env.unwrapped.game)), seat))
                found += 1
                if found == 2:
                    break
        assert found == 2, name
    return picks


def test_beliefs_match_monte_carlo() -> None:
    rng = np.random.default_rng(20240601)
    for name, game, seat in monte_carlo_positions():
        view = PlayerView(game, seat)
        info = info_set(view)
        b = beliefs(view)
        chief_freq, clue_freq, kept = monte_carlo(info, 200_000, rng)
        assert kept >= 2_000, (name, kept)
        where = f"Monte Carlo ({name}, seat {seat}, clues {game.clues}, bag {game.bag}, {kept} kept)"
        assert_within(chief_freq, b.chief, kept, f"chief {where}")
        for s in range(info.n):
            assert_within(clue_freq[s], b.clue[s], kept, f"seat {s}'s clue {where}")


# ---------------------------------------------------------------------- leak check
def deal_round(n: int, rng: np.random.Generator, choose: bool) -> dict:
    """A round's set-up as reset options: deck (investigator cards in the top half), clues or
    tiles, bag."""
    features = rng.permutation(N_FEATURES).tolist()
    cats = rng.permutation(N_CATS).tolist()
    top = cats[:16] + [INVESTIGATOR] * (5 - n)
    deck = [top[i] for i in rng.permutation(len(top))] + cats[16:]
    clues = [2 * f + int(rng.integers(2)) for f in features]
    setup = {"deck": deck, "bag": clues[n:]}
    if choose:
        setup["tiles"] = features[:n]
    else:
        setup["clues"] = clues[:n]
    return setup


def public_view(view: PlayerView, game) -> tuple:
    return (
        view.own_clue,
        view.own_tile,
        view.public_clues,
        view.exposed_clues,
        view.rows,
        view.discards,
        view.card_order,
        view.accusations,
        view.deck_size,
        view.round_index,
        game.pending_kind,
        game.current_seat,
        view.accused_by,
        view.accused_at,
    )


def leak_pairs(n: int, seed: int, round_index: int, config: dict) -> Iterator[tuple]:
    """Play a game dealt through reset options to a random decision of round ``round_index + 1``;
    for every seat, replay it with another hidden deal of that round that the seat cannot tell
    apart. Yields (seat, game A, game B)."""
    rng = np.random.default_rng(seed)
    choose = config.get("clue_face") == "choose"
    rounds = [deal_round(n, rng, choose) for _ in range(round_index + 1)]
    options = {"first_player": int(rng.integers(n)), "rounds": rounds}
    if config.get("stasi"):
        options["chip_order"] = stasi_first({"num_players": n, **config})
    env_a = ckc_env.raw_env(num_players=n, **config)
    env_a.reset(seed=seed, options=options)
    game_a = env_a.unwrapped.game
    history = []  # (round, kind, seat, action)
    while True:
        if game_a.game_over or game_a.round_index > round_index:
            return
        kind = game_a.pending_kind
        here = game_a.round_index == round_index and kind in (WINDOW, FORCED_ACCUSATION, CLUE_FACE)
        if here and (not config.get("stasi") or game_a.stasi_exposed >= 0) and rng.random() < 0.15:
            break
        action = random_action(game_a, rng, 0.97)
        history.append((game_a.round_index, kind, game_a.pending_seat, action))
        env_a.step(action)
    for seat in range(n):
        view_a = PlayerView(game_a, seat)
        info = info_set(view_a)
        truth = (tuple(game_a.tiles), tuple(game_a.clues), tuple(game_a.bag[len(info.public) :]))

        def hidden(deal: tuple) -> tuple:  # what game B would hold (faces not yet chosen stay -1)
            clues, bag = deal
            chosen = tuple(c if game_a.clues[s] >= 0 else -1 for s, c in enumerate(clues))
            return tuple(c // 2 for c in clues), chosen, bag

        others = [d for d in hidden_deals(info) if hidden(d) != truth]
        if not others:
            continue
        chief_a = true_chief(game_a.clues + game_a.bag) if min(game_a.clues) >= 0 else -1
        differ = [d for d in others if true_chief(list(d[0] + info.public + d[1])) != chief_a]
        pool = differ or others
        alt_clues, alt_bag = pool[rng.integers(len(pool))]
        setup = {"deck": rounds[round_index]["deck"], "bag": [*info.public, *alt_bag]}
        if choose:
            setup["tiles"] = [clue // 2 for clue in alt_clues]
        else:
            setup["clues"] = list(alt_clues)
        env_b = ckc_env.raw_env(num_players=n, **config)
        env_b.reset(seed=seed, options={**options, "rounds": [*rounds[:round_index], setup]})
        known = info.known()
        for r, kind, actor, action in history:
            if r == round_index and kind == CLUE_FACE and actor not in known:
                action = FACE_A + alt_clues[actor] % 2  # the face of the other deal
            env_b.step(action)
        yield seat, game_a, env_b.unwrapped.game


LEAK_CASES = {
    # name: (players, config, round index, games)
    "3p": (3, {}, 0, 12),
    "4p": (4, {}, 0, 12),
    "5p": (5, {}, 0, 12),
    "3p-stasi-round2": (3, {"stasi": True}, 1, 12),
    "4p-stasi-round2": (4, {"stasi": True}, 1, 12),
    "5p-stasi-round2": (5, {"stasi": True}, 1, 12),
    "4p-choose": (4, {"clue_face": "choose"}, 0, 12),
    "5p-choose-stasi-round2": (5, {"clue_face": "choose", "stasi": True}, 1, 12),
}


def check_leak_pairs(name: str, posterior=beliefs) -> tuple[int, int]:
    """Assert ``posterior`` is identical in every pair of the case; returns (pairs, pairs whose chiefs differ)."""
    n, config, round_index, games = LEAK_CASES[name]
    pairs = chief_changed = 0
    for game in range(games):
        for seat, game_a, game_b in leak_pairs(n, 100 * game + 7, round_index, config):
            view_a, view_b = PlayerView(game_a, seat), PlayerView(game_b, seat)
            assert public_view(view_a, game_a) == public_view(view_b, game_b), (
                "the replay left the seat's information set"
            )
            hidden_a, hidden_b = (game_a.tiles, game_a.clues, game_a.bag), (game_b.tiles, game_b.clues, game_b.bag)
            assert hidden_a != hidden_b, "the hidden deals do not differ"
            if min(game_a.clues) >= 0 and true_chief(game_a.clues + game_a.bag) != true_chief(
                game_b.clues + game_b.bag
            ):
                chief_changed += 1
            a, b = posterior(view_a), posterior(view_b)
            where = f"{name}, seat {seat}: clues {game_a.clues} / {game_b.clues}, bag {game_a.bag} / {game_b.bag}"
            for field in ("chief", "assistant", "innocent", "clue"):
                assert np.array_equal(getattr(a, field), getattr(b, field)), f"{field} differs ({where})"
            assert a.assignments == b.assignments, where
            pairs += 1
    return pairs, chief_changed


@pytest.mark.parametrize("name", sorted(LEAK_CASES))
def test_beliefs_do_not_leak(name: str) -> None:
    pairs, chief_changed = check_leak_pairs(name)
    assert pairs >= 10, pairs
    assert chief_changed >= 1, "no pair had different chiefs"


class PeekingView(PlayerView):
    """A view that leaks: every chosen clue lies face-up."""

    __slots__ = ()

    @property
    def exposed_clues(self) -> dict[int, int]:
        return {s: clue for s, clue in enumerate(self._state.clues) if clue >= 0}


def test_leak_check_catches_a_planted_leak() -> None:
    with pytest.raises(AssertionError, match="differs"):
        check_leak_pairs("4p", lambda view: beliefs(PeekingView(view._state, view.seat)))


def test_the_environment_gives_each_agents_beliefs_and_view() -> None:
    """raw_env.beliefs(agent) and raw_env.player_view(agent): the documented way in, no private state."""
    env = ckc_env.raw_env(num_players=4, stasi=True)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    checked = 0
    while not env.game.game_over and checked < 40:
        for seat, agent in enumerate(env.possible_agents):
            view = env.player_view(agent)
            assert view.seat == seat and view.own_clue == env.game.clues[seat]
            got, want = env.beliefs(agent), beliefs(PlayerView(env.game, seat))
            assert got.assignments == want.assignments
            for field in ("chief", "assistant", "innocent", "clue"):
                np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
            checked += 1
        env.step(random_action(env.game, rng, pass_prob=0.7))
    assert checked >= 40
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.beliefs("player_9")


def weighted_brute_force(info: InfoSet, clue_weights: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """P(chief) and P(clue) by enumerating every consistent deal, each weighted by the product of the
    given seats' clue factors."""
    chief, clue = np.zeros(N_CATS), np.zeros((info.n, N_CLUES))
    total = 0.0
    for seat_clues, bag in hidden_deals(info):
        w = 1.0
        for s, factors in clue_weights.items():
            if s not in info.known():
                w *= factors[seat_clues[s]]
        shown = clue_values_shown(frozenset(seat_clues + info.public + bag))
        chief[shown == 5] += w
        for s, c in enumerate(seat_clues):
            clue[s, c] += w
        total += w
    return chief / total, clue / total


@pytest.mark.parametrize("name", ["4p", "3p-stasi", "5p-choose"])
def test_weighted_beliefs_match_a_weighted_brute_force(name: str) -> None:
    """weighted_beliefs: each deal weighted by per-seat clue factors, as enumeration says; with no
    factors it is beliefs() exactly."""
    n = CASES[name][0]
    rng = np.random.default_rng(sorted(CASES).index(name))
    positions = 0
    for env in case_positions(name):
        game = env.unwrapped.game
        for seat in range(n):
            view = PlayerView(game, seat)
            plain = weighted_beliefs(view, {})
            np.testing.assert_array_equal(plain.chief, beliefs(view).chief)
            factors = {s: rng.random(N_CLUES) + 0.05 for s in range(n) if s != seat}
            got = weighted_beliefs(view, factors)
            want_chief, want_clue = weighted_brute_force(info_set(view), factors)
            np.testing.assert_allclose(got.chief, want_chief, atol=1e-12)
            np.testing.assert_allclose(got.clue, want_clue, atol=1e-12)
        positions += 1
        if positions == 25:
            break
    assert positions == 25


def test_the_first_address_hands_on_the_reading_room_posterior() -> None:
    """``ckc_env.beliefs`` (the address users and docs import from) is ``ckc_env.reading.beliefs``."""
    import ckc_env.beliefs
    import ckc_env.reading.beliefs

    for name in ckc_env.beliefs.__all__:
        assert getattr(ckc_env.beliefs, name) is getattr(ckc_env.reading.beliefs, name), name
