"""Tournaments (ckc_env.evaluation.tournament) and their command line (training/evaluate.py).

- Seatings: the balanced design (every player in every seat and right after every other player
  equally often, the lineup's order immaterial) and rotation (game g seats lineup player i at seat
  (i + g) mod n); every result lands on the lineup player who earned it (checked with a stand-in for
  ``play_game`` that reports seats).
- Determinism: results depend on the seed only, not on the number of workers.
- Statistics: win shares, the 95% intervals of ``Stat.of``, the game count rounded up to a
  multiple of n.
- Outputs: ``save`` (JSON and CSV columns), round robins, the ranking table.
- Bad input: ValueError naming the accepted values; on the command line, exit status 2.
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from pathlib import Path

import numpy as np
import pytest

from ckc_env import players
from ckc_env.agents import REGISTRY
from ckc_env.config import COLOURS
from ckc_env.evaluation import tournament
from ckc_env.evaluation.commands import evaluate
from ckc_env.evaluation.tournament import METRICS, RATES, Stat, metric_stat, round_robin, run_tournament, wilson
from ckc_env.players import specs
from ckc_env.seeding import derive_seed

ROOT = Path(__file__).resolve().parent.parent
FAST = ["random", "passive", "eager"]  # cheap agents for small tournaments


QUICK = ["--workers", "1", "--no-progress"]


# ---------------------------------------------------------------------- seat rotation
@pytest.fixture
def seat_reporting_games(monkeypatch):
    """Replace play_game (workers=1 plays in this process) by one that plays nothing and reports, as
    each seat's "points", the seat number; the calls are recorded as (seed, agent names by seat)."""
    calls = []

    def fake_play_game(env, agents, seed):
        n = len(agents)
        calls.append((seed, [agent.name for agent in agents]))
        zeros = [0.0] * n
        return {
            "win": [1.0 if s == 0 else 0.0 for s in range(n)],
            "points": [float(s) for s in range(n)],
            **{colour: zeros for colour in COLOURS},
            "chief_rate": zeros,
            "rounds": 1,
        }

    monkeypatch.setattr(tournament, "play_game", fake_play_game)
    return calls


@pytest.mark.parametrize("lineup", [FAST, [*FAST, "cheater"], [*FAST, "cheater", "bayes_v1"]])
def test_seats_rotate_and_results_follow_the_players(seat_reporting_games, lineup):
    n = len(lineup)
    result = run_tournament(lineup, games=3 * n, seed=7, workers=1, engine="scalar", seating="rotate")  # spied on
    seats = result.per_game["points"]  # seats[i][g]: where lineup player i sat in game g
    for i in range(n):
        assert seats[i] == [float((i + g) % n) for g in range(3 * n)]
        assert sorted(seats[i]) == sorted(float(s) for s in range(n) for _ in range(3))  # every seat 3 times
    calls = seat_reporting_games  # one worker: in game order
    assert [seed for seed, _ in calls] == [derive_seed(7, "game", g) for g in range(3 * n)]
    for g, (_, names) in enumerate(calls):
        assert names == [lineup[(s - g) % n] for s in range(n)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_balanced_seatings_average_out_the_order_around_the_table(seat_reporting_games, n):
    """Every player sits in every seat, and right after every other player, equally often; the
    order of the lineup changes nobody's results."""
    lineup = ["random", "passive", "eager", "cheater", "bayes_v1"][:n]
    result = run_tournament(lineup, games=1, seed=7, workers=1, engine="scalar")
    size = {3: 6, 4: 24, 5: 20}[n]
    assert result.games == size and result.seating == {"scheme": "balanced", "arrangements": size}
    seats = np.array(result.per_game["points"], dtype=int)  # seats[i][g]
    for i in range(n):
        assert sorted(np.bincount(seats[i], minlength=n)) == [size // n] * n
    follows = {(i, j): 0 for i in range(n) for j in range(n) if i != j}
    for g in range(size):
        for i in range(n):
            j = int(np.flatnonzero(seats[:, g] == (seats[i, g] + 1) % n)[0])
            follows[i, j] += 1
    assert len(set(follows.values())) == 1  # each ordered pair adjacent equally often
    shuffled = [lineup[k] for k in reversed(range(n))]
    other = run_tournament(shuffled, games=1, seed=7, workers=1, engine="scalar")
    for i, label in enumerate(lineup):
        assert other.per_game["points"][shuffled.index(label)] == result.per_game["points"][i]


def test_mixed_table_results_do_not_depend_on_the_lineup_order():
    a = run_tournament(["bayes_v1", "passive", "random"], games=12, seed=3, engine="batched")
    b = run_tournament(["random", "bayes_v1", "passive"], games=12, seed=3, engine="batched")
    for label in ("bayes_v1", "passive", "random"):
        assert a.per_game["win"][a.labels.index(label)] == b.per_game["win"][b.labels.index(label)]


@pytest.mark.slow
def test_an_agent_file_plays_the_same_games_whatever_path_names_it(tmp_path, monkeypatch):
    """Seatings follow an agent file's weights, not its path: the shipped folder, the same folder
    written another way, and a copy elsewhere play the same games of a mixed table; another agent
    file has another key; a scripted player's key is its label."""
    import shutil

    root = Path(__file__).resolve().parents[1]
    shipped = root / "checkpoints" / "ppo_all_counts"
    copy = tmp_path / "runs" / "somewhere"
    shutil.copytree(shipped, copy)
    monkeypatch.chdir(root)
    names = ["checkpoints/ppo_all_counts", "./checkpoints/ppo_all_counts/", str(shipped / "best_model.json"), str(copy)]
    keys = {players.seating_key(name) for name in names}
    assert len(keys) == 1 and keys.pop().startswith("checkpoints/")
    results = [
        run_tournament([name, "bayes_v1", "passive", "random"], games=24, seed=4, engine="batched") for name in names
    ]
    for result in results[1:]:
        assert result.per_game == results[0].per_game
    other = root / "checkpoints" / "ppo_all_counts_finetuned"
    assert players.seating_key(str(other)) != players.seating_key(names[0])
    assert players.seating_key("bayes_v1") == "bayes_v1"


def test_seating_in_real_games():
    """The private chunk player reports the seating it used: each lineup index sits everywhere."""
    arrangements = tournament.seatings(FAST, "rotate")
    chunk = tournament._play_chunk((FAST, {"num_players": 3}, 0, range(6), False, arrangements))
    assert [g for g, _ in chunk] == list(range(6))
    for g, record in chunk:
        assert record["seating"] == [(s - g) % 3 for s in range(3)]
    for i in range(3):
        assert sorted(record["seating"].index(i) for _, record in chunk) == [0, 0, 1, 1, 2, 2]


# ---------------------------------------------------------------------- determinism
def test_results_depend_on_the_seed_not_on_the_workers():
    one = run_tournament(FAST, games=12, seed=5, workers=1)
    two = run_tournament(FAST, games=12, seed=5, workers=2)
    assert one.per_game == two.per_game
    assert one.to_json() == two.to_json()
    other = run_tournament(FAST, games=12, seed=6, workers=1)
    assert other.per_game != one.per_game


# ---------------------------------------------------------------------- statistics
def test_win_shares_sum_to_one_and_shared_wins_are_split():
    result = run_tournament(["random"] * 3, games=60, seed=0, config={"max_rounds": 1}, workers=1)
    wins = np.array(result.per_game["win"])  # [player, game]
    assert np.allclose(wins.sum(axis=0), 1.0)
    shared = wins[:, ((wins > 0) & (wins < 1)).any(axis=0)]
    assert shared.shape[1] > 0, "no shared win to check"
    for column in shared.T:
        k = np.count_nonzero(column)
        assert k >= 2 and np.allclose(column[column > 0], 1 / k)


def test_stat_of_is_the_mean_with_a_normal_95_percent_interval():
    values = [0.0, 1.0, 1.0, 0.5]
    stat = Stat.of(values)
    mean = sum(values) / 4  # 0.625
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 3)  # sample standard deviation
    assert stat.mean == pytest.approx(0.625)
    assert stat.half_width == pytest.approx(1.96 * sd / 2)
    assert stat.half_width == pytest.approx(1.96 * statistics.stdev(values) / math.sqrt(4))
    assert (stat.low, stat.high) == pytest.approx((0.625 - stat.half_width, 0.625 + stat.half_width))
    assert str(stat) == f"0.625 ± {stat.half_width:.3f}"
    single = Stat.of([2.0])
    assert single.mean == 2.0 and math.isnan(single.half_width)
    assert math.isnan(Stat.of([]).mean)


def test_rates_get_wilsons_interval_inside_zero_and_one():
    """Wilson's score interval: for p = 0.3 over 100 games it is [0.219, 0.396] (the textbook
    figures); at 0 or 1 it stays inside [0, 1] and keeps a width, where the normal one collapses."""
    stat = Stat.of_rate([1.0] * 30 + [0.0] * 70)
    assert (stat.low, stat.high) == pytest.approx((0.2189, 0.3958), abs=1e-4)
    assert str(stat) == "0.300 [0.219, 0.396]"
    none = Stat.of_rate([0.0] * 2000)
    assert none.low == 0.0 and 0.0015 < none.high < 0.0025
    assert Stat.of([0.0] * 2000).half_width == 0.0  # what the normal interval would have said
    everything = Stat.of_rate([1.0] * 50)
    assert everything.high == 1.0 and everything.low < 1.0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        Stat.of_rate([0.5, 2.0])
    for low, high in [wilson(p, n) for p in (0.0, 0.01, 0.5, 0.99, 1.0) for n in (1, 3, 50, 2000)]:
        assert 0.0 <= low <= high <= 1.0


def test_win_and_chief_rates_are_reported_as_rates():
    result = run_tournament(FAST, games=30, seed=2, workers=1)
    for stats in result.stats():
        for metric in METRICS:
            assert stats[metric].rate == (metric in RATES)
            if metric in RATES:
                assert 0.0 <= stats[metric].low <= stats[metric].mean <= stats[metric].high <= 1.0
    assert result.to_json()["intervals"] == {m: "wilson95" if m in RATES else "normal95" for m in METRICS}


def test_result_statistics_come_from_the_per_game_values():
    result = run_tournament(FAST, games=12, seed=1, workers=1)
    for i, stats in enumerate(result.stats()):
        for metric in METRICS:
            assert len(result.per_game[metric][i]) == 12
            assert stats[metric] == metric_stat(metric, result.per_game[metric][i])
    players = result.to_json()["players"]
    assert players[0]["win"]["ci95"] == [result.stats()[0]["win"].low, result.stats()[0]["win"].high]


def test_the_lead_is_the_first_places_paired_margin_over_the_second():
    """A table's result says whether its first place is clear: the leader's win rate less the
    runner-up's, over the same games, with the interval of the per-game differences."""
    result = run_tournament(["cheater", "random", "random"], games=300, seed=3, engine="batched")
    lead = result.to_json()["lead"]
    rates = [s["win"].mean for s in result.stats()]
    order = sorted(range(3), key=lambda k: -rates[k])
    assert (lead["first"], lead["second"]) == (result.labels[order[0]], result.labels[order[1]])
    assert lead["first"] == "cheater"
    assert lead["difference"] == pytest.approx(rates[order[0]] - rates[order[1]])
    assert 0 < lead["ci95"][0] < lead["difference"] < lead["ci95"][1]
    assert f"first: cheater, ahead of {lead['second']} by {lead['difference']:+.3f}" in result.table()
    even = run_tournament(["random", "random", "random"], games=300, seed=3, engine="batched").lead()
    assert even["difference"] >= 0 and even["ci95"][0] < 0 < even["ci95"][1]  # a seat's luck, not a lead


def test_a_lead_on_a_handful_of_games_stays_within_its_bounds():
    """A lead is a difference of two win shares: its interval is cut at -1 and 1 (the normal one
    passes them on a few games: +0.500 [-0.169, +1.169] on six)."""
    from ckc_env.evaluation.statistics import lead

    first, second, stat = lead([[1, 1, 1, 1, 0, 0], [0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]])
    assert (first, second) == (0, 1) and stat.mean == pytest.approx(0.5)
    assert stat.low < 0 and stat.high == 1.0


@pytest.mark.parametrize(
    ("lineup", "seating", "asked", "played"),
    [
        (FAST, "balanced", 4, 6),
        (FAST, "balanced", 7, 12),
        ([*FAST, "random"], "balanced", 5, 24),
        ([*FAST, "random", "cheater"], "balanced", 21, 40),
        (FAST, "rotate", 1, 3),
        ([*FAST, "random"], "rotate", 5, 8),
    ],
)
def test_games_are_rounded_up_to_a_multiple_of_the_seating_design(lineup, seating, asked, played):
    result = run_tournament(lineup, games=asked, seed=0, workers=1, seating=seating)
    assert result.games == played
    assert all(len(values) == played for metric in METRICS for values in result.per_game[metric])


# ---------------------------------------------------------------------- outputs
def test_save_writes_json_and_csv(tmp_path):
    result = run_tournament(["bayes_v1", "random", {"name": "bayes_v1", "sure": 0.7}], games=3, seed=0, workers=1)
    json_path, csv_path = result.save(tmp_path / "deep" / "run")
    assert (json_path, csv_path) == (tmp_path / "deep" / "run.json", tmp_path / "deep" / "run.csv")
    data = json.loads(json_path.read_text())
    assert set(data) == {
        "lineup",
        "labels",
        "config",
        "games",
        "seed",
        "rounds_per_game",
        "engine",
        "seating",
        "intervals",
        "players",
        "lead",
    }
    assert data["labels"] == ["bayes_v1", "random", "bayes_v1(sure=0.7)"]
    assert data["games"] == 6 and data["config"]["num_players"] == 3
    assert data["seating"] == {"scheme": "balanced", "arrangements": 6}
    assert set(data["players"][0]) == set(METRICS)
    rows = list(csv.reader(csv_path.open()))
    assert rows[0] == ["player", *(f"{m}_{k}" for m in METRICS for k in ("mean", "low", "high"))]
    assert [row[0] for row in rows[1:]] == data["labels"]
    for row, stats in zip(rows[1:], result.stats(), strict=True):
        assert float(row[1]) == pytest.approx(stats["win"].mean)
        assert float(row[2]) == pytest.approx(stats["win"].low)


def test_table_lists_every_player():
    result = run_tournament(FAST, games=3, seed=0, workers=1)
    lines = result.table().splitlines()
    assert lines[0] == "3 players, 6 games, balanced seatings, seed 0"  # what the table summarises
    rotated = run_tournament(FAST, games=3, seed=0, workers=1, seating="rotate")
    assert rotated.table().splitlines()[0] == "3 players, 3 games, seats rotated, seed 0"
    assert lines[2].startswith("| player | win rate |")
    assert [line.split("|")[1].strip() for line in lines[4:7]] == FAST
    assert lines[7] == "" and lines[8].startswith("first: ")  # the lead over the second, paired


def test_round_robin_plays_every_table():
    players = ["random", "passive", "eager", "bayes_v1", "cheater"]
    result = round_robin(players, num_players=3, games=60, seed=0, workers=1)
    assert len(result.results) == 10  # C(5, 3)
    tables = [set(r.labels) for r in result.results]
    assert len({frozenset(t) for t in tables}) == 10
    for player in players:
        assert sum(player in t for t in tables) == 6  # C(4, 2)
    assert all(r.games == 6 for r in result.results)
    lines = result.ranking().splitlines()
    assert lines[0] == "3 players, 10 table(s), 60 games"
    ranked = [line.split("|")[2].strip() for line in lines[4:]]
    assert sorted(ranked) == sorted(players)
    assert [int(line.split("|")[1]) for line in lines[4:]] == [1, 2, 3, 4, 5]
    data = result.to_json()
    assert data["players"] == players and len(data["tables"]) == 10 and len(data["pooled"]) == 5
    pooled = result.pooled()
    assert all(
        pooled[k]["win"]
        == Stat.of_rate([v for r in result.results if p in r.labels for v in r.per_game["win"][r.labels.index(p)]])
        for k, p in enumerate(players)
    )


# ---------------------------------------------------------------------- bad input
def test_unknown_agent():
    with pytest.raises(ValueError, match="unknown player 'nope'") as info:
        run_tournament(["nope", "random", "random"], games=3)
    assert all(name in str(info.value) for name in REGISTRY)


@pytest.mark.parametrize("games", [0, -3, 2.5, "10", True, None])
def test_games_must_be_a_positive_integer(games):
    with pytest.raises(ValueError, match="games must be a positive integer"):
        run_tournament(FAST, games=games)


@pytest.mark.parametrize("size", [0, 1, 2, 6])
def test_lineup_of_3_to_5_players(size):
    with pytest.raises(ValueError, match="accepted values are an integer from 3 to 5"):
        run_tournament(["random"] * size, games=6)


def test_num_players_must_match_the_lineup():
    with pytest.raises(ValueError, match=r"num_players=4 but the lineup has 3 players: give 3 to 5 players"):
        run_tournament(FAST, games=3, config={"num_players": 4})


def test_unknown_rule_option():
    with pytest.raises(ValueError, match="accepted options are"):
        run_tournament(FAST, games=3, config={"stassi": True})


def test_round_robin_players_must_be_distinct():
    with pytest.raises(ValueError, match="must be distinct"):
        round_robin(["random", "random", "eager"], num_players=3, games=3)
    with pytest.raises(ValueError, match="must be distinct"):  # the same player, written two ways
        round_robin(["bayes_v1", {"name": "bayes_v1"}, "eager"], num_players=3, games=3)


def test_round_robin_needs_enough_players_and_3_to_5_seats():
    with pytest.raises(ValueError, match="needs at least 4 players"):
        round_robin(FAST, num_players=4, games=4)
    with pytest.raises(ValueError, match="accepted values are an integer from 3 to 5"):
        round_robin(FAST, num_players=2, games=4)


def test_parameters_of_simple_agents_are_refused_early():
    with pytest.raises(ValueError, match="random"):
        run_tournament([{"name": "random", "sure": 0.7}, "random", "random"], games=3, workers=1)


def test_round_robin_refuses_a_bad_player_before_playing(seat_reporting_games):
    with pytest.raises(ValueError, match="unknown player 'nope'"):
        round_robin(["random", "passive", "eager", "nope"], num_players=3, games=4, workers=1)
    assert seat_reporting_games == []


# ---------------------------------------------------------------------- command line
def test_parse_player():
    assert specs.from_text("bayes_v1") == "bayes_v1"
    assert specs.from_text("bayes_v1:sure=0.7,bar_late=1") == {"name": "bayes_v1", "sure": 0.7, "bar_late": 1}
    assert specs.from_text("x:a=true,b=text") == {"name": "x", "a": True, "b": "text"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        specs.from_text("bayes_v1:sure")


def test_cli_lineup(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    prefix = tmp_path / "results" / "eval"
    args = ["--lineup", "bayes_v1:sure=0.7", "random", "passive", "--games", "3", "--seed", "4", *QUICK]
    evaluate.main([*args, "--rules", str(ROOT / "configs/rules/stasi.yaml"), "--out", str(prefix)])
    out = capsys.readouterr().out
    assert "| bayes_v1(sure=0.7) |" in out and "| random |" in out and "| passive |" in out
    data = json.loads(prefix.with_suffix(".json").read_text())
    assert data["labels"] == ["bayes_v1(sure=0.7)", "random", "passive"]
    assert data["config"]["stasi"] is True and data["seed"] == 4 and data["games"] == 6
    assert prefix.with_suffix(".csv").is_file()
    evaluate.main(args)  # no --out: no files
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["eval.csv", "eval.json"]


def test_cli_defaults_use_all_cores_and_a_progress_bar(tmp_path, capsys, monkeypatch):
    seen = {}
    real = tournament.run_tournament

    def spy(lineup, games, seed, **play):
        seen.update({key: play[key] for key in ("workers", "progress", "trust_checkpoint", "engine")})
        return real(lineup, games, seed, **{**play, "workers": 1})

    monkeypatch.setattr(evaluate, "run_tournament", spy)
    evaluate.main(["--lineup", *FAST, "--games", "3"])
    assert seen == {"workers": None, "progress": True, "trust_checkpoint": False, "engine": "auto"}  # None: all cores
    assert "6/6" in capsys.readouterr().err


def test_cli_round_robin(tmp_path, capsys):
    prefix = tmp_path / "rr"
    players = ["random", "passive", "eager", "cheater"]
    evaluate.main(["--round-robin", *players, "--num-players", "3", "--games", "24", *QUICK, "--out", str(prefix)])
    out = capsys.readouterr().out
    assert out.startswith("3 players, 4 table(s), 24 games")
    for player in players:
        assert out.count(f"| {player} |") == 1
    data = json.loads(prefix.with_suffix(".json").read_text())
    assert data["num_players"] == 3 and len(data["tables"]) == 4 and data["players"] == players


def test_cli_round_robin_seats_default_to_the_players(capsys):
    evaluate.main(["--round-robin", *FAST, "--games", "3", *QUICK])
    assert capsys.readouterr().out.startswith("3 players, 1 table(s), 6 games")


BAD_ARGS = [
    (["--lineup", "nope", "random", "random"], "unknown player 'nope': registered agents are"),
    (["--lineup", "random", "random"], "accepted values are an integer from 3 to 5"),
    (["--lineup", *["random"] * 6], "accepted values are an integer from 3 to 5"),
    (
        ["--lineup", *FAST, "--games", "0"],
        "argument --games: 0 is out of range: accepted values are integers from 1 to 1000000",
    ),
    (["--lineup", *FAST, "--games", "-5"], "argument --games: -5 is out of range"),
    (["--lineup", *FAST, "--games", "many"], "argument --games: 'many' is not an integer"),
    (["--lineup", *FAST, "--workers", "0"], "argument --workers: 0 is out of range"),
    (
        ["--lineup", *FAST, "--seed", "-1"],
        "argument --seed: -1 is out of range: accepted values are integers from 0 to 18446744073709551615",
    ),
    (["--lineup", *FAST, "--num-players", "4"], "num_players=4 but the lineup has 3 players"),
    (["--lineup", *FAST, "--rules", "nowhere.yaml"], "presets are ['adler', 'base', 'both', 'stasi']"),
    (["--lineup", "random:sure=1", "random", "random"], "agent 'random' takes no parameters"),
    (["--lineup", "bayes_v1:bogus=1", "random", "random"], "accepted are ['sure', 'bar_early', 'bar_late', 'mar"),
    (["--lineup", "bayes_v1:sure", "random", "random"], "KEY=VALUE"),
    (["--round-robin", *FAST, "eager"], "must be distinct"),
    (
        ["--round-robin", *FAST, "cheater", "bayes_v1", "--num-players", "6"],
        "argument --num-players: 6 is out of range",
    ),
    (["--round-robin", *FAST, "--num-players", "2"], "accepted values are integers from 3 to 5"),
    (["--round-robin", *FAST, "nope"], "unknown player 'nope'"),
    (["--round-robin", *FAST, "--num-players", "4"], "needs at least 4 players"),
    (["--lineup", *FAST, "--round-robin", *FAST], "not allowed with argument"),
    (["--games", "3"], "one of the arguments --lineup --round-robin --compare is required"),
]


@pytest.mark.parametrize(("argv", "message"), BAD_ARGS, ids=[" ".join(a) for a, _ in BAD_ARGS])
def test_cli_bad_input_exits_with_status_2(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        evaluate.main([*argv, "--no-progress"])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and "usage:" in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stasi: [oops", "malformed YAML"),
        ("stassi: true", "accepted game options are"),
        ("- 1\n- 2", "must hold a mapping"),
        ("window_order: sideways", "accepted values are"),
    ],
)
def test_cli_bad_rules_file(tmp_path, capsys, text, message):
    rules = tmp_path / "rules.yaml"
    rules.write_text(text)
    with pytest.raises(SystemExit) as info:
        evaluate.main(["--lineup", *FAST, "--rules", str(rules), "--games", "3", *QUICK])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_a_player_at_several_seats_is_numbered():
    result = run_tournament(["bayes_v1", "random", "random"], games=6, seed=0)
    assert result.labels == ["bayes_v1", "random #1", "random #2"]
    assert "| random #2 |" in result.table() and result.to_json()["labels"][2] == "random #2"


def test_cli_compare_reports_a_paired_difference(tmp_path, capsys):
    prefix = tmp_path / "pair"
    evaluate.main(
        ["--compare", "eager", "random", "--opponents", "passive", "--num-players", "3", "--games", "12", *QUICK,
         "--out", str(prefix)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "eager against random in the same seat on the same deals: 12 games each" in out
    assert "| difference (paired) |" in out and "paired 95% interval" in out
    data = json.loads(prefix.with_suffix(".json").read_text())
    assert data["compare"] == ["eager", "random"] and data["games"] == 12
    from ckc_env.evaluation.paired import compare

    # A player compared with itself plays the very same games: every difference is exactly 0.
    same = compare("random", "random", ["eager", "random", "bayes_v1"], 40, seed=3)
    assert all((same.differences(metric) == 0).all() for metric in METRICS)
    with pytest.raises(SystemExit):
        evaluate.main(["--compare", "eager", "random", "--games", "3"])  # no --opponents
