"""One chance model for both engines (``ckc_env.engine.chance``): a seed deals the same game on the
scalar and the batched engine, in any batch, and the players draw their random choices alike, so a
tournament gives the same per-game results on either engine, whatever the batch size or the
number of worker processes."""

import json

import numpy as np
import pytest

from ckc_env import batch, engine
from ckc_env.batch.chance import draws, game_keys, next_keys
from ckc_env.config import GameConfig
from ckc_env.engine.chance import Stream, key_of, next_key, word
from ckc_env.evaluation import tournament
from ckc_env.evaluation.commands import evaluate
from ckc_env.evaluation.tournament import run_tournament

CONFIGS = [
    {"num_players": 5},
    {"num_players": 3, "stasi": True, "cafe_adler": True},
    {"num_players": 4, "clue_face": "choose", "window_order": "random", "first_player": 2},
]


def test_the_streams_are_the_same_numbers():
    seeds = [0, 1, 42, 2**63 - 1, 2**64 - 1]
    assert [int(k) for k in game_keys(seeds)] == [key_of(s) for s in seeds]
    assert [int(k) for k in next_keys(game_keys(seeds))] == [next_key(key_of(s)) for s in seeds]
    state = batch.init(GameConfig(num_players=3), seeds=seeds)
    start = state.counter.copy()
    words = draws(state, np.arange(len(seeds)), 5)
    for b, seed in enumerate(seeds):
        stream = Stream(key_of(seed))
        stream.counter = int(start[b])
        assert [int(w) for w in words[b]] == stream.draw(5) == [word(key_of(seed), int(start[b]) + i) for i in range(5)]


@pytest.mark.parametrize("rules", CONFIGS, ids=["5p", "3p-variants", "4p-choose"])
def test_a_seed_deals_the_same_game_in_any_batch(rules):
    config = GameConfig(**rules)
    seeds = [3, 99, 2026, 7]
    for batch_size in (1, 4):
        state = batch.init(config, seeds=seeds[:batch_size])
        for b in range(batch_size):
            game = engine.init(config, seed=seeds[b])
            n = config.num_players
            assert state.tiles[b, :n].tolist() == game.tiles and state.bag[b, : 5 - n].tolist() == game.bag
            assert state.clues[b, :n].tolist() == game.clues
            assert state.deck[b, : len(game.deck)].tolist() == game.deck
            assert state.first_player[b] == game.first_player
            for colour, chips in enumerate(game.supply):
                assert state.supply[b, colour, : len(chips)].tolist() == chips
            assert state.pending_seat[b] == game.pending_seat and state.pending_kind[b] == game.pending_kind


def _per_game(result) -> dict[str, np.ndarray]:
    return {metric: np.asarray(values) for metric, values in result.per_game.items()}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("lineup", "rules"),
    [
        (["bayes_v1", "random", "eager", "passive", "cheater"], {}),
        (["random", "eager", "bayes_v1"], {"stasi": True, "cafe_adler": True, "clue_face": "choose"}),
        (["bayes_v1", "random", "random", "eager"], {"reopen_windows": True, "stasi": True, "window_order": "random"}),
        (["checkpoints/ppo_5p_vector", "bayes_v1", "random", "eager", "passive"], {}),
        ([{"name": "checkpoints/ppo_5p_vector", "deterministic": False}, "random", "eager"], {"cafe_adler": True}),
    ],
    ids=["scripted-5p", "variants-3p", "reopen-4p", "agent-5p", "sampling-agent-3p"],
)
def test_both_engines_give_identical_per_game_results(lineup, rules, monkeypatch):
    """The same lineup and seed: the same games, game by game, on the scalar engine (one worker
    or two) and on the batched engine (all games in one batch, or batches of 7)."""
    games = 3 * len(lineup) * 4
    scalar = run_tournament(lineup, games, seed=17, config=rules, workers=1, engine="scalar")
    two_workers = run_tournament(lineup, games, seed=17, config=rules, workers=2, engine="scalar")
    batched = run_tournament(lineup, games, seed=17, config=rules, engine="batched")
    monkeypatch.setattr(tournament, "BATCH_GAMES", 7)
    small_batches = run_tournament(lineup, games, seed=17, config=rules, engine="batched")
    expected = _per_game(scalar)
    for other in (two_workers, batched, small_batches):
        got = _per_game(other)
        for metric, values in expected.items():
            assert np.array_equal(values, got[metric]), metric


def test_ckc_evaluate_gives_the_same_table_on_both_engines(tmp_path, capsys):
    lineup = ["bayes_v1", "random", "eager", "passive"]
    tables = {}
    for engine_name in ("scalar", "batched"):
        out = tmp_path / engine_name
        evaluate.main(["--lineup", *lineup, "--games", "40", "--seed", "5", "--engine", engine_name, "--no-progress",
                       "--out", str(out)])  # fmt: skip
        tables[engine_name] = capsys.readouterr().out
        data = json.loads(out.with_suffix(".json").read_text())
        assert data.pop("engine") == engine_name
        tables[engine_name + "_json"] = data
    assert tables["scalar"] == tables["batched"]
    assert tables["scalar_json"] == tables["batched_json"]
