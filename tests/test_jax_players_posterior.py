"""The JAX players' posterior and bayes_v2 (``ckc_env.jax.players_posterior``) against their NumPy
twins (``ckc_env.batch.players_posterior``, ``batch.agents.BatchBayesV2Agent``) on the same positions.

NumPy batches are played by mixed lineups (bayes_v2 among them; half of the games pass every window,
so that their rounds end in the forced accusations, the others make random moves) under 3, 4 and 5
players, Stasi, Cafe Adler, ``reopen_windows`` and both ``non_accuser_white``. Every position is
converted with ``jax.state.from_batch`` and read by one compiled function per configuration:

- kept readings of every seat (``kept_observed_posterior``), brought up to date where the NumPy
  ``PlayersReader`` reads (the seat holds its clue before scoring): their log-likelihoods, weighted
  posteriors and total weights against NumPy's;
- bayes_v2 (``jax.players.decide`` with ``make_player("bayes_v2")`` at every seat) deciding every
  window and forced accusation, its reading kept as NumPy's agent keeps its own: its action against
  a NumPy ``BatchBayesV2Agent`` shadowing every seat;
- the fresh ``observed_posterior`` of the acting seat against NumPy's ``observed_posterior``;
- every fourth step, the model's prediction under every clue of every decision the acting seats
  read (``model_actions``) against NumPy's ``hypotheses`` and ``predictions``.

float32 differs from float64 in two ways, both checked: every number within a tolerance; and a
model prediction whose float64 margin is below float32 rounding (a near-tie) may go the other way,
flipping one factor. Every differing prediction must have a float64 margin below :data:`NEAR`;
every log-likelihood outside the tolerance (kept readings, bayes_v2's own) must be NumPy's exact
sum with some near-tie hypotheses of its row flipped; every differing bayes_v2 decision must come
from such a reading or from a near-tie of its own rule on the same posterior; every fresh
observation outside the tolerance must read a decision with a near-tie hypothesis. The counts are
printed (``-s``) and bounded.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from ckc_env import batch  # noqa: E402
from ckc_env.batch.agents import decide, make_batch_agent  # noqa: E402
from ckc_env.batch.bayes_rule import non_accuser_value  # noqa: E402
from ckc_env.batch.beliefs import count_worlds  # noqa: E402
from ckc_env.batch.chip_values import expected_chip_values  # noqa: E402
from ckc_env.batch.players_posterior import (  # noqa: E402
    MAX_LEGAL,
    PlayersReader,
    decisions,
    factor_kinds,
    factor_logs,
    hypotheses,
    observed_posterior,
    predictions,
    weighted_seat_beliefs,
)
from ckc_env.config import BLACK, GOLD, WHITE, GameConfig  # noqa: E402
from ckc_env.engine.actions import FORCED_ACCUSATION, PASS, WINDOW  # noqa: E402
from ckc_env.engine.state import FORCED, SCORING  # noqa: E402
from ckc_env.jax import players_posterior as jpp  # noqa: E402
from ckc_env.jax.players import decide as decide_jax  # noqa: E402
from ckc_env.jax.players import start as start_jax  # noqa: E402
from ckc_env.jax.registry import make_player  # noqa: E402
from ckc_env.jax.state import from_batch  # noqa: E402
from ckc_env.observation import PLAYERS_FOLLOW  # noqa: E402
from ckc_env.reading.bayes_rule import BayesParams  # noqa: E402

SEATS = 5
CONFIGS = {
    "3p": (GameConfig(num_players=3), ("bayes_v2", "bayes_v1", "random")),
    "4p_stasi_adler": (
        GameConfig(num_players=4, stasi=True, cafe_adler=True),
        ("bayes_v2", "eager", "bayes_v2", "passive"),
    ),
    "5p_stasi_reopen_uncaught": (
        GameConfig(
            num_players=5,
            stasi=True,
            reopen_windows=True,
            window_order="clockwise_after_drawer",
            non_accuser_white="chief_uncaught",
        ),
        ("bayes_v2", "bayes_v1", "cheater", "bayes_v2", "eager"),
    ),
}
GAMES, STEPS, WARM_UP = 6, 72, 25
ITEMS = 2048
"""Decisions judged per hypothesis check (every fourth step), padded: one compilation."""
LOG_TOL = 3e-5
"""|log-likelihood - NumPy's|: fixed-point factors (2**-24 each, 35 at most) and one float32 rounding."""
PROB_TOL = 2e-5
"""|posterior - NumPy's| (chief, assistant, clues): float32 weights and sums."""
NEAR = 1e-5
"""A float64 margin this small is a near-tie (float32 carries about 7 digits of values near 1..5)."""


def positions(config: GameConfig, names: tuple[str, ...], seed: int):
    """Yield a batch before each step of games played by the lineup
    ``names`` (the automatic reset on), after ``WARM_UP * n`` steps: in half of the games every
    window is passed (their rounds end in the forced accusations), in the others one move in ten
    is random and half of the windows are passed."""
    state = batch.init(config, seeds=range(seed, seed + GAMES))
    lineup = [make_batch_agent(name, seed=seed + s) for s, name in enumerate(names)]
    explore = make_batch_agent("random", seed=seed)
    rng = np.random.default_rng(seed)
    patient = np.arange(GAMES) < GAMES // 2
    warm_up = WARM_UP * config.num_players
    for step in range(warm_up + STEPS):
        actions = decide(state, lineup)
        if step >= warm_up:
            yield state
        random_move = (rng.random(GAMES) < 0.1) & ~patient
        actions[random_move] = explore.act(state, np.flatnonzero(random_move))
        hold = (patient | (rng.random(GAMES) < 0.5)) & (state.pending_kind == WINDOW)
        actions[hold] = PASS
        batch.step(state, actions, autoreset=True)


LINEUP = (make_player("bayes_v2"),) * SEATS
"""bayes_v2 at every seat (``jax.players.decide`` keeps one carry for them)."""


def compiled(rules):
    """One function per configuration: everything the test reads of a position, for every game."""
    seats = jnp.arange(SEATS)

    def one(reading, carries, state):
        # kept readings of every seat, brought up to date where the seat reads, and their posteriors
        copies, kept = jax.vmap(lambda s: jpp.kept_observed_posterior(rules, reading, state, s))(seats)
        reading = jax.tree_util.tree_map(lambda x: x[seats, seats], copies)
        logs = jpp.relative_logs(reading.sums)
        # bayes_v2 at the acting seat, its carry moved where it acted
        action, carries = decide_jax(rules, state, LINEUP, carries)
        acting = jnp.clip(state.pending_seat.astype(jnp.int32), 0)
        sums = carries[0].reading.sums
        own = jpp.weighted_beliefs(state, acting, jpp.relative_logs(sums[acting]), clues=False)  # what it read
        fresh = jpp.observed_posterior(rules, state, acting)
        return reading, carries, logs, kept, action, sums, own, fresh

    return jax.jit(jax.vmap(one))


def pad(x: np.ndarray, dtype: type) -> jax.Array:
    """``x`` padded with zeros to :data:`ITEMS` rows."""
    return jnp.asarray(np.concatenate([x, np.zeros((ITEMS - len(x), *x.shape[1:]), dtype=x.dtype)]).astype(dtype))


def model(rules):
    """The reader's model on given decisions (``model_actions``), items padded to :data:`ITEMS`."""

    def one(state, game, values, decider, card, targets, others, forced):
        position = jax.tree_util.tree_map(lambda x: x[game], state)
        return jpp.model_actions(rules, position, values, decider, card, targets, others, forced)

    return jax.jit(jax.vmap(one, in_axes=(None, 0, 0, 0, 0, 0, 0, 0)))


# ------------------------------------------------------------------------------ near-ties in float64
def rule_margins(
    p: BayesParams,
    chief: np.ndarray,
    assistant: np.ndarray,
    allowed: np.ndarray,
    values: np.ndarray,
    others: np.ndarray,
    n: np.ndarray,
    drawn: np.ndarray,
    non_accuser_white: str,
) -> np.ndarray:
    """(k,) the smallest float64 margin of bayes_v1's comparisons in each position (k, 32): between
    the two best targets, of the best against the bar (or what a non-accuser gets) and of its
    chief probability against ``sure``."""
    gold, white, black = values[:, GOLD, None], values[:, WHITE, None], values[:, BLACK, None]
    ev = np.where(allowed, chief * gold + assistant * white + (1.0 - chief - assistant) * black, -np.inf)
    ordered = -np.sort(-ev, axis=1)
    gap = np.where(np.isfinite(ordered[:, 1]), ordered[:, 0] - ordered[:, 1], np.inf)
    best = ev.argmax(1)
    rows = np.arange(len(ev))
    share = (others - 1) / np.maximum(1, n - 2)
    bar = p.bar_late + (p.bar_early - p.bar_late) * share
    last = non_accuser_value(values, chief, drawn, non_accuser_white) + p.margin_last
    rule = ordered[:, 0] - np.where(others <= 1, last, bar)
    sure = chief[rows, best] - p.sure
    return np.minimum(np.minimum(np.abs(gap), np.abs(rule)), np.abs(sure))


def near_tie_flips(
    state, game: int, seat: int, params: BayesParams, follow: float
) -> dict[tuple[int, int], list[float]]:
    """Per (decider, clue) of ``seat``'s reading in ``game``, what each near-tie hypothesis would
    add to the log-likelihood if its prediction went the other way (hit to miss or back)."""
    found = hypothesis_margins(state, np.array([game]), np.array([seat]), params)
    if found is None:
        return {}
    items, hyp, _, predicted, margin = found
    kinds = factor_kinds(items, hyp, predicted)
    item = hyp.item
    logs = factor_logs(follow)
    out: dict[tuple[int, int], list[float]] = {}
    for h in np.flatnonzero(margin < NEAR):
        kind = int(kinds[h])
        other = kind - (MAX_LEGAL + 1) if kind > MAX_LEGAL + 1 else kind + MAX_LEGAL + 1
        out.setdefault((int(items["seat"][item[h]]), int(hyp.clue[h])), []).append(logs[other] - logs[kind])
    return out


def hypothesis_margins(state, games: np.ndarray, seats: np.ndarray, params: BayesParams):
    """NumPy's hypotheses of every decision ``seats[i]`` reads in ``games[i]`` (afresh): the items,
    the hypotheses, their predictions and the float64 margin of each prediction."""
    zero = np.zeros(len(games), dtype=np.int64)
    found = decisions(state, games, seats, zero, zero)
    if found is None:
        return None
    tables, items = found
    hyp = hypotheses(state, games, tables, items)
    values = expected_chip_values(state, games, seats)
    predicted = predictions(state, games, items, hyp, values, params)
    counts, _ = count_worlds(hyp.slots, clues=False)
    total = np.maximum(counts.sum(1), 1)[:, None]
    neighbours = sum(counts[:, np.arange(32) ^ (1 << f)] for f in range(5))
    item = hyp.item
    allowed = (items["targets"][item][:, None] >> np.arange(32, dtype=np.uint32)) & 1 == 1
    margin = rule_margins(
        params, counts / total, neighbours / total, allowed, values[items["pair"][item]], items["others"][item],
        hyp.n[item], hyp.drawn[item], state.rules.config.non_accuser_white,
    )  # fmt: skip
    return items, hyp, values, predicted, margin


def explained(raw: np.ndarray, expected: np.ndarray, flips: dict, row: int) -> bool:
    """Whether the raw log-sums (10,) of a decider ``row`` are NumPy's with some near-ties flipped."""
    for clue in range(10):
        options = flips.get((row, clue), [])
        sums = {0.0}
        for delta in options:
            sums |= {s + delta for s in sums}
        if not any(abs(raw[clue] - expected[clue] - s) < LOG_TOL for s in sums):
            return False
    return True


# ------------------------------------------------------------------------------ the test
@pytest.mark.slow
@pytest.mark.parametrize(
    "name", [name if name == "3p" else pytest.param(name, marks=pytest.mark.slow) for name in sorted(CONFIGS)]
)
def test_jax_reader_posterior_and_bayes_v2_follow_numpy(name):
    config, names = CONFIGS[name]
    params, follow = BayesParams(), PLAYERS_FOLLOW
    scale = jpp.fixed_factors(follow)[1]
    kept = PlayersReader()
    shadow = make_batch_agent("bayes_v2", seed=0)  # every seat's bayes_v2, reading at its decisions
    readings = jpp.init((GAMES,))
    carries = None
    run = None
    seen = Counter()
    worst = Counter()
    for step, state in enumerate(positions(config, names, seed=11 * len(name))):
        rules, js = from_batch(state)
        if run is None:
            run, predict = compiled(rules), model(rules)
            keys = js.key
            carries = jax.vmap(lambda key: start_jax(LINEUP, key))(keys)
        reads = np.zeros((GAMES, SEATS), dtype=bool)
        for seat in range(SEATS):
            reads[:, seat] = (seat < state.n) & (state.clues[:, seat] >= 0) & (state.phase < SCORING)
        readings, carries, *out = run(readings, carries, js)
        sums = readings.sums
        sums, logs, mine, action, own_sums, own, fresh = jax.device_get((sums, *out))
        logs, raw = np.asarray(logs, np.float64), np.asarray(sums, np.float64) * 2.0**-scale
        own_raw = np.asarray(own_sums, np.float64) * 2.0**-scale

        # kept readings and their posteriors
        for seat in range(SEATS):
            games = np.flatnonzero(reads[:, seat])
            if not len(games):
                continue
            seats = np.full(len(games), seat)
            likelihood = kept.likelihood(state, games, seats)
            weighted = weighted_seat_beliefs(state, games, seats, likelihood)
            for i, g in enumerate(games.tolist()):
                n = int(state.n[g])
                others = [s for s in range(n) if s != seat]
                seen["kept readings"] += 1
                seen["kept readings in the forced accusations"] += int(state.phase[g] == FORCED)
                seen["kept readings after an accusation"] += int(state.accusation_count[g] > 0)
                expected_logs = np.log(likelihood[i, others])
                error = np.abs(logs[g, seat, others] - expected_logs).max()
                if error > LOG_TOL:  # a near-tie flipped: NumPy's raw sums with some near-ties flipped
                    flips = near_tie_flips(state, g, seat, params, follow)
                    for s in others:
                        assert explained(raw[g, seat, s], kept.logs[g, seat, s], flips, s), (name, step, g, seat, s)
                    seen["likelihoods off by a near-tie"] += 1
                    continue
                worst["log"] = max(worst["log"], error)
                for piece in ("chief", "assistant"):
                    diff = np.abs(np.asarray(getattr(mine, piece))[g, seat] - getattr(weighted, piece)[i]).max()
                    worst[piece] = max(worst[piece], diff)
                    assert diff < PROB_TOL, (name, step, g, seat, piece, diff)
                diff = np.abs(np.asarray(mine.clue)[g, seat, :n] - weighted.clue[i, :n]).max()
                worst["clue"] = max(worst["clue"], diff)
                assert diff < PROB_TOL, (name, step, g, seat, "clue", diff)
                assert not np.asarray(mine.clue)[g, seat, n:].any()
                mass = float(np.asarray(mine.assignments)[g, seat])
                assert abs(mass - weighted.assignments[i]) <= 1e-4 * weighted.assignments[i] + 1e-30

        # bayes_v2 against the shadow, at every window and forced accusation
        kind = state.pending_kind
        acting = np.where(kind >= 0, state.pending_seat, 0).astype(np.int64)
        accusing = np.flatnonzero((kind == WINDOW) | (kind == FORCED_ACCUSATION))
        if len(accusing):
            expected = shadow.act(state, accusing)
            seats = state.pending_seat[accusing].astype(np.int64)
            mine_actions = np.asarray(action)[accusing]
            values = expected_chip_values(state, accusing, seats)
            b = shadow.reader.beliefs(state, accusing, seats, values, clues=False)  # up to date: no new reading
            seen["bayes_v2 decisions"] += len(accusing)
            same = np.ones(len(accusing), dtype=bool)  # its reading is NumPy's, or off by near-ties
            for j, (g, seat) in enumerate(zip(accusing.tolist(), seats.tolist(), strict=True)):
                rows = [s for s in range(int(state.n[g])) if s != seat]
                if np.abs(own_raw[g, seat, rows] - shadow.reader.logs[g, seat, rows]).max() > LOG_TOL:
                    flips = near_tie_flips(state, g, seat, shadow.params, shadow.params.follow)
                    for s in rows:
                        assert explained(own_raw[g, seat, s], shadow.reader.logs[g, seat, s], flips, s), (name, step)
                    same[j] = False
            seen["bayes_v2 readings off by a near-tie"] += int((~same).sum())
            close = np.abs(np.asarray(own.chief)[accusing] - b.chief).max(1) < PROB_TOL
            assert close[same].all(), (name, step)
            for j in np.flatnonzero(mine_actions != expected):
                g, seat = int(accusing[j]), int(seats[j])
                if same[j]:  # the same posterior: a near-tie of its own rule
                    n = state.n[[g]].astype(np.int64)
                    others_left = ((state.accused_by[[g]] == -1) & (n[:, None] > np.arange(SEATS))).sum(1) - 1
                    drawn = np.bitwise_or.reduce(state.rows[[g]] | state.discards[[g]], axis=1)
                    allowed = (state.row_cats[[g], None] & ~state.accused_cats[[g], None]) >> np.arange(
                        32, dtype=np.uint32
                    ) & 1 == 1
                    margin = rule_margins(
                        shadow.params, b.chief[[j]], b.assistant[[j]], allowed, values[[j]], others_left, n, drawn,
                        config.non_accuser_white,
                    )  # fmt: skip
                    assert margin[0] < NEAR, (name, step, g, seat, margin)
                    seen["bayes_v2 decisions off by a near-tie of its rule"] += 1
                else:  # its reading is NumPy's with near-tie predictions flipped (checked above)
                    seen["bayes_v2 decisions off by a near-tie of its reading"] += 1

        # every fourth step, the model's predictions on every decision the acting seats read
        reading_seats = reads[np.arange(GAMES), acting]
        if step % 4 == 0 and reading_seats.any():
            games = np.flatnonzero(reading_seats)
            found = hypothesis_margins(state, games, acting[games], params)
            if found is not None:
                items, hyp, values, predicted, margin = found
                size = len(items["pair"])
                assert size <= ITEMS

                candidates, mine = jax.device_get(
                    predict(
                        js, pad(games[items["pair"]], np.int32),
                        pad(values[items["pair"]], np.float32),
                        pad(items["seat"], np.int32), pad(items["card"], np.int32), pad(items["targets"], np.uint32),
                        pad(items["others"], np.int32), pad(items["forced"], bool),
                    )
                )  # fmt: skip
                expected_sets = np.zeros(size, dtype=np.int64)
                np.bitwise_or.at(expected_sets, hyp.item, 1 << hyp.clue)
                assert np.array_equal(candidates[:size], expected_sets), (name, step)
                mine = mine[hyp.item, hyp.clue]
                differ = mine != predicted
                assert (margin[differ] < NEAR).all(), (name, step, margin[differ])
                seen["hypotheses"] += len(predicted)
                seen["hypotheses predicting an accusation"] += int((predicted > PASS).sum())
                seen["hypotheses off by a near-tie"] += int(differ.sum())

        # the fresh observed posterior of the acting seat
        everyone = np.arange(GAMES)
        expected = observed_posterior(state, everyone, acting)
        for g in range(GAMES):
            seen["fresh observations"] += 1
            diff = max(
                np.abs(np.asarray(fresh.chief)[g] - expected.chief[g]).max(),
                np.abs(np.asarray(fresh.assistant)[g] - expected.assistant[g]).max(),
                np.abs(np.asarray(fresh.clue)[g] - expected.clue[g]).max(),
            )
            if diff > PROB_TOL:
                assert near_tie_flips(state, g, int(acting[g]), params, follow), (name, step, g)
                seen["fresh observations off by a near-tie"] += 1
            else:
                worst["fresh"] = max(worst["fresh"], diff)
    print(name, dict(seen), {k: float(v) for k, v in worst.items()})
    assert seen["kept readings"] > 300 and seen["bayes_v2 decisions"] > 100, dict(seen)
    assert seen["kept readings in the forced accusations"] and seen["kept readings after an accusation"], dict(seen)
    assert seen["hypotheses"] > 3000 and seen["hypotheses predicting an accusation"], dict(seen)
    assert seen["hypotheses off by a near-tie"] <= 0.02 * seen["hypotheses"], dict(seen)
    assert seen["likelihoods off by a near-tie"] <= 0.15 * seen["kept readings"], dict(seen)
    assert seen["fresh observations off by a near-tie"] <= 0.1 * seen["fresh observations"], dict(seen)
    off = (
        seen["bayes_v2 decisions off by a near-tie of its rule"]
        + seen["bayes_v2 decisions off by a near-tie of its reading"]
    )
    assert off <= 0.02 * seen["bayes_v2 decisions"], dict(seen)
