"""Tournaments on the batched engine: chosen when every player has a batched form, seated and
seeded as the scalar path, and statistically consistent with it."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from ckc_env.evaluation import tournament
from ckc_env.evaluation.tournament import METRICS, run_tournament

ROOT = Path(__file__).resolve().parents[1]
FAST = ["random", "passive", "eager"]


def test_the_batched_engine_is_chosen_when_every_player_has_a_batched_form(rllib_checkpoint):
    assert run_tournament(FAST, games=6, seed=0).engine == "batched"
    assert run_tournament(FAST, games=6, seed=0, engine="scalar", workers=1).engine == "scalar"
    assert run_tournament(["bayes_v2", "random", "random"], games=3, seed=0).engine == "batched"
    rllib = rllib_checkpoint  # loaded by RLlib only when built: refused before that
    with pytest.raises(ValueError, match=r"have no batched form"):
        run_tournament([rllib, "random", "random"], games=3, engine="batched", trust_checkpoint=True)
    with pytest.raises(ValueError, match="accepted values are"):
        run_tournament(FAST, games=3, engine="gpu")


def test_batched_games_are_seated_and_seeded_as_the_scalar_ones():
    records = tournament.play_batched(FAST, {"num_players": 3}, 0, range(6))
    assert [g for g, _ in records] == list(range(6))
    for g, record in records:
        assert record["seating"] == [(i - g) % 3 for i in range(3)]
        assert math.isclose(sum(record["win"]), 1.0)
        assert all(0 <= rate <= 1 for rate in record["chief_rate"])
    again = run_tournament(FAST, games=30, seed=4)
    assert again.per_game == run_tournament(FAST, games=30, seed=4).per_game
    assert again.per_game != run_tournament(FAST, games=30, seed=5).per_game


@pytest.mark.parametrize("lineup", [FAST, ["bayes_v1", "random", "random", "eager", "cheater"]])
def test_batched_and_scalar_results_agree(lineup):
    """Every metric of every player: the two engines' means within 4 standard errors (different
    deals, the same distribution)."""
    scalar = run_tournament(lineup, games=300, seed=11, engine="scalar", workers=1)
    batched = run_tournament(lineup, games=1500, seed=12, engine="batched")
    assert batched.games == 1500
    for metric in METRICS:
        for i in range(len(lineup)):
            a = np.asarray(scalar.per_game[metric][i])
            b = np.asarray(batched.per_game[metric][i])
            se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
            assert abs(a.mean() - b.mean()) <= 4 * se + 1e-9, (metric, lineup[i], a.mean(), b.mean(), se)
    assert abs(scalar.rounds_per_game - batched.rounds_per_game) < 0.3


def test_checkpoints_play_batched():
    checkpoint = str(ROOT / "checkpoints" / "ppo_5p_distilled")
    result = run_tournament([checkpoint, "bayes_v1", "bayes_v1"], games=30, seed=0)
    assert result.engine == "batched" and result.games == 30
    assert 0 <= result.stats()[0]["win"].mean <= 1
