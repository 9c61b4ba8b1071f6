"""Information leaks: what a player cannot know must not change its observation (or its infos).

Clue leak test. Two games A and B are dealt through reset options so that they differ only in
what player_0 cannot know, while everything public stays the same:

- same first player, same player_0 clue, same investigator positions, same bag tiles revealed;
- the other seats' clues are moved to other features (and faces), unrevealed bag tiles change,
  so the chief changes;
- the deck: the first P cards are the same, chosen (by bipartite matching) so that every card a
  seat other than 0 draws shows that seat's A clue exactly when it shows its B clue: each card
  lands in the same row or discard pile in both games. After those P cards the decks differ
  (B has the rest in reverse order);
- the chip supply is in another face-down order (chip_order).

Both games get the same actions (legal actions are public, so they are the same); player_0's
observation is compared after every step while the public information is provably identical:
round 1, before scoring, at most P cards drawn (the ansi render, "the table as any onlooker sees
it", must be identical too). ``test_the_leak_check_catches_planted_leaks``
shows this comparison fails when another seat's clue, the bag, the chief, the deck order or a
chip value is written into player_0's observation.

Chip leak test: two games identical except the face-down order of the first two chips of one
colour; players who never held those chips get identical observations, infos and rewards all game.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest

import ckc_env
from ckc_env.engine.cards import CLUE_CATS
from ckc_env.engine.chips import build_pool, chip_token
from ckc_env.engine.game import SCORING, legal_actions
from ckc_env.observation import OBSERVATION, STATE, Encoder

INV = 32
PASS = 0


def has_clue(cat: int, clue: int) -> bool:
    return bool((CLUE_CATS[clue] >> cat) & 1)


def chief_of(clues: list[int]) -> int:
    return sum(1 << (c // 2) for c in clues if c % 2 == 0)


def drawers(deck: list[int], first: int, n: int) -> list[int]:
    """Seat that draws each deck position (an investigator card is followed by a redraw)."""
    out, seat = [], first
    for card in deck:
        out.append(seat)
        if card != INV:
            seat = (seat + 1) % n
    return out


def _random_derangement(items: list, rng: random.Random) -> list:
    while True:
        perm = items[:]
        rng.shuffle(perm)
        if all(a != b for a, b in zip(items, perm, strict=True)):
            return perm


def build_pair(n: int, seed: int, mode: str) -> dict:
    """Reset options of games A and B and the number P of leading cards with identical placements.

    mode "early": the first investigator card is drawn among the compared cards (the bag tile it
    reveals is the same in A and B); "late": the investigator cards lie at the bottom of the top
    16 + (5 - n) cards, the comparison stops before them and every bag tile differs.
    """
    rng = random.Random(seed)
    k = 5 - n
    first = rng.randrange(n)
    feats = list(range(5))
    rng.shuffle(feats)
    clues_a = [2 * f + rng.randrange(2) for f in feats[:n]]
    bag_a = [2 * f + rng.randrange(2) for f in feats[n:]]
    size = 32 + k
    if k and mode == "early":
        inv_pos = [rng.randrange(2, 10)] + [16 + k - 1] * (k - 1)
        cap = 16 + k - 1 if k == 2 else size
        fixed_bag = 1  # bag[0] is revealed while comparing: the same in A and B
    else:
        inv_pos = list(range(16, 16 + k))
        cap = 16 if k else size
        fixed_bag = 0
    # B: seats 1..n-1 and the bag tiles not revealed get other features, random faces;
    # the set of clues must change (so does the chief).
    items_a = clues_a[1:] + bag_a[fixed_bag:]
    while True:
        feats_b = _random_derangement([c // 2 for c in items_a], rng)
        items_b = [2 * f + rng.randrange(2) for f in feats_b]
        if sorted(items_b) != sorted(items_a):
            break
    clues_b = [clues_a[0], *items_b[: n - 1]]
    bag_b = bag_a[:fixed_bag] + items_b[n - 1 :]
    # the deck: match the compared positions to cats with identical placements (Kuhn's algorithm)
    skeleton = [INV if p in inv_pos else -1 for p in range(size)]
    who = drawers(skeleton, first, n)

    def eligible(p: int, cat: int) -> bool:
        s = who[p]
        return s == 0 or has_clue(cat, clues_a[s]) == has_clue(cat, clues_b[s])

    owner: dict[int, int] = {}  # cat -> position

    def augment(p: int, seen: set) -> bool:
        cats = list(range(32))
        random.Random(seed * 100 + p).shuffle(cats)
        for cat in cats:
            if cat in seen or not eligible(p, cat):
                continue
            seen.add(cat)
            if cat not in owner or augment(owner[cat], seen):
                owner[cat] = p
                return True
        return False

    prefix = 0
    for p in range(cap):
        if skeleton[p] != INV and not augment(p, set()):
            break
        prefix = p + 1
    matched = {p: cat for cat, p in owner.items()}
    rest = [c for c in range(32) if c not in owner]
    rng.shuffle(rest)
    free = [p for p in range(prefix, size) if skeleton[p] != INV]
    deck_a, deck_b = skeleton[:], skeleton[:]
    for p in range(prefix):
        if skeleton[p] != INV:
            deck_a[p] = deck_b[p] = matched[p]
    for p, cat_a, cat_b in zip(free, rest, rest[::-1], strict=True):
        deck_a[p], deck_b[p] = cat_a, cat_b
    return {
        "first_player": first,
        "prefix": prefix,
        "a": {"deck": deck_a, "clues": clues_a, "bag": bag_a},
        "b": {"deck": deck_b, "clues": clues_b, "bag": bag_b},
    }


def chip_orders(env, rng: random.Random) -> tuple[dict, dict]:
    """Two full face-down orders of every colour, the first chip taken differing in value where possible."""
    pool = build_pool(env.unwrapped.config)
    a, b = {}, {}
    for colour, name in enumerate(("gold", "white", "black")):
        tokens = [chip_token(pool, c) for c in pool.ids_of(colour)]
        rng.shuffle(tokens)
        a[name] = tokens
        b[name] = sorted(tokens, key=lambda t: (isinstance(t, str), t), reverse=True)
        if a[name][0] == b[name][0]:
            b[name] = b[name][::-1]
    return a, b


def _choose(mask: np.ndarray, rng: random.Random, pass_prob: float = 0.85) -> int:
    legal = np.flatnonzero(mask).tolist()
    if PASS in legal and rng.random() < pass_prob:
        return PASS
    return rng.choice(legal)


def compare_player0(n: int, config: dict, pair: dict, action_seed: int, env_seed: int = 0) -> int:
    """Play A and B with the same actions; assert player_0's observations are identical while the
    public information is. Returns the number of compared positions."""
    envs = []
    orders = chip_orders(ckc_env.raw_env(num_players=n, **config), random.Random(action_seed))
    for side, order in zip("ab", orders, strict=True):
        env = ckc_env.raw_env(num_players=n, render_mode="ansi", **config)
        env.reset(seed=env_seed, options={**pair[side], "first_player": pair["first_player"], "chip_order": order})
        envs.append(env)
    env_a, env_b = envs
    game_a, game_b = env_a.unwrapped.game, env_b.unwrapped.game
    assert not np.array_equal(env_a.state(), env_b.state())  # the hidden states do differ
    assert chief_of(game_a.clues + game_a.bag) != chief_of(game_b.clues + game_b.bag)
    rng = random.Random(action_seed)
    compared = 0
    while game_a.round_index == 0 and game_a.phase < SCORING and game_a.deck_pos <= pair["prefix"]:
        assert env_a.agent_selection == env_b.agent_selection
        assert game_a.deck_pos == game_b.deck_pos
        obs_a, obs_b = env_a.observe("player_0"), env_b.observe("player_0")
        diff = np.flatnonzero(obs_a["observation"] != obs_b["observation"])
        assert diff.size == 0, f"player_0 sees a difference in pieces {_pieces(diff)} after {compared} steps"
        assert np.array_equal(obs_a["action_mask"], obs_b["action_mask"])
        assert env_a.render() == env_b.render(), "the table render (public by its docstring) differs"
        mask = env_a.observe(env_a.agent_selection)["action_mask"]
        assert np.array_equal(mask, env_b.observe(env_b.agent_selection)["action_mask"])
        action = _choose(mask, rng)
        env_a.step(action)
        env_b.step(action)
        compared += 1
    return compared


def _pieces(indices) -> list[str]:
    return sorted(
        {
            p.name
            for i in indices
            for p in OBSERVATION.pieces
            if OBSERVATION.slice(p.name).start <= i < OBSERVATION.slice(p.name).stop
        }
    )


CASES = [
    pytest.param(5, "full", seed, cfg, id=f"n5-{seed}-{'-'.join(map(str, cfg.values())) or 'base'}")
    for seed, cfg in [
        (0, {}),
        (1, {"window_order": "clockwise_from_drawer"}),
        (2, {"stasi": True, "cafe_adler": True}),
        (3, {"window_order": "clockwise_after_drawer"}),
        (4, {"belief_features": "players"}),
        (5, {"belief_features": True, "stasi": True}),
        (6, {"belief_features": "second_order", "stasi": True}),
    ]
] + [
    pytest.param(n, mode, seed, cfg, id=f"n{n}-{mode}-{seed}")
    for n in (3, 4)
    for mode in ("early", "late")
    for seed, cfg in [
        (10, {}),
        (11, {"stasi": True}),
        (12, {"cafe_adler": True, "window_order": "clockwise_from_drawer"}),
        (13, {"belief_features": "players", "stasi": True}),
        (14, {"belief_features": "second_order"}),
    ]
]


@pytest.mark.parametrize(("n", "mode", "seed", "config"), CASES)
def test_player0_cannot_see_other_clues_bag_chief_deck_or_chip_values(n, mode, seed, config):
    pair = build_pair(n, seed, mode)
    assert pair["prefix"] >= 8, pair["prefix"]  # enough cards compared for the test to mean something
    a, b = pair["a"], pair["b"]
    assert a["clues"][0] == b["clues"][0]
    assert all(ca // 2 != cb // 2 for ca, cb in zip(a["clues"][1:], b["clues"][1:], strict=True))
    assert a["deck"][: pair["prefix"]] == b["deck"][: pair["prefix"]]
    assert a["deck"] != b["deck"] or pair["prefix"] == len(a["deck"])  # deck order beyond P differs
    total = 0
    for action_seed in range(3):
        total += compare_player0(n, config, pair, action_seed)
    assert total >= 15


def test_pair_construction_places_cards_identically():
    """The construction's promise, checked on the engine: the first P cards land in the same pile."""
    for n, mode in [(5, "full"), (4, "early"), (4, "late"), (3, "early"), (3, "late")]:
        for seed in range(5):
            pair = build_pair(n, seed, mode)
            tables = []
            for side in "ab":
                env = ckc_env.raw_env(num_players=n, window_order="clockwise_from_drawer")
                env.reset(seed=0, options={**pair[side], "first_player": pair["first_player"]})
                while (
                    env.unwrapped.game.deck_pos < pair["prefix"] and env.agents and not any(env.terminations.values())
                ):
                    mask = env.observe(env.agent_selection)["action_mask"]
                    env.step(PASS if mask[PASS] else int(np.flatnonzero(mask)[0]))
                game = env.unwrapped.game
                tables.append((game.deck_pos, game.round_index, game.rows, game.discards, game.public_clues))
            assert tables[0] == tables[1], (n, mode, seed)


PLANTS: dict[str, Callable] = {
    "other_seat_clue": lambda g: g.clues[1] / 10,
    "bag_face": lambda g: g.bag[-1] / 10,
    "chief": lambda g: chief_of(g.clues + g.bag) / 32,
    "deck_order": lambda g: g.deck[-1] / 33,
    "supply_chip_value": lambda g: (g.pool.value[g.supply[0][-1]] + 1) / 6,
}


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_the_leak_check_catches_planted_leaks(plant, monkeypatch):
    original = Encoder.observation

    def leaky(self, view, reader=None):
        out = original(self, view, reader)
        out[-1] = PLANTS[plant](view._state)  # adler_decision's last entry: 0 unless deciding about a black chip
        return out

    monkeypatch.setattr(Encoder, "observation", leaky)
    n, mode = {"bag_face": (3, "late"), "deck_order": (4, "late")}.get(plant, (5, "full"))
    pair = build_pair(n, 0, mode)
    with pytest.raises(AssertionError, match="player_0 sees a difference in pieces"):
        compare_player0(n, {}, pair, 0)


def test_other_players_observations_do_differ():
    """Sanity: the pair is not trivially identical; the other seats see their own clues."""
    pair = build_pair(5, 0, "full")
    observations = []
    for side in "ab":
        env = ckc_env.raw_env(num_players=5)
        env.reset(seed=0, options={**pair[side], "first_player": pair["first_player"]})
        observations.append([env.observe(f"player_{s}")["observation"] for s in range(5)])
    for seat in range(1, 5):
        a = OBSERVATION.view(observations[0][seat], "own_clue")
        b = OBSERVATION.view(observations[1][seat], "own_clue")
        assert not np.array_equal(a, b)


# ------------------------------------------------------------------------------------ chip values
def _two_orders(tokens: list, rng: random.Random) -> tuple[list, list]:
    """Two orders of a colour's tokens that differ only in the first two chips taken: two plain
    chips of different values, exchanged (Stasi and Adler chips stay where they are: who holds
    those is public or changes which decisions are asked)."""
    values = sorted({t for t in tokens if isinstance(t, int)})
    low, high = values[0], values[-1]
    rest = tokens[:]
    rest.remove(low)
    rest.remove(high)
    rng.shuffle(rest)
    return [low, high, *rest], [high, low, *rest]


def _run(env, rng_seed: int, chief_bias: bool) -> list:
    """Play to the end; at each position record every agent's observation, info and reward."""
    rng = random.Random(rng_seed)
    game = env.unwrapped.game
    frames = []
    while True:
        frames.append(
            {
                "obs": {a: env.observe(a)["observation"] for a in env.possible_agents},
                "infos": {a: env.infos[a] for a in env.possible_agents},
                "rewards": dict(env.rewards),
                "holdings": [list(h) for h in game.holdings],
                "state": env.state(),
            }
        )
        if game.game_over:
            return frames
        legal = legal_actions(game)
        chief = chief_of(game.clues + game.bag) if min(game.clues) >= 0 else -1
        if chief_bias and 1 + chief in legal and rng.random() < 0.5:
            action = 1 + chief
        else:
            action = _choose(np.isin(np.arange(40), legal), rng, pass_prob=0.7)
        env.step(action)


CHIP_CASES = [
    (3, "gold", {}),
    (4, "white", {"cafe_adler": True}),
    (5, "black", {"stasi": True}),
    (4, "gold", {"stasi": True, "cafe_adler": True}),
    (3, "black", {"stasi": True, "cafe_adler": True}),
    (5, "white", {}),
]


@pytest.mark.parametrize(("n", "colour", "config"), CHIP_CASES)
def test_chip_values_are_seen_only_by_their_holders(n, colour, config):
    config = {**config, "target_points": 50}  # chip values must not change how long the game lasts
    compared_games = 0
    for seed in range(20):
        probe = ckc_env.raw_env(num_players=n, **config)
        order_a, _ = chip_orders(probe, random.Random(seed))
        order_b = dict(order_a)
        order_a[colour], order_b[colour] = _two_orders(order_a[colour], random.Random(seed))
        runs, first_two = [], []
        for order in (order_a, order_b):
            env = ckc_env.raw_env(num_players=n, summary_infos=True, **config)
            env.reset(seed=seed, options={"chip_order": order})
            first_two.append(set(env.unwrapped.game.supply[("gold", "white", "black").index(colour)][-2:]))
            runs.append(_run(env, seed, chief_bias=colour == "gold"))
        frames_a, frames_b = runs
        assert len(frames_a) == len(frames_b)
        receivers = {
            seat
            for frames, ids in zip(runs, first_two, strict=True)
            for frame in frames
            for seat, chips in enumerate(frame["holdings"])
            if ids & set(chips)
        }
        others = set(range(n)) - receivers
        if not receivers or not others:  # the chips were never taken, or went round everybody
            continue
        compared_games += 1
        own_pieces = {"own_chip_values", "own_points"}
        seen_difference = False
        for i, (fa, fb) in enumerate(zip(frames_a, frames_b, strict=True)):
            last = i == len(frames_a) - 1
            for seat in range(n):
                agent = f"player_{seat}"
                oa, ob = fa["obs"][agent], fb["obs"][agent]
                differing = set(_pieces(np.flatnonzero(oa != ob)))
                if seat in others:
                    assert not differing, (i, seat, differing)
                    assert fa["rewards"][agent] == fb["rewards"][agent]
                    assert fa["infos"][agent].get("own_chips") == fb["infos"][agent].get("own_chips")
                else:
                    assert differing <= own_pieces, (i, seat, differing)
                    seen_difference |= bool(differing)
                info_a, info_b = fa["infos"][agent], fb["infos"][agent]
                assert set(info_a) <= {"round_summary", "own_chips"}
                if "round_summary" in info_a and not last:  # public; totals only once all chips are turned over
                    assert "totals" not in info_a["round_summary"]
                    assert info_a["round_summary"] == info_b["round_summary"]
            # the full state differs only in the hidden chip values
            state_diff = {
                p.name
                for j in np.flatnonzero(fa["state"] != fb["state"])
                for p in STATE.pieces
                if STATE.slice(p.name).start <= j < STATE.slice(p.name).stop
            }
            assert state_diff <= {"chip_values", "points", "hidden_adler"}, state_diff
        assert seen_difference, "the receivers' own chip values never differed: the pair is trivial"
        if compared_games == 2:
            break
    assert compared_games == 2


def test_infos_hold_only_the_agents_own_chip_values():
    """own_chips lists exactly the agent's chips (by value) and their sum, for every agent at every round end."""
    for n, config in [(3, {"stasi": True}), (5, {"cafe_adler": True})]:
        env = ckc_env.raw_env(num_players=n, summary_infos=True, **config)
        env.reset(seed=4)
        game = env.unwrapped.game
        rng = random.Random(4)
        checked = 0
        while not game.game_over:
            rounds = len(game.summaries)
            env.step(rng.choice(legal_actions(game)))
            if len(game.summaries) > rounds:
                for seat, agent in enumerate(env.possible_agents):
                    info = env.infos[agent]
                    assert set(info) == {"round_summary", "own_chips"}
                    values = sorted(game.pool.points[c] for c in game.holdings[seat])
                    assert sorted(info["own_chips"]["values"]) == values
                    assert info["own_chips"]["points"] == sum(values)
                    checked += 1
        assert checked >= n
