"""The JAX beliefs, chip values and scripted players (``ckc_env.jax.beliefs``, ``chip_values``,
``bayes_rule``, ``players``) against their NumPy twins (``ckc_env.batch``), on the same positions.

Positions come from NumPy batches played by a mix of batched baselines, one move in ten random and,
often, a pass where passing is legal (in half of the games nearly always, so that rounds reach the
forced accusations), with the automatic reset, under several rule configurations (3, 4, 5 and mixed player counts, Stasi, Cafe
Adler, ``clue_face="choose"``, ``reopen_windows``, ``non_accuser_white="chief_uncaught"``, every
window order). Each position is converted with ``jax.state.from_batch`` and read by one jitted,
vmapped function per configuration:

- **Beliefs and chip values**, every seat of every game: the twin's float64 numbers rounded to
  float32, bit for bit (world counts are exact, each probability one correctly rounded division),
  so within 3e-8 absolute of the twin; the assignments counted equal.
- **Players**, every pending decision: random, passive, eager and cheater choose the twin's action
  and advance the same streams (same keys, random counters); bayes_v1 (three parameter sets) too,
  but for near-ties in float32: each differing decision is shown to be one (the twin's float64
  margin between the best target's value and the bar or the non-accuser's value, or between two
  targets' values, or between P(chief) and ``sure``, is below 1e-6) and they are counted (at most
  ``NEAR_TIES_AT_MOST`` of the bayes_v1 decisions; seen: 0, 0 and 6 in some 40,000 per
  configuration, each a tie of rationals that float64 breaks by 2e-16); with ``exact=1`` exactly.
- The lineup (``players.decide`` with ``players.start``) plays as ``batch.agents.decide`` with
  agents started on ``seat_keys``, game after game; the legal mask is the batch's.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from ckc_env import batch  # noqa: E402
from ckc_env.batch.agents import decide as batch_decide  # noqa: E402
from ckc_env.batch.agents import make_batch_agent, target_matrix  # noqa: E402
from ckc_env.batch.agents import seat_keys as batch_seat_keys  # noqa: E402
from ckc_env.batch.bayes_rule import non_accuser_value as batch_non_accuser_value  # noqa: E402
from ckc_env.batch.beliefs import seat_beliefs as batch_seat_beliefs  # noqa: E402
from ckc_env.batch.chip_values import expected_chip_values as batch_chip_values  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.engine.actions import CAFE_ADLER, CLUE_FACE, FORCED_ACCUSATION, PASS, SWAP, WINDOW  # noqa: E402
from ckc_env.jax import players, registry  # noqa: E402
from ckc_env.jax.bayes_rule import non_accuser_value  # noqa: E402
from ckc_env.jax.beliefs import seat_beliefs  # noqa: E402
from ckc_env.jax.chip_values import expected_chip_values  # noqa: E402
from ckc_env.jax.state import from_batch, split_keys  # noqa: E402
from ckc_env.reading.bayes_rule import BayesParams  # noqa: E402

CONFIGS = {
    "4p_stasi_adler_choose": (GameConfig(num_players=4, stasi=True, cafe_adler=True, clue_face="choose"), None),
    "3p_stasi_choose_uncaught_from_drawer": (
        GameConfig(
            num_players=3,
            stasi=True,
            clue_face="choose",
            non_accuser_white="chief_uncaught",
            window_order="clockwise_from_drawer",
        ),
        None,
    ),
    "mixed_adler_reopen_after_drawer": (
        GameConfig(cafe_adler=True, reopen_windows=True, window_order="clockwise_after_drawer", max_rounds=2),
        (3, 4, 5),
    ),
}
PLAYERS = (
    ("random", {}),
    ("passive", {}),
    ("eager", {}),
    ("bayes_v1", {}),
    ("bayes_v1", {"sure": 0.6, "bar_early": 2.0, "bar_late": 0.8, "margin_last": 0.25}),
    ("bayes_v1", {"sure": 1, "bar_early": 0, "bar_late": 3}),
    ("bayes_v1", {"exact": True}),
    ("cheater", {}),
)
DRIVERS = ("bayes_v1", "passive", "bayes_v1", "eager", "cheater")
GAMES, STEPS = 128, 120
NEAR_TIE = 1e-6
"""The widest float64 margin a differing bayes_v1 decision may have (float32's epsilon is 1.2e-7)."""
NEAR_TIES_AT_MOST = 1e-3
"""Differing bayes_v1 decisions allowed, per bayes_v1 window or forced decision (each a near-tie)."""
BELIEF_TOLERANCE = 3e-8
"""Half a float32 ulp at 1: the JAX probabilities are the twin's rounded to float32."""


def positions(config: GameConfig, counts: tuple[int, ...] | None, seed: int):
    """Yield NumPy batches played by batched baselines (one move in ten random; often a pass
    wherever passing is legal: in half of the games nearly always, so that rounds reach the forced
    accusations), with the reset."""
    num_players = None if counts is None else [counts[g % len(counts)] for g in range(GAMES)]
    state = batch.init(config, seeds=range(seed, seed + GAMES), num_players=num_players)
    lineup = [make_batch_agent(DRIVERS[s], seed=seed + s) for s in range(5)]
    explore = make_batch_agent("random", seed=seed)
    rng = np.random.default_rng(seed)
    holding = np.where(np.arange(GAMES) % 2 == 0, 0.97, 0.5)
    for _ in range(STEPS):
        yield state
        actions = batch_decide(state, lineup)
        random = np.flatnonzero((rng.random(GAMES) < 0.1) & (state.pending_kind >= 0))
        actions[random] = explore.act(state, random)
        hold = (rng.random(GAMES) < holding) & (state.pending_kind == WINDOW)
        actions[hold] = PASS
        batch.step(state, actions, autoreset=True)


def bayes_margin(state, g: int, params: BayesParams) -> float:
    """The twin's smallest float64 margin in bayes_v1's decision at game g: between the best
    target's value and the bar (or the non-accuser's value), between it and another target's
    value, between the best P(chief) and ``sure``."""
    games, seats = np.array([g]), state.pending_seat[[g]].astype(np.int64)
    b = batch_seat_beliefs(state, games, seats, clues=False)
    values = batch_chip_values(state, games, seats)
    pc, pa, v = b.chief[0], b.assistant[0], values[0]
    ev = pc * v[0] + pa * v[1] + (1.0 - pc - pa) * v[2]
    cats = np.flatnonzero(target_matrix(state, games)[0])
    best = cats[np.argmax(ev[cats])]
    n = int(state.n[g])
    others = int(((state.accused_by[g] == -1) & (np.arange(5) < n)).sum()) - 1
    drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
    if others <= 1:
        bar = batch_non_accuser_value(values, b.chief, drawn, state.rules.config.non_accuser_white)[0]
        bar += params.margin_last
    else:
        bar = params.bar_late + (params.bar_early - params.bar_late) * (others - 1) / max(1, n - 2)
    margins = [abs(ev[best] - bar), abs(pc[best] - params.sure)]
    margins += [abs(ev[c] - ev[best]) for c in cats if (pc[c], pa[c]) != (pc[best], pa[best])]
    return min(margins)


def _reader(rules, made):
    """Everything compared at one position, for a batch: beliefs and chip values of every seat, the
    non-accuser's value, each player's action and streams."""

    def one(state, streams):
        seats = jnp.arange(5)
        beliefs = jax.vmap(lambda s: seat_beliefs(rules, state, s))(seats)
        values = jax.vmap(lambda s: expected_chip_values(rules, state, s))(seats)
        drawn = jax.lax.reduce(state.rows | state.discards, jnp.uint32(0), jax.lax.bitwise_or, (0,))
        white = jax.vmap(lambda b, v: non_accuser_value(v, b, drawn, rules.config.non_accuser_white), in_axes=(0, 0))(
            beliefs.chief, values
        )
        acts = tuple(player.act(rules, state, streams) for player in made)
        return beliefs, values, white, acts

    return jax.jit(jax.vmap(one))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_beliefs_chip_values_and_players_decide_as_the_numpy_twins(name):
    config, counts = CONFIGS[name]
    made = [registry.make_player(player, **params) for player, params in PLAYERS]
    twins = [make_batch_agent(player, seed=0, **params) for player, params in PLAYERS]
    rng = np.random.default_rng(7)
    reader = None
    seen, near_ties = Counter(), []
    for state in positions(config, counts, seed=11):
        rules, jax_state = from_batch(state)
        reader = reader or _reader(rules, made)
        keys = batch_seat_keys(state.key)
        counters = rng.integers(0, 1000, size=(GAMES, 5)).astype(np.uint64)
        for twin_agent in twins:  # every player at the same point of the same streams
            twin_agent.start(np.arange(GAMES), keys)
            twin_agent.counters[:] = counters
        streams = players.streams_of(twins[0], np.arange(GAMES))
        beliefs, values, white, acts = jax.device_get(reader(jax_state, streams))

        # beliefs and chip values of every seated seat
        seated = np.arange(5)[None, :] < state.n[:, None]
        games, seats = np.nonzero(seated)
        twin = batch_seat_beliefs(state, games, seats)
        for field in ("chief", "assistant", "clue"):
            ours = getattr(beliefs, field)[games, seats]
            assert np.array_equal(ours, getattr(twin, field).astype(np.float32)), field
            assert np.abs(ours - getattr(twin, field)).max() <= BELIEF_TOLERANCE, field
        assert np.array_equal(beliefs.assignments[games, seats], twin.assignments)
        twin_values = batch_chip_values(state, games, seats)
        assert np.array_equal(values[games, seats], twin_values.astype(np.float32))
        drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
        twin_white = batch_non_accuser_value(twin_values, twin.chief, drawn, config.non_accuser_white)
        assert np.abs(white[games, seats] - twin_white).max() < 1e-6

        # every player's decision and streams
        live = np.flatnonzero(state.pending_kind >= 0)
        kinds = state.pending_kind[live]
        for (player, params), twin_agent, (action, moved) in zip(PLAYERS, twins, acts, strict=True):
            expected = twin_agent.act(state, live)
            assert np.array_equal(moved.counters, twin_agent.counters.astype(np.uint32)), player
            assert not action[state.pending_kind < 0].any()
            differ = live[action[live] != expected]
            if player != "bayes_v1" or params.get("exact"):  # exact: the same integers, ties included
                assert not len(differ), (player, differ, action[differ], expected[np.isin(live, differ)])
                continue
            seen["bayes_v1 decisions"] += int(((kinds == WINDOW) | (kinds == FORCED_ACCUSATION)).sum())
            for g in differ:
                assert state.pending_kind[g] in (WINDOW, FORCED_ACCUSATION)
                margin = bayes_margin(state, int(g), twin_agent.params)
                assert margin < NEAR_TIE, (params, g, action[g], margin)
                near_ties.append(margin)
            if not params:
                window = kinds == WINDOW
                waiting = (state.accused_by[live] == -1) & (np.arange(5) < state.n[live, None])
                last = waiting.sum(1) <= 2
                took = expected != PASS
                for at_last in (False, True):
                    seen["accuse", at_last] += int((window & took & (last == at_last)).sum())
                    seen["pass", at_last] += int((window & ~took & (last == at_last)).sum())
                seen["forced"] += int((kinds == FORCED_ACCUSATION).sum())
        seen["clue face"] += int((kinds == CLUE_FACE).sum())
        seen["adler"] += int((kinds == CAFE_ADLER).sum())
    print(f"{name}: {len(near_ties)} bayes_v1 near-ties, margins {sorted(near_ties)}; {dict(seen)}")
    assert len(near_ties) <= NEAR_TIES_AT_MOST * seen["bayes_v1 decisions"]
    for kind in ("accuse", "pass"):
        for last in (False, True):
            assert seen[kind, last], f"bayes_v1 never chose to {kind} (last two players: {last}): {dict(seen)}"
    assert seen["forced"]
    assert seen["clue face"] or config.clue_face != "choose"
    assert seen["adler"] or not config.cafe_adler


def _where_games(games: np.ndarray, new, old):
    """The pytree ``new`` in the games marked by ``games`` (B,) bool, ``old`` elsewhere."""
    games = jnp.asarray(games)
    return jax.tree_util.tree_map(lambda a, b: jnp.where(games.reshape((-1,) + (1,) * (a.ndim - 1)), a, b), new, old)


@pytest.mark.slow
def test_lineup_plays_as_batch_decide():
    """``players.decide`` with carries from ``players.start`` chooses ``batch.agents.decide``'s actions
    for a lineup started on ``seat_keys``, game after game (the carries restarted at each reset);
    ``players.legal_mask`` and ``players.seat_keys`` are the batch's."""
    config = GameConfig(num_players=4, clue_face="choose", cafe_adler=True, stasi=True, max_rounds=2)
    names = ("random", "eager", "cheater", "passive")
    lineup = tuple(registry.make_player(n) for n in names)
    twins = [make_batch_agent(n, seed=0) for n in names]
    size = 64
    state = batch.init(config, seeds=range(size))
    np.testing.assert_array_equal(
        np.asarray(jax.vmap(players.seat_keys)(jnp.asarray(split_keys(state.key)))),
        split_keys(batch_seat_keys(state.key)),
    )
    for agent in twins:
        agent.start(np.arange(size), batch_seat_keys(state.key))
    rules, first = from_batch(state)
    start = jax.jit(jax.vmap(lambda key: players.start(lineup, key)))
    act = jax.jit(jax.vmap(lambda s, c: (players.decide(rules, s, lineup, c), players.legal_mask(rules, s))))
    carries = start(first.key)
    assert len(carries) == len(lineup)
    finished, swaps = 0, 0
    for _ in range(120):
        _, jax_state = from_batch(state)
        (actions, carries), mask = act(jax_state, carries)
        np.testing.assert_array_equal(np.asarray(mask), batch.legal_action_mask(state) == 1)
        expected = batch_decide(state, twins)
        np.testing.assert_array_equal(np.asarray(actions), expected)
        swaps += int((expected >= SWAP).sum())
        batch.step(state, expected, autoreset=True)
        ended = np.flatnonzero(state.terminated)
        if len(ended):  # new games: new streams, on both sides
            finished += len(ended)
            for agent in twins:
                agent.start(ended, batch_seat_keys(state.key[ended]))
            fresh = start(jnp.asarray(split_keys(state.key)))
            carries = _where_games(state.terminated, fresh, carries)
    assert finished and swaps
    for agent, carry in zip(twins, carries, strict=True):
        np.testing.assert_array_equal(np.asarray(carry.counters), agent.counters.astype(np.uint32))


def test_players_are_registered_and_checked():
    # bayes_v2 registers itself when jax.players_posterior is imported (it may be, by other tests)
    assert set(registry.REGISTRY) - {"bayes_v2"} == {"random", "passive", "eager", "bayes_v1", "cheater"}
    assert registry.make_player("bayes_v1") == registry.make_player("bayes_v1")  # one compiled path per lineup
    assert registry.make_player("bayes_v1", sure=0.5).params == BayesParams(sure=0.5)
    assert registry.make_player("cheater").reads_hidden_state
    hash(registry.make_player("eager"))  # static arguments of jax.jit
    with pytest.raises(ValueError, match="no JAX player 'genius'"):
        registry.make_player("genius")
    with pytest.raises(ValueError, match=r"unknown bayes_v1 parameter\(s\) \['boldness'\]"):
        registry.make_player("bayes_v1", boldness=1.0)
    with pytest.raises(ValueError, match="eager takes no parameters"):
        registry.make_player("eager", sure=0.5)


def test_world_counts_by_masks_are_the_bit_tests():
    """``beliefs.chief_counts`` (two table lookups per slot, the masks ANDed, bits counted) gives
    the integers of the definition: world (p, c) allowed when every slot's set holds its clue.
    Every set in every slot, beside random sets in the others, narrow and wide."""
    from ckc_env.jax.beliefs import PERMS, chief_counts

    rng = np.random.default_rng(7)
    sets = np.arange(1024)
    cand = np.where(rng.random((5 * 1024, 5)) < 0.5, 1023, rng.integers(0, 1024, (5 * 1024, 5)))
    cand[np.arange(5 * 1024), np.repeat(np.arange(5), 1024)] = np.tile(sets, 5)  # every set in every slot
    chief = np.arange(32)
    world_clue = 2 * PERMS[None, :, :] + 1 - ((chief[:, None, None] >> PERMS[None, :, :]) & 1)  # (32, 120, 5)
    allowed = (cand[:, None, None, :] >> world_clue[None]) & 1
    expected = allowed.prod(-1).sum(-1)
    got = np.asarray(jax.jit(chief_counts)(jnp.asarray(cand, jnp.int32)))
    np.testing.assert_array_equal(got, expected)
    assert got.sum(-1).max() == 3840 and (got.sum(-1) == 0).any()  # the whole world and none among them
