"""The quick training demo learns (slow: it trains, about 3 minutes on 2 cores; `pytest -m slow`).

What the README claims of `ckc-train quick`: its evaluations rise, and its greedy policy beats
`passive` in the same seat on the same deals (a paired interval above zero), catching chiefs on the way.
"""

import json

import pytest

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

from ckc_env.evaluation.paired import compare
from ckc_env.training.commands import train


@pytest.mark.long
def test_the_quick_demo_learns_to_beat_passive(tmp_path):
    run = train.main(["quick", "--run-dir", str(tmp_path / "quick"), "--no-progress"])
    history = [h["results"]["vs_random"] for h in json.loads((run / "evaluations.json").read_text())]
    assert history[-1]["win_rate"] > history[0]["win_rate"]
    assert history[-1]["chief_rate"] > history[0]["chief_rate"] > 0
    paired = compare(str(run), "passive", "random", games=1000, seed=7, num_players=5)
    assert paired.difference("win").low > 0
    assert paired.first.stats()[0]["chief_rate"].low > 0
