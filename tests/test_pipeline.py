"""ckc-train-pipeline (training/pipeline.py): stages run in order, each from a model of an earlier one;
the same command again skips finished stages and resumes an unfinished one; a bad pipeline file, a
stage changed since it ran or a folder that is not the pipeline's is a named error (exit status 2).
The shipped pipeline is the chain of the shipped run folders."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_helpers import refused as exits_with_2

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

from ckc_env.training.commands import pipeline, train
from ckc_env.training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
TINY = """
seed: {seed}
total_timesteps: 128
game: {{num_players: 3}}
opponents: [random]
ppo: {{n_steps: 64, batch_size: 32, n_epochs: 1}}
policy: {{net_arch: [16]}}
eval: {{every: 128, games: 3, opponents: {{vs_random: [random]}}}}
"""
TWO_STAGES = """
stages:
  - {{name: first, config: {first}}}
  - {{name: second, config: {second}, init_from: first, total_timesteps: {steps}}}
"""
# The shipped pipeline, stage by stage: the run folder it rebuilds.
SHIPPED = [
    "ppo_all_counts",
    "ppo_all_counts_finetuned",
    "ppo_all_counts_large_batch",
    "ppo_all_counts_mixed",
    "ppo_all_counts_mixed_34p",
]


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def calls(monkeypatch):
    """Each stage's ckc-train, run in this process (the same argv, the same run folder), recorded."""
    made: list[list[str]] = []

    def in_process(argv: list[str]) -> int:
        assert argv[: len(pipeline.TRAIN)] == pipeline.TRAIN
        made.append(argv[len(pipeline.TRAIN) :])
        train.main(argv[len(pipeline.TRAIN) :])
        return 0

    monkeypatch.setattr(pipeline, "run_stage", in_process)
    return made


def write_pipeline(tmp_path: Path, steps: int = 128) -> Path:
    for name, seed in (("first", 1), ("second", 2)):
        (tmp_path / f"{name}.yaml").write_text(TINY.format(seed=seed))
    path = tmp_path / "pipeline.yaml"
    path.write_text(TWO_STAGES.format(first=tmp_path / "first.yaml", second=tmp_path / "second.yaml", steps=steps))
    return path


def refused(capsys, argv: list[str], *words: str) -> str:
    """``ckc-train-pipeline argv`` is refused (exit status 2) with ``words`` in its message."""
    return exits_with_2(capsys, lambda: pipeline.main(argv), *words)


def test_the_shipped_pipeline_rebuilds_the_shipped_chain():
    """Each stage of configs/pipelines/strongest.yaml is the config its shipped run folder ran, to the
    same length, and starts from the stage whose shipped folder that run started from."""
    stages = pipeline.load_pipeline("strongest")
    assert [s.label for s in stages] == [
        "01_all_counts",
        "02_finetuned",
        "03_large_batch",
        "04_mixed_45p",
        "05_mixed_34p",
    ]
    for k, (stage, folder) in enumerate(zip(stages, SHIPPED, strict=True)):
        ran = load_config(ROOT / "checkpoints" / folder / "config.yaml")
        config = pipeline.parse_config(pipeline.derived(stage, Path("runs/strongest"), stages))
        mine, shipped = pipeline.comparable(config), pipeline.comparable(ran)
        assert mine.pop("init_from") == (None if k == 0 else f"runs/strongest/{stages[k - 1].label}/best_model.json")
        assert shipped.pop("init_from") == (None if k == 0 else f"checkpoints/{SHIPPED[k - 1]}")
        assert mine == shipped, folder
        assert config.total_timesteps == ran.total_timesteps, folder


@pytest.mark.slow
def test_a_pipeline_runs_in_order_skips_what_is_done_and_resumes_the_rest(tmp_path, calls, capsys):
    spec = write_pipeline(tmp_path)
    run_dir = tmp_path / "runs"
    argv = [str(spec), "--run-dir", str(run_dir), "--no-progress"]
    assert pipeline.main(argv) == run_dir / "02_second"
    first, second = run_dir / "01_first", run_dir / "02_second"
    assert calls == [
        [str(run_dir / "01_first.yaml"), "--run-dir", str(first), "--no-progress"],
        [str(run_dir / "02_second.yaml"), "--run-dir", str(second), "--no-progress"],
    ]
    start = first / "best_model.json"
    assert load_config(second / "config.yaml").init_from == str(start)  # written by the pipeline
    record = json.loads((run_dir / "pipeline.json").read_text())
    assert record["starts"] == {"02_second": pipeline.card_digest(start)}

    # The same command again: both stages are done, nothing runs, no byte changes.
    before = contents(run_dir)
    calls.clear()
    pipeline.main(argv)
    assert calls == [] and contents(run_dir) == before
    assert "01_first done" in " ".join(capsys.readouterr().out.split())

    # A stage stopped before its end (no summary.json; its latest zip is there): resumed, the one before skipped.
    (second / "summary.json").unlink()
    first_before = contents(first)
    calls.clear()
    pipeline.main(argv)
    assert calls == [["--resume", str(second), "--total-timesteps", "128", "--no-progress"]]
    assert (second / "summary.json").is_file() and contents(first) == first_before

    # A longer stage in the pipeline file: the finished run goes on to it with --resume.
    spec = write_pipeline(tmp_path, steps=256)
    calls.clear()
    pipeline.main(argv)
    assert calls == [["--resume", str(second), "--total-timesteps", "256", "--no-progress"]]
    assert json.loads((second / "summary.json").read_text())["timesteps"] == 256
    assert [e["timesteps"] for e in json.loads((second / "evaluations.json").read_text())] == [0, 128, 256]
    assert contents(first) == first_before

    # A stage stopped before its first evaluation (a marker, no zip): run again over its own run folder.
    for name in ("summary.json", "final_model.zip", "latest_model.zip", "best_model.zip"):
        (second / name).unlink()
    calls.clear()
    pipeline.main(argv)
    assert calls == [[str(run_dir / "02_second.yaml"), "--run-dir", str(second), "--no-progress", "--force"]]
    assert json.loads((second / "summary.json").read_text())["timesteps"] == 256

    # A stage whose config changed since it ran, or whose start is no longer the model it started from,
    # is refused by name rather than skipped.
    (tmp_path / "first.yaml").write_text(TINY.format(seed=9))
    refused(capsys, argv, "01_first", "seed", "remove")
    (tmp_path / "first.yaml").write_text(TINY.format(seed=1))
    record = json.loads((run_dir / "pipeline.json").read_text())
    (run_dir / "pipeline.json").write_text(json.dumps(record | {"starts": {"02_second": "0" * 64}}))
    refused(capsys, argv, "02_second", "started from another model", "best_model.json")


def test_plan_prints_every_stage_and_runs_nothing(tmp_path):
    """The console entry point (a process of its own) on the shipped pipeline, --plan: five new stages."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ckc_env.training.commands.pipeline",
            "strongest",
            "--run-dir",
            str(tmp_path / "s"),
            "--plan",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(" new ") == 5
    assert "--resume" not in done.stdout and "05_mixed_34p.yaml --run-dir" in done.stdout
    assert not (tmp_path / "s").exists()


def stage(**fields) -> dict:
    return {"name": "a", "config": "quick", **fields}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("- a list\n", ["must hold a mapping"]),
        ({"stage": []}, ["stage", "accepted pipeline keys", "stages"]),
        ({"stages": []}, ["stages=[]", "non-empty list"]),
        ({"stages": ["quick"]}, ["stage 1", "not a mapping"]),
        ({"stages": [stage(configs="quick")]}, ["stage 1", "configs", "accepted keys"]),
        ({"stages": [stage(name="a/b")]}, ["stage 1", "not a stage name"]),
        ({"stages": [stage(), stage()]}, ["stage 2 (a)", "two stages"]),
        ({"stages": [stage(config="nowhere.yaml")]}, ["stage 1 (a)", "nowhere.yaml", "presets"]),
        ({"stages": [stage(init_from="a")]}, ["stage 1 (a)", "init_from='a'", "not an earlier stage"]),
        ({"stages": [stage(), stage(name="b", init_from="c")]}, ["stage 2 (b)", "earlier stages are ['a']"]),
        ({"stages": [stage(), stage(name="b", init_from="a", model="latest")]}, ["stage 2 (b)", "model='latest'"]),
        ({"stages": [stage(model="best")]}, ["stage 1 (a)", "no init_from"]),
        ({"stages": [stage(total_timesteps=0)]}, ["stage 1 (a)", "total_timesteps=0", "integers from 1"]),
        ({"stages": [stage(total_timesteps="1e6")]}, ["stage 1 (a)", "total_timesteps='1e6'"]),
        # quick clones a teacher: a stage cannot also start from an earlier one (ckc-train's own check)
        ({"stages": [stage(), stage(name="b", init_from="a")]}, ["stage 2 (b)", "quick.yaml", "init_from"]),
    ],
)
def test_a_bad_pipeline_file_is_a_named_error(tmp_path, capsys, data, words):
    path = tmp_path / "bad.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data))
    refused(capsys, [str(path), "--run-dir", str(tmp_path / "run")], "bad.yaml", *words)
    assert not (tmp_path / "run").exists()


def test_a_folder_that_is_not_the_pipelines_is_refused(tmp_path, capsys):
    spec = write_pipeline(tmp_path)
    mine = tmp_path / "thesis"
    mine.mkdir()
    (mine / "chapter1.tex").write_text("...")
    refused(capsys, [str(spec), "--run-dir", str(mine)], "thesis", "pipeline.json", "not a pipeline's folder")
    assert sorted(p.name for p in mine.iterdir()) == ["chapter1.tex"]
    refused(capsys, ["nowhere", "--run-dir", str(tmp_path / "run")], "nowhere", "strongest")
