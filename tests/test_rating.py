"""The rated ladder: OpenSkill ratings from balanced multi-player tables and their predictions of
held-out tables (ckc_env/evaluation/rating.py, ckc-ladder)."""

import json

import numpy as np
import pytest
from cli_helpers import refused

pytest.importorskip("openskill", reason="the rated ladder needs the rating extra")
from ckc_env.evaluation import rating
from ckc_env.evaluation.commands import ladder
from ckc_env.evaluation.results import TournamentResult


@pytest.mark.parametrize(("count", "size", "tables"), [(4, 3, 8), (13, 5, 60), (7, 3, 70), (5, 5, 3), (17, 4, 33)])
def test_the_tables_seat_distinct_players_and_every_player_about_as_often(count, size, tables):
    drawn = rating.draw_tables(count, size, tables, np.random.default_rng(1))
    assert len(drawn) == tables and all(len(set(table)) == size for table in drawn)
    seated = np.bincount(np.concatenate(drawn), minlength=count)
    assert seated.max() - seated.min() <= 1


def test_a_games_order_is_its_win_share_then_its_points_and_equal_results_tie():
    per_game = {"win": [[1.0, 0.5, 0.0], [0.0, 0.5, 0.0], [0.0, 0.0, 1.0]], "points": [[9, 7, 3], [8, 7, 3], [6, 2, 9]]}
    result = TournamentResult(["a", "b", "c"], {"num_players": 3}, 3, 0, per_game)
    assert rating.game_ranks(result).tolist() == [[1, 2, 3], [1, 1, 3], [2, 2, 1]]


@pytest.fixture(scope="module")
def small():
    return rating.rated_ladder(["random", "passive", "bayes_v1", "cheater"], 3, 8, 12, seed=5, held_out=4)


@pytest.mark.slow
def test_the_ladder_rates_every_game_with_openskill_and_orders_the_players(small):
    from openskill.models import PlackettLuce

    record = small.to_json()
    assert record["rated_games"] == 8 * 12 and len(record["rated_tables"]) == 8
    order = [r["player"] for r in record["ratings"]]
    assert order.index("cheater") < order.index("random") and order.index("bayes_v1") < order.index("random")
    ordinals = [r["ordinal"] for r in record["ratings"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert all(r["sigma"] < PlackettLuce().sigma for r in record["ratings"])  # every player's uncertainty shrank
    assert sum(r["games"] for r in record["ratings"]) == 3 * record["rated_games"]
    again = rating.rated_ladder(["random", "passive", "bayes_v1", "cheater"], 3, 8, 12, seed=5, held_out=4)
    assert again.ratings == small.ratings  # one seed, one ladder


def test_a_saved_ladder_gives_its_ratings_again(small):
    record = json.loads(json.dumps(small.to_json()))
    tables = [(t["lineup"], t["ranks"]) for t in record["rated_tables"]]
    assert all(len(t[1]) == 12 for t in tables)
    again = rating.rate(record["players"], tables, record["seed"], record["rating"]["tau"])
    assert {r["player"]: (r["mu"], r["sigma"]) for r in record["ratings"]} == again
    drifting = rating.rate(record["players"], tables, record["seed"], 25 / 300)  # the package's default tau
    assert all(drifting[p][1] > again[p][1] for p in again)  # a drift keeps the sigmas wider


def test_the_held_out_tables_are_predicted_by_openskill_and_scored_game_by_game(small):
    from openskill.models import PlackettLuce

    check = small.to_json()["held_out"]
    model = PlackettLuce()
    assert len(check["tables"]) == 4
    rated_seeds = {t["seed"] for t in small.to_json()["rated_tables"]}
    errors = []
    for table, result in zip(check["tables"], small.held_out, strict=True):
        assert table["seed"] not in rated_seeds and len(set(table["lineup"])) == 3
        teams = [[model.rating(*small.ratings[str(spec)])] for spec in result.lineup]
        assert table["predicted"] == pytest.approx(model.predict_win(teams))
        assert sum(table["predicted"]) == pytest.approx(1.0)
        errors += [abs(o["mean"] - p) for o, p in zip(table["observed"], table["predicted"], strict=True)]
    assert check["mean_absolute_error"] == pytest.approx(np.mean(errors))
    assert check["brier_skill"] == pytest.approx(1 - check["brier"] / check["brier_uniform"])
    assert check["brier_ci95"][0] <= check["brier_skill"] <= check["brier_ci95"][1]


def test_ckc_ladder_writes_a_ladder_per_count_and_refuses_bad_input(tmp_path, capsys):
    prefix = tmp_path / "out" / "rated"
    ladder.main(
        [
            *("random", "eager", "bayes_v1", "--num-players", "3", "--tables", "2", "--games-per-table", "6"),
            *("--held-out", "1", "--out", str(prefix), "--plot", str(tmp_path / "ladder.png"), "--no-progress"),
        ]
    )
    record = json.loads((tmp_path / "out" / "rated_3p.json").read_text())
    assert record["num_players"] == 3 and record["rated_games"] == 12 and len(record["held_out"]["tables"]) == 1
    assert "| rank | player | mu | sigma |" in capsys.readouterr().out
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    target = tmp_path / "refused"
    refused(capsys, lambda: ladder.main(["random", "random", "eager", "--out", str(target)]), "distinct")
    refused(capsys, lambda: ladder.main(["random", "eager", "--num-players", "3", "--out", str(target)]), "at least 3")
    refused(capsys, lambda: ladder.main(["random", "eager", "bayes_v9", "--out", str(target)]), "bayes_v9")
    refused(capsys, lambda: ladder.main(["random", "eager", "passive", "--tables", "0"]), "--tables")
    assert not any(tmp_path.glob("refused*"))
