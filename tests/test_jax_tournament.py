"""Tournaments on the JAX engine (``ckc_env.jax.tournament``, ``run_tournament(engine="jax")``,
``ckc-evaluate --engine jax``) against the batched engine, game by game, on the same seed.

Every game's record (win shares, points, colour counts, chief rate, rounds, seating) must be the
batched engine's, but where a float32 near-tie turned a decision of bayes_v1, bayes_v2 or an agent
file the other way. Each differing game is traced: replayed on the NumPy engine with the batched
players while the JAX forms of the same players (their carries kept in lockstep) decide on every
position (``jax.state.from_batch``); the first decision where they disagree must be a float player's,
with a float64 near-tie there: bayes' rule within ``NEAR_TIE`` of a boundary on the twin's
posterior, a reading with a near-tie hypothesis (``test_jax_players_posterior.near_tie_flips``), or
an agent's two best legal logits within ``test_jax_policy``'s tolerance. So the scripted players
(random, passive, eager) are checked exactly: one of theirs can never be the first to differ.
The seeds are chosen so that the tracing runs: on seed 9, 2 of the 156 games of the bayes_v1
lineups differ (bayes_v1's rule, float64 margins of about 2e-16: ties of rationals), on seed 1, 1
of the 24 games of the agent and bayes_v2 lineup (bayes_v2's rule). Over 16 seeds the bayes_v1
lineups differed in 9 of 1,728 games, and a 2,000-game 5-player tournament in 15 (0.75%).

The lineups share compiled code where they can (the same players and padded batch: 4 and 5 players,
and the command's run), so the file compiles twice.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from cli_helpers import refused  # noqa: E402

from ckc_env import batch  # noqa: E402
from ckc_env.batch.agents import target_matrix  # noqa: E402
from ckc_env.batch.beliefs import seat_beliefs  # noqa: E402
from ckc_env.batch.chip_values import expected_chip_values  # noqa: E402
from ckc_env.batch.state import subset  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.engine.actions import FORCED_ACCUSATION, WINDOW  # noqa: E402
from ckc_env.engine.chance import key_of  # noqa: E402
from ckc_env.evaluation import tournament  # noqa: E402
from ckc_env.evaluation.commands import evaluate  # noqa: E402
from ckc_env.evaluation.seating import seatings  # noqa: E402
from ckc_env.evaluation.tournament import run_tournament  # noqa: E402
from ckc_env.jax import tournament as jt  # noqa: E402
from ckc_env.jax.state import from_batch  # noqa: E402
from ckc_env.observation import PLAYERS_FOLLOW  # noqa: E402
from ckc_env.players import build_batched, seating_key  # noqa: E402
from ckc_env.reading.bayes_rule import BayesParams  # noqa: E402
from ckc_env.seeding import derive_seed  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENT = str(ROOT / "checkpoints" / "ppo_all_counts_mixed_34p")
SEED = 9
"""A seed where two bayes_v1 decisions of the 5-player lineup come out otherwise (both traced)."""
AGENT_SEED = 1
NEAR_TIE = 1e-6
"""A float64 margin of bayes' rule this small is a near-tie (float32's epsilon is 1.2e-7)."""
LOGIT_TIE = 1e-4
"""Two legal logits this close may come out either way (``test_jax_policy.TOLERANCE``)."""
SHARE_TIE = 1e-5
"""A sampled draw this close to a boundary of the cumulative distribution may fall either side."""
TRACED_AT_MOST = 0.05
"""Games that may differ (each traced to a near-tie), as a share of the games."""


def differing(jax_result, batched_result) -> list[int]:
    """The game indices (in game order) whose per-game results differ between the two engines."""
    out = set()
    for metric, rows in batched_result.per_game.items():
        for index, values in enumerate(rows):
            got = np.asarray(jax_result.per_game[metric][index])
            out |= set(np.flatnonzero(got != np.asarray(values)).tolist())
    return sorted(out)


# ------------------------------------------------------------------------------ tracing a differing game
def _bayes_margin(state, twin, values) -> float:
    """The twin's smallest float64 margin in bayes' rule on its own posterior (game 0 of ``state``)."""
    from test_jax_players_posterior import rule_margins

    games, seats = np.array([0]), state.pending_seat[[0]].astype(np.int64)
    if twin.name == "bayes_v2":
        b = twin.reader.beliefs(state, games, seats, values, clues=False)
    else:
        b = seat_beliefs(state, games, seats, clues=False)
    allowed = target_matrix(state, games)
    n = state.n[games].astype(np.int64)
    others = ((state.accused_by[games] == -1) & (np.arange(5) < n[:, None])).sum(1) - 1
    drawn = np.bitwise_or.reduce(state.rows[games] | state.discards[games], axis=1)
    white = state.rules.config.non_accuser_white
    return float(rule_margins(twin.params, b.chief, b.assistant, allowed, values, others, n, drawn, white)[0])


def _reading_near_tie(state, params: BayesParams, follow: float) -> bool:
    """Whether the acting seat's reading of the round holds a near-tie hypothesis (its prediction may flip)."""
    from test_jax_players_posterior import near_tie_flips

    return bool(near_tie_flips(state, 0, int(state.pending_seat[0]), params, follow))


def _agent_near_tie(state, twin) -> str | None:
    """Why an agent's decision may differ: its two best legal logits tie, its draw sits on a
    boundary, or its reading holds a near-tie."""
    games, seats = np.array([0]), state.pending_seat[[0]].astype(np.int64)
    observations = batch.observe(state, layout=twin.layout, **twin.readers.posteriors(state, games, seats))
    logits = twin.network.logits(observations).astype(np.float64)[0]
    legal = batch.legal_action_mask(state)[0].astype(bool)
    if twin.deterministic:
        top = np.sort(logits[legal])[::-1]
        if len(top) > 1 and top[0] - top[1] <= LOGIT_TIE:
            return f"logits, gap {top[0] - top[1]:.1e}"
    else:
        running = np.cumsum(np.where(legal, np.exp(logits - logits[legal].max()), 0.0))
        share = float(twin.draw(state, games)[0] >> np.uint64(11)) / (1 << 53)
        if np.abs(running[legal] / running[-1] - share).min() <= SHARE_TIE:
            return "draw"
    if "players_chief" in twin.layout.offsets and _reading_near_tie(state, BayesParams(), PLAYERS_FOLLOW):
        return "reading"
    return None


def _near_tie(state, twin) -> str | None:
    """Why the float player ``twin`` (as it was before deciding, at game 0 of ``state``) may decide
    otherwise in float32, or None."""
    if twin.name.startswith("bayes_v"):
        if state.pending_kind[0] not in (WINDOW, FORCED_ACCUSATION):
            return None
        seats = state.pending_seat[[0]].astype(np.int64)
        margin = _bayes_margin(state, twin, expected_chip_values(state, np.array([0]), seats))
        if margin < NEAR_TIE:
            return f"rule, margin {margin:.1e}"
        if twin.name == "bayes_v2" and _reading_near_tie(state, twin.params, twin.params.follow):
            return "reading"
        return None
    return _agent_near_tie(state, twin)


def first_divergence(lineup, config: dict, seed: int, g: int, arrangements) -> tuple[str, str | None]:
    """Replay game g on the NumPy engine with the batched players, the JAX forms deciding on every
    position beside them; at the first decision where they disagree: the player's label and the
    near-tie found there (None: none). An AssertionError if every decision agrees (the engines differ)."""
    n = len(lineup)
    at_seat = np.asarray(arrangements)[g % len(arrangements)]
    state = batch.init(GameConfig.from_dict(config), seeds=[derive_seed(seed, "game", g)])
    twins = [build_batched(spec, None) for spec in lineup]
    keys = np.zeros((1, 5), dtype=np.uint64)
    keys[0, :n] = [key_of(derive_seed(seed, "agent", g, s)) for s in range(n)]
    for twin in twins:
        twin.start(np.array([0]), keys)
    forms, form_of = jt.distinct_forms([jt.jax_form(spec) for spec in lineup])
    _, position = from_batch(state)
    seat_keys = jnp.asarray(jt.player_keys(np.array([g]), seed, n))
    carries = [jax.vmap(form.start)(position.key, seat_keys) for form in forms]
    acts = [jax.jit(form.act, static_argnums=0) for form in forms]
    while state.pending_kind[0] >= 0:
        i = int(at_seat[state.pending_seat[0]])
        f = int(form_of[i])
        rules, position = from_batch(state)
        chosen, moved = acts[f](rules, position, carries[f], forms[f].weights())
        before, snapshot = copy.deepcopy(twins[i]), subset(state, np.array([0]))
        expected = int(twins[i].act(state, np.array([0]))[0])
        if int(chosen[0]) != expected:
            name = twins[i].name
            return name, None if name in ("random", "passive", "eager", "cheater") else _near_tie(snapshot, before)
        carries[f] = moved
        batch.step(state, np.array([expected]))
    raise AssertionError(f"game {g}: every decision agrees, but the records differ (the engines differ)")


def check_lineup(lineup: list, games: int, config: dict | None = None, seed: int = SEED) -> tuple[int, int]:
    """Both engines on the same seed; every differing game traced to a near-tie. Returns (differing, games)."""
    config = {**(config or {}), "num_players": len(lineup)}
    got = run_tournament(lineup, games, seed=seed, config=config, engine="jax")
    expected = run_tournament(lineup, games, seed=seed, config=config, engine="batched")
    assert got.engine == "jax" and got.to_json()["engine"] == "jax"
    assert got.games == expected.games and got.seating == expected.seating
    arrangements = seatings([seating_key(s) for s in lineup], "balanced")
    traced = []
    for g in differing(got, expected):
        who, why = first_divergence(lineup, config, seed, g, arrangements)
        assert why is not None, f"game {g}: {who} decided otherwise with no near-tie"
        traced.append((g, who, why))
    print(f"{lineup}: {len(traced)} of {got.games} games differ, each at a near-tie: {traced}", file=sys.stderr)
    if not traced:
        assert got.rounds_per_game == expected.rounds_per_game
        assert got.table() == expected.table()
    return len(traced), got.games


OPTIONS = {
    "clue_face": "choose",
    "window_order": "random",
    "first_player": 2,
    "reopen_windows": True,
    "non_accuser_white": "chief_uncaught",
}
"""Every option that is data in the JAX state away from its default: the same compiled loop."""


@pytest.mark.slow
def test_scripted_and_bayes_v1_lineups_play_the_batched_games():
    """4 and 5 players, and 4 under other options (one compiled loop: the same players, the same
    padded batch of 64, the same options that shape the arrays)."""
    differ = total = 0
    for lineup, games, config in (
        (["random", "passive", "eager", "bayes_v1"], 48, {}),
        (["bayes_v1", "random", "passive", "eager", "bayes_v1"], 60, {}),
        (["eager", "bayes_v1", "random", "passive"], 48, OPTIONS),
    ):
        d, t = check_lineup(lineup, games, config)
        differ, total = differ + d, total + t
    assert differ <= TRACED_AT_MOST * total


@pytest.mark.slow
def test_agent_file_and_bayes_v2_with_both_variants():
    """3 players with Stasi and Cafe Adler: the agent reads the other players (its ``players_*``
    pieces from readings kept per seat), greedy and sampling, beside bayes_v2."""
    lineup = [AGENT, {"name": AGENT, "deterministic": False}, "bayes_v2"]
    differ, total = check_lineup(lineup, 24, {"stasi": True, "cafe_adler": True}, AGENT_SEED)
    assert differ <= TRACED_AT_MOST * total


@pytest.mark.slow
def test_the_command_and_its_refusals(tmp_path, capsys, monkeypatch):
    """``ckc-evaluate --engine jax`` writes the JAX engine's table and ``engine: "jax"``; a player
    without a JAX form is named, and so is the extra when JAX is missing."""
    lineup = ["random", "passive", "eager", "bayes_v1"]  # the first test's compiled loop
    out = tmp_path / "jax"
    evaluate.main(["--lineup", *lineup, "--games", "48", "--seed", str(SEED), "--engine", "jax", "--no-progress", "--out", str(out)])  # fmt: skip
    table = capsys.readouterr().out
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["engine"] == "jax"
    assert run_tournament(lineup, 48, seed=SEED, engine="jax").table() in table
    refused(
        capsys,
        lambda: evaluate.main(["--lineup", "bayes_v3", "random", "random", "--games", "3", "--engine", "jax"]),
        "bayes_v3",
        "no JAX form",
        "bayes_v1",
    )
    with pytest.raises(ValueError, match=r"rollout'\] have no JAX form"):
        run_tournament(["rollout", "random", "random"], 3, engine="jax")
    with pytest.raises(ValueError, match="invalid engine"):
        run_tournament(["random"] * 3, 3, engine="pgx")
    monkeypatch.setitem(sys.modules, "jax", None)  # as if JAX were not installed
    with pytest.raises(ValueError, match=r"jax extra .*\[jax\]"):
        run_tournament(["random"] * 3, 3, engine="jax")


def test_records_match_play_batched_for_any_game_ids():
    """``play_jax`` takes ``play_batched``'s arguments: any game ids (a chunk, padded), rotation
    by default; the per-game records are the same dicts."""
    lineup = ["random", "passive", "eager", "bayes_v1"]
    ids = np.random.default_rng(0).permutation(1000)[:40].tolist()  # padded to 64: the first test's loop
    got = jt.play_jax(lineup, {"num_players": 4}, SEED, ids)
    expected = tournament.play_batched(lineup, {"num_players": 4}, SEED, ids)
    rotation = seatings(["x"] * 4, "rotate")
    assert [g for g, _ in got] == ids
    assert [record["seating"] for _, record in got] == [list(rotation[g % 4]) for g in ids]
    differ = [g for (g, record), (_, other) in zip(got, expected, strict=True) if record != other]
    arrangements = seatings(["x"] * 4, "rotate")
    for g in differ:  # each a near-tie
        assert first_divergence(lineup, {"num_players": 4}, SEED, g, arrangements)[1] is not None
    assert len(differ) <= TRACED_AT_MOST * len(ids)


COMPANIONS = ["eager", "passive", "random"]
TABLES = (["eager", "random", "random"], ["passive", "random", "random"])


def test_tables_of_different_players_share_one_loop_with_companions():
    """A training run's evaluation tables on the JAX engine: each table's loop also holds the other
    tables' players, unseated, so the second table compiles nothing."""
    compiles: list[str] = []
    listener = lambda event, seconds, **_: compiles.append(event)  # noqa: E731
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        run_tournament(TABLES[0], 24, seed=SEED, engine="jax", companions=COMPANIONS)
        compiles.clear()
        run_tournament(TABLES[1], 24, seed=SEED, engine="jax", companions=COMPANIONS)
        assert "/jax/core/compile/backend_compile_duration" not in compiles
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    with pytest.raises(ValueError, match="companions are for engine='jax' alone"):
        run_tournament(["random"] * 3, 3, engine="batched", companions=["eager"])
    with pytest.raises(ValueError, match=r"rollout'\] have no JAX form"):
        run_tournament(["random"] * 3, 3, engine="jax", companions=["rollout"])
    with pytest.raises(ValueError, match=r"rollout'\] have no JAX form"):  # one spec, not its letters
        run_tournament(["random"] * 3, 3, engine="jax", companions="rollout")


@pytest.mark.slow
def test_a_table_with_companions_plays_the_games_it_plays_alone():
    """The unseated players never act and key no seated player's streams: every game is the one its
    table plays in a loop of its own players."""
    for lineup in TABLES:
        together = run_tournament(lineup, 24, seed=SEED, engine="jax", companions=COMPANIONS)
        alone = run_tournament(lineup, 24, seed=SEED, engine="jax")
        assert together.per_game == alone.per_game and together.table() == alone.table()
