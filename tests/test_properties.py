"""Property tests over random play: engine invariants checked after every decision of whole games.

Hypothesis draws a game (seed, player count, variants, window order, clue face, reward scheme,
non-accuser rule); the game is played to its end with uniformly random legal actions from an RNG
derived from the seed. The invariants read ``env.unwrapped.game`` (they are invariants of the
engine's state, not of the observation); the round-end checks rebuild the suspicion phase as it
stood at scoring from each round's public record (the cards drawn and the accusations' timing).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ckc_env
from ckc_env.engine.cards import CLUE_CATS, INVESTIGATOR, cats_in
from ckc_env.engine.game import legal_actions

N_ACTIONS = 40
COLOURS = ("gold", "white", "black")
STASI_KEPT = -2
WINDOW, FORCED = 0, 1


@st.composite
def games(draw):
    return {
        "seed": draw(st.integers(0, 2**31 - 1)),
        "num_players": draw(st.integers(3, 5)),
        "stasi": draw(st.booleans()),
        "cafe_adler": draw(st.booleans()),
        "window_order": draw(st.sampled_from(["random", "clockwise_from_drawer", "clockwise_after_drawer"])),
        "reopen_windows": draw(st.booleans()),
        "clue_face": draw(st.sampled_from(["random", "choose"])),
        "reward": draw(st.sampled_from(["points", "win"])),
        "non_accuser_white": draw(st.sampled_from(["chief_in_deck", "chief_uncaught"])),
    }


def _chief(clues_and_bag: list[int]) -> int:
    """The cat with all five clue values, computed from the clue ids (bit f set for value A)."""
    cat = 0
    for clue in clues_and_bag:
        if clue % 2 == 0:
            cat |= 1 << (clue // 2)
    return cat


def _value(game, chip: int) -> int:
    """A chip's worth to its holder: printed value, the kept Stasi chip -2 (RULES.md 7)."""
    return STASI_KEPT if game.pool.kind[chip] == 1 else game.pool.value[chip]


def check_cards(game) -> None:
    """Every card of the round's deck is in exactly one place; rows and discards obey the clues."""
    n = game.n
    drawn = game.deck[: game.deck_pos]
    assert [card for _, card in game.card_order] == drawn
    places = Counter(c for c in game.deck[game.deck_pos :])
    for seat in range(n):
        places.update(cats_in(game.rows[seat]))
        places.update(cats_in(game.discards[seat]))
    places[INVESTIGATOR] += sum(1 for card in drawn if card == INVESTIGATOR)
    assert places == Counter(game.deck), "a card is missing or in two places"
    assert sorted(c for c in game.deck if c != INVESTIGATOR) == list(range(32))
    assert game.deck.count(INVESTIGATOR) == 5 - n
    assert all(i < 16 + 5 - n for i, c in enumerate(game.deck) if c == INVESTIGATOR)
    assert len(game.public_clues) == drawn.count(INVESTIGATOR)
    assert game.public_clues == game.bag[: len(game.public_clues)]
    row_union = 0
    for seat in range(n):
        clue = game.clues[seat]
        if clue < 0:  # face still to be chosen: nothing drawn yet
            assert game.rows[seat] == game.discards[seat] == 0
            continue
        assert game.rows[seat] & ~CLUE_CATS[clue] == 0, "a row card does not show its owner's clue"
        assert game.discards[seat] & CLUE_CATS[clue] == 0, "a discard shows its owner's clue"
        for drawer, card in game.card_order:  # each card went to its drawer's row or discard pile
            if card != INVESTIGATOR and drawer == seat:
                assert ((game.rows[seat] | game.discards[seat]) >> card) & 1
        row_union |= game.rows[seat]
    assert row_union == game.row_cats
    if min(game.clues) >= 0:
        chief = _chief(game.clues + game.bag)
        assert not any((d >> chief) & 1 for d in game.discards), "the chief was discarded"


def check_chips(game) -> None:
    ids = sorted([c for s in game.supply for c in s] + [c for h in game.holdings for c in h])
    assert ids == list(range(len(game.pool))), "a chip is missing or in two places"
    for colour, supply in enumerate(game.supply):
        assert all(game.pool.colour[c] == colour for c in supply)


def check_accusations(game) -> None:
    n = game.n
    seats = [s for s, _ in game.accusations]
    cats = [c for _, c in game.accusations]
    assert len(set(seats)) == len(seats), "a player accused twice in a round"
    assert len(set(cats)) == len(cats), "a cat was accused twice in a round"
    assert len(game.accusations) <= n - 1
    for seat, cat in game.accusations:
        assert (game.row_cats >> cat) & 1, "an accused cat is not in a row"
        assert game.accused_by[seat] == cat
    assert sum(1 for c in game.accused_by if c >= 0) == len(game.accusations)


def check_decision(env, game) -> None:
    """The acting agent's mask is exactly the legal actions, with >= 2 of them; others' masks are 0."""
    agent = env.agent_selection
    seat = env.possible_agents.index(agent)
    assert game.current_seat == seat
    legal = legal_actions(game)
    assert len(legal) >= 2, f"a decision with a single option was asked: {legal}"
    for other in env.agents:
        obs = env.observe(other)
        assert env.observation_space(other).contains(obs)
        if other == agent:
            assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        else:
            assert not obs["action_mask"].any()
    kind = game.pending_kind
    if kind in (WINDOW, FORCED):  # suspicion phase: the round is not over yet
        assert len(game.accusations) < game.n - 1
        assert game.accused_by[seat] < 0, "a player who accused is asked to accuse again"
        targets = game.row_cats & ~game.accused_cats
        assert sorted(a for a in legal if a) == [1 + c for c in cats_in(targets)]
        assert (0 in legal) == (kind == WINDOW)
        if kind == FORCED:
            assert game.deck_pos == len(game.deck), "forced accusation before the deck ran out"


def play_checked(cfg: dict) -> dict:
    """Play one game with random legal actions, checking the invariants after every step."""
    seed = cfg["seed"]
    env = ckc_env.raw_env(**{k: v for k, v in cfg.items() if k != "seed"}, summary_infos=True)
    env.reset(seed=seed)
    game = env.unwrapped.game
    rng = random.Random(seed)

    rewards = dict.fromkeys(env.possible_agents, 0.0)
    infos_seen: list[dict] = []
    steps = 0
    while not game.game_over:
        check_cards(game)
        check_chips(game)
        check_accusations(game)
        check_decision(env, game)
        env.step(rng.choice(legal_actions(game)))
        steps += 1
        for agent in env.possible_agents:
            rewards[agent] += env.rewards[agent]
        if len(game.summaries) > len(infos_seen):  # a round ended in this step
            assert len(game.summaries) == len(infos_seen) + 1
            infos_seen.append({a: env.infos[a] for a in env.possible_agents})
            check_round_infos(env, game)
    scored = [suspicion_at_scoring(summary, game.n) for summary in game.summaries]
    check_chips(game)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    return {"env": env, "game": game, "scored": scored, "rewards": rewards, "infos": infos_seen, "steps": steps}


def suspicion_at_scoring(summary: dict, n: int) -> dict:
    """The suspicion phase as it stood when the round was scored, rebuilt from the round's public
    record: the cards drawn (and where each went) and the accusations with their timing."""
    rows, discards = 0, [0] * n
    for seat, card, to in summary["cards"]:
        if to == "row":
            rows |= 1 << card
        elif to == "discard":
            discards[seat] |= 1 << card
    accused = 0
    for record in summary["accusations"]:
        accused |= 1 << record["cat"]
    return {
        "deck_left": 32 + 5 - n - len(summary["cards"]),
        "drawn": len(summary["cards"]),
        "accusations": [(a["seat"], a["cat"]) for a in summary["accusations"]],
        "targets": rows & ~accused,
        "discards": discards,
        "accusation_draws": [a["cards_drawn"] for a in summary["accusations"]],
    }


def check_round_infos(env, game) -> None:
    """Every agent gets the same public summary and only its own chip values."""
    summaries = [env.infos[a].get("round_summary") for a in env.possible_agents]
    assert all(s == summaries[0] for s in summaries)
    assert summaries[0] == game.summaries[-1]
    for seat, agent in enumerate(env.possible_agents):
        own = env.infos[agent]["own_chips"]
        assert sorted(own["values"]) == sorted(_value(game, c) for c in game.holdings[seat])
        assert own["points"] == sum(own["values"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_invariants_hold_at_every_step(cfg):
    result = play_checked(cfg)
    game, scored = result["game"], result["scored"]
    n = game.n
    summaries = game.summaries
    assert len(scored) == len(summaries) >= 1
    assert result["steps"] > 0

    # --- each round ends exactly when RULES.md 4 says
    for snap, summary in zip(scored, summaries, strict=True):
        accusations = snap["accusations"]
        assert len(summary["accusations"]) == len(accusations)
        assert [(a["seat"], a["cat"]) for a in summary["accusations"]] == accusations
        if len(accusations) == n - 1:
            # ... at once when all but one have accused: no card drawn after that accusation
            assert snap["accusation_draws"][-1] == snap["drawn"]
        else:
            # ... otherwise only when the deck is empty and nobody left can accuse
            assert snap["deck_left"] == 0
            assert snap["targets"] == 0
        assert len(summary["non_accusers"]) == n - len(accusations)
        if not summary["chief_drawn"]:
            assert len(accusations) == n - 1  # a round with the chief still in the deck ended by accusations
        chief = summary["chief"]
        assert chief == _chief(summary["clues"] + summary["public_clues"] + summary["bag_clues"])
        assert not any((d >> chief) & 1 for d in snap["discards"])
        colours = {a["seat"]: a["colour"] for a in summary["accusations"]}
        for seat, cat in accusations:
            matched = 5 - bin(cat ^ chief).count("1")
            assert colours[seat] == ("gold" if matched == 5 else "white" if matched == 4 else "black")

    # --- rewards and the final summary (RULES.md 6)
    final = summaries[-1]
    assert final["game_over"] and all(not s["game_over"] for s in summaries[:-1])
    totals = [sum(_value(game, c) for c in game.holdings[s]) for s in range(n)]
    gold = [sum(1 for c in game.holdings[s] if game.pool.colour[c] == 0) for s in range(n)]
    assert final["totals"] == totals and final["gold"] == gold
    best = max(zip(totals, gold, strict=True))
    assert final["winners"] == [s for s in range(n) if (totals[s], gold[s]) == best]
    rewards = [result["rewards"][a] for a in result["env"].possible_agents]
    if cfg["reward"] == "points":
        assert rewards == totals, "rewards summed over the game differ from the final totals"
    else:
        winners = set(final["winners"])
        for s in range(n):
            expected = 1 / len(winners) if s in winners else -1 / (n - len(winners))
            assert abs(rewards[s] - expected) < 1e-9
    check_game_end(game, summaries, result["infos"])


def check_game_end(game, summaries, infos_seen) -> None:
    """The game ends after the first round in which RULES.md 6 holds, and only then."""
    cfg = game.config
    assert len(infos_seen) == len(summaries)
    for summary, infos in zip(summaries, infos_seen, strict=True):
        points = [infos[f"player_{s}"]["own_chips"]["points"] for s in range(game.n)]
        supply = list(summary["supply"])
        taker = summary["stasi_taken_by"]
        if taker is not None and not summary["game_over"]:
            # RULES.md 6, 7: at the end check the taker still held the Stasi chip (-2), and the
            # black supply was as the hand-out left it; the chip went back afterwards
            points[taker] += STASI_KEPT
            supply[2] -= 1
        ends = {
            "points": max(points) >= cfg.target_points,
            "colour_used_up": min(supply) == 0,
            "last_round": summary["round"] >= cfg.max_rounds,
        }
        if summary["game_over"]:
            assert sorted(summary["reasons"]) == sorted(k for k, v in ends.items() if v)
        else:
            assert not any(ends.values()), (summary["round"], ends)
    assert [s["round"] for s in summaries] == list(range(1, len(summaries) + 1))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_rewards_match_chip_values_received(cfg):
    """points scheme: each step's reward is the change of the agent's chip total (the sum of its
    chips' values), so the rewards follow the chips, not just add up at the end."""
    cfg = {**cfg, "reward": "points"}
    env = ckc_env.raw_env(**{k: v for k, v in cfg.items() if k != "seed"})
    env.reset(seed=cfg["seed"])
    game = env.unwrapped.game
    rng = random.Random(cfg["seed"])
    before = [0] * game.n
    while not game.game_over:
        env.step(rng.choice(legal_actions(game)))
        now = [sum(_value(game, c) for c in game.holdings[s]) for s in range(game.n)]
        for s, agent in enumerate(env.possible_agents):
            assert env.rewards[agent] == now[s] - before[s]
        before = now
