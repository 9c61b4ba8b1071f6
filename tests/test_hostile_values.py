"""Hostile values: keys of mixed types, numbers longer than Python converts, replay actions and seeds
out of range, counts and seeds beyond every bound, an RLlib checkpoint without ray. Each ends in a
named error at once: exit status 2 from a command, a ValueError from the Python API, the culprit
(file, flag or parameter, the value or the accepted range) in the message, never a traceback, a
hang or a run without end. (The OpenSpiel ones, parameters of ISMCTS and of ``load_game``, are in
tests/test_openspiel.py, which CI runs where open_spiel is installed.)"""

from __future__ import annotations

import importlib.util
import io
import json
import time
from pathlib import Path

import pytest

from ckc_env import cli, players
from ckc_env.config import GameConfig, load_rules
from ckc_env.evaluation.commands import evaluate
from ckc_env.evaluation.tournament import round_robin, run_tournament
from ckc_env.files import InputError, read_json, read_yaml, short
from ckc_env.terminal import play
from ckc_env.terminal.replay import Replay

FAST = ["random", "passive", "eager"]
DIGITS = 5000
"""More digits than Python converts to an int (4300)."""


def refused(call, capsys) -> str:
    """Run a command's ``main``: it must end with exit status 2 well within 10 s (a bounded input never
    hangs; each takes a fraction of a second here); its stderr, on one line."""
    capsys.readouterr()
    started = time.perf_counter()
    with pytest.raises(SystemExit) as info:
        call()
    assert time.perf_counter() - started < 10.0
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2, err
    assert "Traceback" not in err
    return err


def rules_commands(path: Path) -> dict:
    """The commands that read a rules file (ckc-train reads a training config through the same loader)."""
    return {
        "ckc-evaluate --rules": lambda: evaluate.main(["--lineup", *FAST, "--rules", str(path), "--no-progress"]),
        "ckc-play --rules": lambda: play.main(["--rules", str(path)]),
    }


def train_main():
    pytest.importorskip("sb3_contrib", reason="ckc-train needs the train extra")
    from ckc_env.training.commands import train

    return train.main


# ---------------------------------------------------------------------------------------------- 1. keys of mixed types
@pytest.mark.parametrize(
    "text, key",
    [
        ("stasi: true\n1: 2\nfoo: 3\n", "1"),  # a number beside names (sorting them was a TypeError)
        ("~: 1\nstasi: true\n", "None"),  # YAML's null as a key
        ("stasi: true\non: 2\nfoo: 3\n", "True"),  # YAML 1.1 reads on as true
    ],
    ids=["number", "null", "on"],
)
def test_keys_of_mixed_types_are_named(tmp_path, capsys, text, key):
    rules = tmp_path / "rules.yaml"
    rules.write_text(text)
    for name, call in rules_commands(rules).items():
        err = refused(call, capsys)
        assert "rules.yaml" in err and key in err, name
    accepted = "accepted game options are ['num_players', 'first_player'"
    assert accepted in refused(rules_commands(rules)["ckc-play --rules"], capsys)
    for call in (lambda: GameConfig.from_yaml(rules), lambda: load_rules(rules)):
        with pytest.raises(ValueError, match=rf"rules\.yaml: unknown game option\(s\) \[.*{key}.*\]") as info:
            call()
        assert accepted in str(info.value)
    with pytest.raises(ValueError, match=r"unknown game option\(s\) \['foo', None, 1\]: accepted options are"):
        GameConfig.from_dict({"stasi": True, 1: 2, None: 3, "foo": 4})


@pytest.mark.parametrize(
    "text, key, where",
    [
        ("seed: 0\n1: 2\nfoo: 3\n", "key 1", "at the top level"),
        ("seed: 0\ngame: {stasi: true, ~: 2}\n", "key None", "in game"),
        ("seed: 0\nopponents: {3: random, four: random}\n", "key 3", "in opponents"),
    ],
)
def test_a_training_config_with_keys_of_mixed_types_is_refused(tmp_path, capsys, text, key, where):
    config = tmp_path / "train.yaml"
    config.write_text(text)
    main = train_main()
    err = refused(lambda: main([str(config), "--run-dir", str(tmp_path / "run"), "--no-progress"]), capsys)
    assert "train.yaml" in err and f"{key} {where}" in err


def test_a_mapping_by_player_count_still_loads(tmp_path):
    config = tmp_path / "train.yaml"
    config.write_text("seed: 0\nopponents: {3: random, 5: [eager, random, random, random]}\n")
    from ckc_env.config import load_yaml_mapping

    assert load_yaml_mapping(config)["opponents"][5][0] == "eager"


# ---------------------------------------------------------------------------------------------- 2. numbers too long
def test_an_integer_longer_than_python_converts_names_the_file(tmp_path, capsys):
    rules = tmp_path / "long.yaml"
    rules.write_text("num_players: " + "9" * DIGITS + "\n")
    with pytest.raises(
        InputError, match=rf"(?s)long\.yaml: an integer of {DIGITS} digits: .* at most 4,300 digits.*line 1"
    ):
        read_yaml(rules)
    for name, call in rules_commands(rules).items():
        err = refused(call, capsys)
        assert "long.yaml" in err and f"{DIGITS} digits" in err, name
    main = train_main()
    err = refused(lambda: main([str(rules), "--no-progress"]), capsys)
    assert "long.yaml" in err and f"{DIGITS} digits" in err

    hexadecimal = tmp_path / "hex.yaml"  # converted (base 16 has no limit), then too long to print
    hexadecimal.write_text("num_players: 0x" + "f" * DIGITS + "\n")
    with pytest.raises(ValueError, match=r"hex\.yaml: invalid num_players=<an integer of about 6,020 digits>"):
        GameConfig.from_yaml(hexadecimal)
    assert short(16**DIGITS) == "<an integer of about 6,020 digits>"

    replay = tmp_path / "long.json"
    replay.write_text('{"format": "ckc-replay", "seed": ' + "9" * DIGITS + "}")
    with pytest.raises(InputError, match=rf"long\.json is not valid JSON: an integer of {DIGITS} digits"):
        read_json(replay, "replay file")
    err = refused(lambda: play.main(["--replay", str(replay), "--no-pause"]), capsys)
    assert "long.json" in err and f"{DIGITS} digits" in err


def test_a_value_yaml_cannot_build_names_the_file_and_the_line(tmp_path):
    rules = tmp_path / "date.yaml"
    rules.write_text("stasi: true\nfirst_player: 2020-13-45\n")
    with pytest.raises(
        InputError, match=r"(?s)date\.yaml: cannot read the value '2020-13-45': month must be .* line 2"
    ):
        read_yaml(rules)
    rules.write_text("stasi: !!timestamp never\n")
    with pytest.raises(InputError, match=r"date\.yaml: cannot read the value 'never'"):
        read_yaml(rules)


# ---------------------------------------------------------------------------------------------- 3. replays
@pytest.fixture
def replay_file(tmp_path) -> Path:
    path = tmp_path / "game.json"
    play.main(["--players", "3", "--seed", "1", "--save-replay", str(path)], console=_quiet())
    return path


def _quiet():
    from rich.console import Console

    return Console(file=io.StringIO())


def _edited(path: Path, **changes) -> Path:
    data = json.loads(path.read_text())
    for key, change in changes.items():
        data[key] = change(data[key]) if callable(change) else change
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "action, shown",
    [(40, "40"), (-1, "-1"), (10**30, "1000000000000000000000000000000"), ("pass", "'pass'"), (True, "True")],
)
def test_a_replay_action_out_of_range_names_the_file_and_the_step(replay_file, capsys, action, shown):
    _edited(replay_file, actions=lambda actions: [*actions[:3], action, *actions[4:]])
    message = rf"game\.json: step 4 of \d+ has action {shown}: actions are integers from 0 to 39"
    with pytest.raises(ValueError, match=message):
        Replay.load(replay_file)
    assert "step 4 of" in refused(lambda: play.main(["--replay", str(replay_file), "--no-pause"]), capsys)


def test_an_illegal_replay_action_names_the_step_and_the_legal_actions(replay_file, capsys):
    from ckc_env import engine

    replay = Replay.load(replay_file)
    legal = next(engine.legal_actions(state) for step, state in replay.states() if step == 3)
    illegal = next(a for a in range(40) if a not in legal)
    _edited(replay_file, actions=lambda actions: [*actions[:3], illegal, *actions[4:]])
    err = refused(lambda: play.main(["--replay", str(replay_file), "--no-pause"]), capsys)
    assert f"game.json: step 4 does not fit the game: illegal action {illegal} for seat" in err
    assert "legal actions are " + ", ".join(f"{a} (" for a in legal[:1]) in err


def test_a_replay_that_goes_on_after_the_game_ended_is_refused(replay_file, capsys):
    _edited(replay_file, actions=lambda actions: [*actions, 0])
    err = refused(lambda: play.main(["--replay", str(replay_file), "--no-pause"]), capsys)
    assert "game.json: step" in err and "a finished game takes no more actions" in err


@pytest.mark.parametrize("seed", [2**64, 2**70, -1, 1.5])
def test_a_replay_seed_out_of_range_is_named_shortly(replay_file, capsys, seed):
    _edited(replay_file, seed=seed)
    err = refused(lambda: play.main(["--replay", str(replay_file), "--no-pause"]), capsys)
    assert f"game.json: seed must be an integer from 0 to 2**64 - 1, got {short(seed)}" in err
    _edited(replay_file, seed=10**300)
    with pytest.raises(ValueError, match=r"got 1000000000+\.\.\.0000000000+$"):
        Replay.load(replay_file)


# ---------------------------------------------------------------------------------------------- 4. counts and seeds
def test_games_are_bounded(capsys):
    huge = str(10**30)
    err = refused(lambda: evaluate.main(["--lineup", *FAST, "--games", huge, "--no-progress"]), capsys)
    assert f"argument --games: {huge} is out of range: accepted values are integers from 1 to 1000000" in err
    err = refused(lambda: evaluate.main(["--round-robin", *FAST, "bayes_v1", "--games", huge, "--no-progress"]), capsys)
    assert "accepted values are integers from 1 to 1000000" in err
    with pytest.raises(
        ValueError, match=r"games must be a positive integer, got 1000.*: accepted values are 1 to 1,000,000"
    ):
        run_tournament(list(FAST), games=10**30)  # the Python API bounds it too
    err = refused(lambda: play.main(["--games", str(cli.MAX_GAMES + 1)]), capsys)
    assert "argument --games: 1000001 is out of range: accepted values are integers from 1 to 1000000" in err
    for call in (
        lambda: run_tournament(FAST, games=cli.MAX_GAMES + 1),
        lambda: round_robin(FAST, 3, games=10**30),
    ):
        with pytest.raises(ValueError, match="accepted values are 1 to 1,000,000"):
            call()
    assert "1 to 1,000,000" in " ".join(play.build_parser().format_help().split())


@pytest.mark.parametrize("seed", [str(2**64), str(10**30), "9" * DIGITS, "-1"])
def test_seeds_are_bounded_on_every_command(capsys, seed):
    shown = seed if len(seed) < 40 else seed[:10]
    err = refused(lambda: play.main(["--seed", seed]), capsys)
    assert (
        "argument --seed:" in err
        and shown in err
        and "accepted values are integers from 0 to 18446744073709551615" in err
    )
    err = refused(lambda: evaluate.main(["--lineup", *FAST, "--games", "3", "--seed", seed, "--no-progress"]), capsys)
    assert "seed" in err and (shown in err or f"({DIGITS:,} digits)" in err)
    assert "18446744073709551615" in err or "integers >= 0" in err  # its argparse bound, or run_tournament's
    assert len(err) < 2000


def test_seeds_and_workers_are_bounded_in_the_python_api():
    for kwargs, message in (
        (
            {"seed": 2**64},
            r"invalid seed=18446744073709551616: accepted values are integers from 0 to 18446744073709551615",
        ),
        ({"seed": -1}, r"invalid seed=-1"),
        ({"seed": 1.5}, r"invalid seed=1\.5"),
        ({"workers": 10**9}, r"invalid workers=1000000000: accepted values are integers from 1 to 256"),
    ):
        with pytest.raises(ValueError, match=message):
            run_tournament(FAST, games=3, **kwargs)
    with pytest.raises(ValueError, match="invalid seed"):
        round_robin(FAST, 3, games=3, seed=2**64)
    assert run_tournament(FAST, games=6, seed=cli.MAX_SEED).games == 6


def test_an_integer_argument_is_shown_shortened():
    import argparse

    for parse in (cli.integer(1), cli.games(), cli.seed()):
        with pytest.raises(argparse.ArgumentTypeError) as info:
            parse("7" * DIGITS)
        assert len(str(info.value)) < 200 and f"({DIGITS:,} digits) is out of range" in str(info.value)


# ---------------------------------------------------------------------------------------------- 7. an RLlib checkpoint without ray
@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed: the checkpoint would load")
def test_an_rllib_checkpoint_without_ray_names_the_extra(rllib_checkpoint, capsys):
    extra = 'needs the rllib extra (ray not installed): pip install -e ".[rllib]"'
    for command in (
        lambda: evaluate.main(["--lineup", rllib_checkpoint, "random", "random", "--games", "3", "--trust-checkpoint"]),
        lambda: evaluate.main(
            [
                "--lineup",
                rllib_checkpoint,
                "random",
                "random",
                "--games",
                "3",
                "--trust-checkpoint",
                "--engine",
                "scalar",
            ]
        ),
        lambda: play.main(["--opponents", rllib_checkpoint, "--players", "3", "--trust-checkpoint"]),
    ):
        err = refused(command, capsys)
        assert "is an RLlib checkpoint" in err and extra in err
    for call in (
        lambda: players.validate(rllib_checkpoint, trust_checkpoint=True),
        lambda: players.build(rllib_checkpoint, seed=0, trust_checkpoint=True),
        lambda: run_tournament([rllib_checkpoint, "random", "random"], games=3, trust_checkpoint=True, workers=1),
    ):
        with pytest.raises(ValueError, match=r"is an RLlib checkpoint: this needs the rllib extra"):
            call()
