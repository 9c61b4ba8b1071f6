"""bayes_v1's rule in integers (``exact=1``: ``reading.bayes_rule.exact_decision``, the NumPy twin
``batch.bayes_rule.accuse_or_pass_exact``, the JAX one ``jax.bayes_rule.accuse_or_pass_exact``).

- Every bayes_v1 decision of batches of real positions (3, 4 and 5 players, both
  ``non_accuser_white``, three parameter sets) is the rule's mathematics: an independent reading of
  it in Python's ``Fraction`` on the same world counts and chip values decides alike, ties
  included, while the float64 rule (the default) parts from it at some ties (counted: the ties are
  met).
- The scalar player decides as the NumPy twin on the same positions (``exact_decision``).
- JAX: the 64-bit comparison of products against Python's integers, the value fractions against
  NumPy's; slow: bayes_v2's model of the others predicting NumPy's actions under every hypothesis
  (some 30,000, a fifth of them within 1e-5 of a boundary in float64), and tournaments of
  ``bayes_v1:exact=1`` whose every game is the batched engine's on a seed where the float rule's
  games differ.
- Parameters: ``exact`` takes true or false (1 or 0); with it, the rule's numbers must be decimals
  of at most 6 places within +-100 (the JAX integers' range).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from ckc_env import batch, engine
from ckc_env.agents import make_agent
from ckc_env.batch.agents import BatchBayesAgent, make_batch_agent, seat_keys, target_matrix
from ckc_env.batch.agents import decide as batch_decide
from ckc_env.batch.beliefs import count_worlds, neighbour_sums, slot_candidates
from ckc_env.batch.chip_values import expected_chip_values
from ckc_env.batch.replay import Lockstep
from ckc_env.config import GameConfig
from ckc_env.engine.actions import ACCUSE, FORCED_ACCUSATION, PASS, WINDOW
from ckc_env.engine.cards import N_CATS
from ckc_env.engine.view import PlayerView
from ckc_env.reading.bayes_rule import BayesParams

PARAMS = ({}, {"sure": 0.6, "bar_early": 2.0, "bar_late": 0.8, "margin_last": 0.25}, {"sure": 0.55, "bar_late": 1.5})
GAMES = 150


def fraction_rule(p: BayesParams, chief, assistant, total, cats, values, others_left, n, undrawn, uncaught, forced):
    """The rule of docs (``reading.bayes_rule``) in ``Fraction``: ``ACCUSE + cat`` or ``PASS``."""
    gold, white, black = (Fraction(v).limit_denominator(24) for v in values)
    best, best_ev, best_chief = -1, None, None
    for c in cats:
        pc, pa = Fraction(int(chief[c]), total), Fraction(int(assistant[c]), total)
        ev = pc * gold + pa * white + (1 - pc - pa) * black
        if best_ev is None or ev > best_ev or (ev == best_ev and pc > best_chief):
            best, best_ev, best_chief = c, ev, pc
    decimal = {
        name: Fraction(repr(float(getattr(p, name)))) for name in ("sure", "bar_early", "bar_late", "margin_last")
    }
    if forced or best_chief >= decimal["sure"]:
        return ACCUSE + best
    if others_left <= 1:
        p_undrawn = Fraction(int(undrawn), total)
        non_accuser = white if uncaught else p_undrawn * white + (1 - p_undrawn) * black
        return ACCUSE + best if best_ev >= non_accuser + decimal["margin_last"] else PASS
    share = Fraction(others_left - 1, max(1, n - 2))
    bar = decimal["bar_late"] + (decimal["bar_early"] - decimal["bar_late"]) * share
    return ACCUSE + best if best_ev >= bar else PASS


def bayes_positions(config: GameConfig, seed: int):
    """Yield (state, games) at every bayes_v1 decision of a batch played by bayes_v1 (one move in
    ten random) to the end of its games."""
    state = batch.init(config, seeds=range(seed, seed + GAMES))
    lineup = [make_batch_agent("bayes_v1", seed=seed + s) for s in range(config.num_players)]
    for agent in lineup:
        agent.start(np.arange(GAMES), seat_keys(state.key))
    explore = make_batch_agent("random", seed=seed)
    explore.start(np.arange(GAMES), seat_keys(state.key))
    rng = np.random.default_rng(seed)
    while (state.pending_kind >= 0).any():
        games = np.flatnonzero((state.pending_kind == WINDOW) | (state.pending_kind == FORCED_ACCUSATION))
        if len(games):
            yield state, games
        actions = batch_decide(state, lineup)
        random = np.flatnonzero((rng.random(GAMES) < 0.1) & (state.pending_kind >= 0))
        actions[random] = explore.act(state, random)
        batch.step(state, actions, autoreset=False)


@pytest.mark.parametrize(
    ("config", "ties"),
    [
        (GameConfig(num_players=3), 2),
        (GameConfig(num_players=4, stasi=True, non_accuser_white="chief_uncaught"), 0),
        (GameConfig(num_players=5, cafe_adler=True), 12),
    ],
    ids=["3p", "4p_stasi_uncaught", "5p_adler"],
)
def test_exact_decisions_are_the_rule_s_mathematics_where_float64_parts_at_ties(config, ties):
    """``ties``: the decisions where the float64 rule parts from the exact one on these games
    (seen: 2, 0 and 12; a count that changes means either rule decides otherwise than it did)."""
    agents = [make_batch_agent("bayes_v1", seed=0, exact=True, **params) for params in PARAMS]
    floats = [make_batch_agent("bayes_v1", seed=0, **params) for params in PARAMS]
    decisions = float_ties = 0
    for state, games in bayes_positions(config, seed=17):
        seats = state.pending_seat[games].astype(np.int64)
        forced = state.pending_kind[games] == FORCED_ACCUSATION
        chief, _ = count_worlds(slot_candidates(state, games, seats), clues=False)
        chief = chief.astype(np.int64)
        assistant = neighbour_sums(chief)
        values = expected_chip_values(state, games, seats)
        allowed = target_matrix(state, games)
        drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
        for agent, float_agent in zip(agents, floats, strict=True):
            exact = BatchBayesAgent.accuse(agent, state, games, forced)
            rounded = BatchBayesAgent.accuse(float_agent, state, games, forced)
            for i, g in enumerate(games.tolist()):
                n = int(state.n[g])
                others_left = int(((state.accused_by[g] == -1) & (np.arange(5) < n)).sum()) - 1
                undrawn = sum(int(chief[i, c]) for c in range(N_CATS) if not (int(drawn[i]) >> c) & 1)
                expected = fraction_rule(
                    agent.params, chief[i], assistant[i], int(chief[i].sum()), np.flatnonzero(allowed[i]), values[i],
                    others_left, n, undrawn, config.non_accuser_white == "chief_uncaught", bool(forced[i]),
                )  # fmt: skip
                assert exact[i] == expected, (agent.params, g, exact[i], expected)
            decisions += len(games)
            float_ties += int((exact != rounded).sum())
    print(f"{decisions} decisions, {float_ties} where float64 parts from the exact rule")
    assert decisions > 2000
    assert float_ties == ties  # the ties are met, and the float64 rule breaks some of them


def test_the_scalar_player_decides_as_the_numpy_twin():
    """The same games on both engines (``batch.replay.Lockstep``): the scalar ``exact_decision`` at
    every bayes_v1 decision is the twin's."""
    config = GameConfig(num_players=4, stasi=True)
    twins = [make_batch_agent("bayes_v1", seed=0, exact=True, **params) for params in PARAMS]
    lock = Lockstep(config, seeds=range(23, 23 + 24), autoreset=True)
    lineup = [make_batch_agent("bayes_v1", seed=23 + s) for s in range(4)]
    checked = 0
    for _ in range(200):
        state = lock.state
        games = np.flatnonzero((state.pending_kind == WINDOW) | (state.pending_kind == FORCED_ACCUSATION))
        for twin, params in zip(twins, PARAMS, strict=True):
            for g, action in zip(games.tolist(), twin.act(state, games).tolist(), strict=True):
                game = lock.games[g]
                scalar = make_agent("bayes_v1", seed=0, exact=True, **params)
                scalar.reset(game.pending_seat, game.config)
                view = PlayerView(game, game.pending_seat)
                assert scalar.act(view, {"action_mask": engine.legal_mask(game)}) == action, (params, g)
                checked += 1
        lock.step(batch_decide(state, lineup))
    assert checked > 300, checked


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"exact": 2}, "exact=2 must be true or false"),
        ({"exact": True, "sure": 0.1234567}, "sure=0.1234567 must be a decimal of at most 6 places"),
        ({"exact": True, "bar_early": 250}, "bar_early=250 must be a decimal"),
    ],
)
def test_exact_parameters_are_checked_by_name(params, message):
    with pytest.raises(ValueError, match=message):
        BayesParams(**params)
    assert (
        BayesParams(exact=1).exact is True and BayesParams(sure=0.1234567).sure == 0.1234567
    )  # the float rule takes any


# ------------------------------------------------------------------------------ JAX
def test_jax_compares_products_exactly_and_recovers_the_value_fractions():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from ckc_env.batch.bayes_rule import value_fractions as numpy_fractions
    from ckc_env.jax.bayes_rule import compare_products, value_fractions

    rng = np.random.default_rng(0)
    compare = jax.jit(compare_products)
    for limit in (10, 5000, 2**20, 2**31 - 1):
        a, b, c, d = (rng.integers(-limit, limit, 4000, dtype=np.int64) for _ in range(4))
        c[:1000], d[:1000] = b[:1000], a[:1000]  # ties
        got = np.asarray(compare(*(x.astype(np.int32) for x in (a, b, c, d))))
        want = np.sign([int(w) * int(x) - int(y) * int(z) for w, x, y, z in zip(a, b, c, d, strict=True)])
        assert np.array_equal(got, want), limit
    ratios = np.array([s / n for s in range(-22, 101) for n in range(1, 22)])
    numerator, denominator = value_fractions(jnp.asarray(ratios, jnp.float32))
    expected = numpy_fractions(ratios)
    assert np.array_equal(np.asarray(numerator), expected[0]) and np.array_equal(np.asarray(denominator), expected[1])
    assert np.array_equal(expected[0] / expected[1], ratios)


@pytest.mark.slow
def test_jax_tournaments_of_exact_bayes_v1_play_the_batched_games():
    """On seed 9, where the float rule's games of a 5-player lineup part between the engines
    (``test_jax_tournament.py``), every game of ``bayes_v1:exact=1`` is the batched engine's, with
    the scripted players and alone; bayes_v2 with ``exact=1`` (its model of the others exact, its
    own weighted posterior in float32) plays too."""
    pytest.importorskip("jax")
    from ckc_env.evaluation.tournament import run_tournament

    exact = {"name": "bayes_v1", "exact": True}
    for lineup, games in (([exact, "random", "passive", "eager", exact], 60), ([exact, exact, exact], 60)):
        got = run_tournament(lineup, games, seed=9, engine="jax")
        expected = run_tournament(lineup, games, seed=9, engine="batched")
        assert got.per_game == expected.per_game, lineup
        assert got.rounds_per_game == expected.rounds_per_game
    lineup = [{"name": "bayes_v2", "exact": True}, exact, exact]
    got, expected = (run_tournament(lineup, 24, seed=9, engine=e) for e in ("jax", "batched"))
    same = sum(got.per_game["points"][0][g] == expected.per_game["points"][0][g] for g in range(got.games))
    assert got.games == expected.games == 24 and same >= 22, same


@pytest.mark.slow
def test_jax_model_of_the_other_players_predicts_as_numpy_with_exact():
    """bayes_v2's model of the others (``jax.players_posterior.model_actions``) with ``exact=1``: at
    every decision the acting seats read, the prediction under every clue is NumPy's, ties
    included (the positions, hypotheses and margins of ``test_jax_players_posterior``)."""
    jax = pytest.importorskip("jax")
    from test_jax_players_posterior import CONFIGS, GAMES, ITEMS, NEAR, hypothesis_margins, pad, positions

    from ckc_env.jax import players_posterior as jpp
    from ckc_env.jax.state import from_batch

    params = BayesParams(exact=True)
    seen = {"hypotheses": 0, "near-ties": 0}
    for name in ("3p", "4p_stasi_adler"):
        config, names = CONFIGS[name]
        predict = None
        for step, state in enumerate(positions(config, names, seed=5)):
            if step % 2:
                continue
            rules, js = from_batch(state)
            if predict is None:

                def one(state, game, values, decider, card, targets, others, forced, rules=rules):
                    position = jax.tree_util.tree_map(lambda x: x[game], state)
                    return jpp.model_actions(rules, position, values, decider, card, targets, others, forced, params)

                predict = jax.jit(jax.vmap(one, in_axes=(None, 0, 0, 0, 0, 0, 0, 0)))
            acting = np.where(state.pending_kind >= 0, state.pending_seat, 0).astype(np.int64)
            games = np.arange(GAMES)
            found = hypothesis_margins(state, games, acting, params)
            if found is None:
                continue
            items, hyp, values, predicted, margin = found
            size = len(items["pair"])
            assert size <= ITEMS
            _, mine = jax.device_get(
                predict(
                    js, pad(games[items["pair"]], np.int32), pad(values[items["pair"]], np.float32),
                    pad(items["seat"], np.int32), pad(items["card"], np.int32), pad(items["targets"], np.uint32),
                    pad(items["others"], np.int32), pad(items["forced"], bool),
                )
            )  # fmt: skip
            assert np.array_equal(mine[hyp.item, hyp.clue], predicted), (name, step)
            seen["hypotheses"] += len(predicted)
            seen["near-ties"] += int((margin < NEAR).sum())
    print(seen)
    assert seen["hypotheses"] > 2000 and seen["near-ties"], seen
