"""ckc-plot and ckc-evaluate --plot: pictures of win rates with intervals and of training runs."""

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="plots need the plot extra")

from ckc_env.evaluation import plots
from ckc_env.evaluation.commands import evaluate, plot
from ckc_env.evaluation.tournament import round_robin, run_tournament

ROOT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"


def test_win_rates_of_a_lineup_and_of_a_round_robin():
    lineup = run_tournament(["random", "random", "eager"], games=6, seed=0, workers=1).to_json()
    title, n, rows = plots.win_rates(lineup)
    assert n == 3 and "6 games" in title
    assert [row[0] for row in rows] == ["random #1", "random #2", "eager"]  # one player at two seats
    for _, mean, low, high in rows:
        assert 0 <= low <= mean <= high <= 1
    ranking = round_robin(["random", "passive", "eager", "bayes_v1"], 3, games=8, seed=0, workers=1).to_json()
    title, n, rows = plots.win_rates(ranking)
    assert n == 3 and "4 table(s)" in title and {row[0] for row in rows} == {"random", "passive", "eager", "bayes_v1"}
    with pytest.raises(ValueError, match="not a tournament result"):
        plots.win_rates({"something": 1})


def test_ckc_plot_draws_results_and_runs(tmp_path, capsys):
    out = tmp_path / "ladder.png"
    plot.main(
        [
            "results",
            str(ROOT / "docs/results/ladder_3p.json"),
            str(ROOT / "docs/results/ladder_5p.json"),
            "--out",
            str(out),
        ]
    )
    assert out.read_bytes().startswith(PNG)
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("game: {num_players: 4}\n")
    history = [
        {
            "timesteps": t,
            "elapsed_seconds": t / 10,
            "results": {"vs_random": {"win_rate": rate, "games": 100, "win_ci95": [0, 1]}},
        }
        for t, rate in [(0, 0.2), (1000, 0.3), (2000, 0.45)]
    ]
    (run / "evaluations.json").write_text(json.dumps(history))
    curve = tmp_path / "curve.svg"
    reference = tmp_path / "passive.json"
    reference.write_text(json.dumps(run_tournament(["passive", "random", "random", "random"], 4, workers=1).to_json()))
    plot.main(["run", str(run), "--out", str(curve), "--reference", str(reference)])
    assert curve.read_text().lstrip().startswith("<?xml")
    assert "wrote" in capsys.readouterr().out
    plot.main(["run", str(run), "--out", str(curve), "--wall-time"])  # by steps and by minutes, side by side
    assert "wall-clock minutes" in curve.read_text() and "learner steps" in curve.read_text()
    for entry, rate in zip(history, (0.21, 0.28, 0.4), strict=True):  # eval.held_out: a dashed curve beside
        entry["held_out"] = {"table": "vs_random", "win_rate": rate, "games": 100}
    (run / "evaluations.json").write_text(json.dumps(history))
    plot.main(["run", str(run), "--out", str(curve)])
    assert "vs_random, held-out deals (100 games each)" in curve.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "nowhere", "--out", "x.png"], "no evaluations in nowhere"),
        (["results", "missing.json", "--out", "x.png"], "cannot read result file missing.json"),
    ],
)
def test_ckc_plot_bad_input(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        plot.main(argv)
    assert info.value.code == 2 and message in capsys.readouterr().err


def test_evaluate_plot(tmp_path):
    out = tmp_path / "lineup.png"
    evaluate.main(
        [
            "--lineup",
            "random",
            "passive",
            "eager",
            "--games",
            "6",
            "--workers",
            "1",
            "--no-progress",
            "--plot",
            str(out),
        ]
    )
    assert out.read_bytes().startswith(PNG)


def test_without_matplotlib_the_plot_extra_is_named_as_every_extra_is(monkeypatch):
    """The message every missing extra gives (ckc_env.cli.need_extra): in a clone, pip install -e."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    with pytest.raises(ValueError, match=r'the plot extra \(matplotlib not installed\): pip install -e "\.\[plot\]"'):
        plots._pyplot()
