"""Every output written whole, every check before the work, one validation of a file for every
command that takes it (ckc_env.files.atomic_output, check_output).

- a link at any output path (a video, a replay, a tournament's files, a plot, a ladder, an
  export, a benchmark's JSON) is replaced by the new file, never written through: its target keeps
  every byte;
- a bad output (a picture format matplotlib does not write, a video that is neither .mp4 nor .gif,
  a folder where the file goes, a file where a folder must be) is refused with exit status 2
  before a game is played or a replay read, and nothing is created;
- a writer that fails leaves the old file as it was, and no temporary file;
- a rules file is checked whole, the same way, by every command that takes one;
- names from files or the command line are printed with their control characters escaped.
"""

import io
import json
import os
from pathlib import Path

import pytest
from cli_helpers import refused
from rich.console import Console

from ckc_env.evaluation.commands import evaluate
from ckc_env.files import InputError, atomic_output, check_output, write_atomic
from ckc_env.terminal import play

pytest.importorskip("PIL", reason="the pictures need the render extra")


def console() -> Console:
    return Console(file=io.StringIO(), width=120, color_system=None)


@pytest.fixture
def replay(tmp_path) -> Path:
    path = tmp_path / "game.json"
    assert play.main(["--players", "3", "--seed", "4", "--save-replay", str(path)], console=console()) == 0
    return path


def planted(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A link at ``name`` to a file of someone else's."""
    target = tmp_path / f"someone_elses_{name}"
    target.write_bytes(b"not yours")
    link = tmp_path / name
    os.symlink(target, link)
    return link, target


def replaced(link: Path, target: Path) -> None:
    assert not link.is_symlink() and link.stat().st_size > 0, link
    assert target.read_bytes() == b"not yours", target
    assert not [p for p in link.parent.iterdir() if p.name.endswith(".partial")]


# ---------------------------------------------------------------------------------------------- links at outputs
@pytest.mark.slow
@pytest.mark.parametrize("name", ["link.gif", "link.mp4"])
def test_a_video_over_a_link_replaces_the_link(replay, tmp_path, name):
    pytest.importorskip("imageio_ffmpeg")
    link, target = planted(tmp_path, name)
    assert play.main(["--replay", str(replay), "--video", str(link)], console=console()) == 0
    replaced(link, target)


def test_a_saved_replay_over_a_link_replaces_the_link(tmp_path):
    link, target = planted(tmp_path, "link.json")
    assert play.main(["--players", "3", "--seed", "1", "--save-replay", str(link)], console=console()) == 0
    replaced(link, target)
    assert json.loads(link.read_text())["format"] == "ckc-replay"


def test_a_tournaments_files_and_plot_over_links_replace_the_links(tmp_path):
    pytest.importorskip("matplotlib")
    links = [planted(tmp_path, name) for name in ("out.json", "out.csv", "plot.png")]
    argv = ["--lineup", "random", "random", "random", "--games", "6", "--no-progress"]
    evaluate.main([*argv, "--out", str(tmp_path / "out"), "--plot", str(tmp_path / "plot.png")])
    for link, target in links:
        replaced(link, target)
    link, target = planted(tmp_path, "rr.json")
    evaluate.main(["--round-robin", "random", "passive", "eager", "--games", "6", "--out", str(tmp_path / "rr")])
    replaced(link, target)
    link, target = planted(tmp_path, "paired.json")
    evaluate.main(["--compare", "random", "passive", "--opponents", "random", "--games", "6", "--out", str(link)[:-5]])
    replaced(link, target)


def test_a_ladder_and_ckc_plot_over_links_replace_the_links(tmp_path):
    pytest.importorskip("openskill")
    pytest.importorskip("matplotlib")
    from ckc_env.evaluation.commands import ladder, plot

    links = [planted(tmp_path, name) for name in ("rated_3p.json", "ladder.png")]
    argv = ["random", "passive", "eager", "--tables", "2", "--games-per-table", "6", "--held-out", "1"]
    ladder.main([*argv, "--out", str(tmp_path / "rated"), "--plot", str(tmp_path / "ladder.png"), "--no-progress"])
    for link, target in links:
        replaced(link, target)
    link, target = planted(tmp_path, "again.png")
    plot.main(["run", str(Path(__file__).resolve().parents[1] / "checkpoints/ppo_5p_distilled"), "--out", str(link)])
    replaced(link, target)


def test_a_benchmarks_json_over_a_link_replaces_the_link(tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import bench_agents

    link, target = planted(tmp_path, "bench.json")
    bench_agents.main(["--agents", "random", "--games", "1", "--repeats", "1", "--json", str(link)])
    replaced(link, target)


# ---------------------------------------------------------------------------------------------- checks before the work
def no_games(monkeypatch) -> None:
    """Any game played fails the test: the refusal must come first."""

    def played(*args, **kwargs):
        raise AssertionError("a game was played before the output was checked")

    for name in ("run_tournament", "round_robin", "compare"):
        monkeypatch.setattr(evaluate, name, played)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--plot", "x.txt"], ["--plot", "x.txt", "must end in", ".png"]),
        (["--plot", "x"], ["--plot", "must end in", "not nothing"]),
        (["--out", "{file}/results"], ["--out", "is a file, not a folder"]),
        (["--plot", "{folder}"], ["is a folder, not a regular file"]),
    ],
    ids=["format", "no suffix", "file as folder", "folder as file"],
)
def test_ckc_evaluate_refuses_a_bad_output_before_a_game(tmp_path, capsys, monkeypatch, extra, words):
    pytest.importorskip("matplotlib")
    (tmp_path / "file").write_text("mine")
    (tmp_path / "folder.png").mkdir()
    extra = [e.format(file=tmp_path / "file", folder=tmp_path / "folder.png") for e in extra]
    no_games(monkeypatch)
    before = sorted(p.name for p in tmp_path.iterdir())
    monkeypatch.chdir(tmp_path)
    refused(capsys, lambda: evaluate.main(["--lineup", "random", "random", "random", *extra]), *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_ckc_ladder_and_ckc_plot_refuse_a_bad_output_before_any_work(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from ckc_env.evaluation import plots
    from ckc_env.evaluation.commands import ladder, plot

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(ladder, "rated_ladder", lambda *a, **k: pytest.fail("a ladder was played"))
    refused(capsys, lambda: ladder.main(["random", "passive", "eager", "--plot", "x.txt"]), "--plot", "must end in")
    monkeypatch.setattr(plots, "read_json", lambda *a, **k: pytest.fail("a file was read"))
    refused(capsys, lambda: plot.main(["results", "a.json", "--out", "x.txt"]), "--out", "must end in")
    assert list(tmp_path.iterdir()) == []


def test_ckc_play_refuses_a_bad_video_or_replay_path_before_the_game(replay, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(play.Replay, "load", lambda *a, **k: pytest.fail("the replay was read"))
    refused(capsys, lambda: play.main(["--replay", str(replay), "--video", str(tmp_path / "x.avi")]), ".mp4 or .gif")
    (tmp_path / "file").write_text("mine")
    refused(
        capsys,
        lambda: play.main(["--replay", str(replay), "--video", str(tmp_path / "file" / "x.gif")]),
        "is a file, not a folder",
    )
    monkeypatch.setattr(play, "play_game", lambda *a, **k: pytest.fail("a game was played"))
    (tmp_path / "taken").mkdir()
    refused(capsys, lambda: play.main(["--players", "3", "--save-replay", str(tmp_path / "taken")]), "is a folder")
    assert not (tmp_path / "x.avi").exists()


def test_a_writer_that_fails_leaves_the_old_file_and_no_temporary_file(tmp_path):
    old = tmp_path / "result.json"
    old.write_text("old")
    with pytest.raises(RuntimeError), atomic_output(old) as temporary:
        temporary.write_text("half")
        raise RuntimeError("the encoder died")
    assert old.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]
    pytest.importorskip("matplotlib")
    from ckc_env.evaluation import plots

    picture = tmp_path / "plot.png"
    picture.write_bytes(b"old picture")
    figure = plots._pyplot().figure()
    figure.savefig = lambda *a, **k: (_ for _ in ()).throw(OSError("disk full"))
    with pytest.raises(OSError):
        plots._save(figure, picture)
    assert picture.read_bytes() == b"old picture" and sorted(p.name for p in tmp_path.iterdir()) == [
        "plot.png",
        "result.json",
    ]


def test_check_output_creates_nothing_and_names_what_is_in_the_way(tmp_path):
    assert check_output(tmp_path / "new" / "deep" / "file.json", "--out") == tmp_path / "new" / "deep" / "file.json"
    assert list(tmp_path.iterdir()) == []
    os.mkfifo(tmp_path / "pipe.json")
    with pytest.raises(InputError, match="is a FIFO"):
        check_output(tmp_path / "pipe.json", "--out")
    with pytest.raises(InputError, match="is a FIFO"):
        write_atomic(tmp_path / "pipe.json", "x")
    os.symlink(tmp_path / "nowhere", tmp_path / "dangling")
    with pytest.raises(InputError, match="a link to nothing"):
        check_output(tmp_path / "dangling" / "file.json", "--out")


# ---------------------------------------------------------------------------------------------- one file, one judgement
@pytest.mark.parametrize("content", ["num_players: 7\n", "stasi: maybe\n", "first_player: 9\n"])
def test_every_command_judges_a_rules_file_the_same_way(tmp_path, capsys, content):
    rules = tmp_path / "rules.yaml"
    rules.write_text(content)
    first = refused(capsys, lambda: play.main(["--players", "3", "--rules", str(rules)], console=console()))
    second = refused(capsys, lambda: evaluate.main(["--lineup", "random", "random", "random", "--rules", str(rules)]))
    assert str(rules) in first and str(rules) in second
    key = content.split(":")[0]
    assert key in first and key in second


def test_ckc_play_takes_the_player_count_of_its_rules_file(tmp_path, capsys):
    rules = tmp_path / "four.yaml"
    rules.write_text("num_players: 4\nstasi: true\n")
    path = tmp_path / "game.json"
    assert play.main(["--rules", str(rules), "--seed", "2", "--save-replay", str(path)], console=console()) == 0
    assert json.loads(path.read_text())["config"]["num_players"] == 4
    refused(capsys, lambda: play.main(["--rules", str(rules), "--players", "3"], console=console()), "num_players: 4")


def test_names_and_paths_are_printed_escaped(tmp_path, capsys):
    name = tmp_path / "game\x1b[2J.json"
    assert play.main(["--players", "3", "--seed", "1", "--save-replay", str(name)], console=console()) == 0
    assert name.is_file()
    evaluate.main(["--lineup", "random", "random", "random", "--games", "3", "--out", str(tmp_path / "r\x1b[31m")])
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[31m" in err


def test_the_pgx_class_refuses_an_unknown_option_as_a_value_error():
    pytest.importorskip("jax")
    from ckc_env.jax.pgx_env import CheckpointCharlie

    with pytest.raises(ValueError, match=r"unknown game option\(s\) \['stasi2'\]"):
        CheckpointCharlie(stasi2=True)
