"""ckc-play: a person at the table (scripted input, typos and illegal choices included), replays,
and the games between computer players."""

import io
import json
import re
import subprocess
import sys

import pytest
from rich.console import Console

from ckc_env import GameConfig
from ckc_env.engine.cards import cat_name
from ckc_env.terminal import play
from ckc_env.terminal.human import cat_from_text
from ckc_env.terminal.replay import Replay


class Person:
    """Answers like a careless person reading the screen: at each question a typo, a cat number
    out of range, a cat that is not a legal target, a pass where it may be refused, and a look at
    the help, then a choice read from the screen's ``legal:`` line (alternately the first and the
    last one listed)."""

    MISTAKES = ("HsTnX", "99", "ILLEGAL", "?")

    def __init__(self, console: Console, quit_at: int | None = None) -> None:
        self.console = console
        self.questions = 0
        self.queue: list[str] = []
        self.quit_at = quit_at

    def __call__(self, prompt: str) -> str:
        self.console.print(prompt, end="")  # as Console.input shows it
        screen = self.console.file.getvalue()
        legal = [item.strip() for item in screen.rsplit("legal:", 1)[1].splitlines()[0].split(",")]
        if not self.queue:
            self.questions += 1
            if self.quit_at == self.questions:
                return "quit"
            refused_pass = [] if "pass" in legal else ["pass"]  # a forced accusation, or no accusation at all
            self.queue = [*self.MISTAKES, *refused_pass, "CHOICE"]
        answer = self.queue.pop(0)
        if answer == "ILLEGAL":  # the lowest cat that is not a legal target now
            targets = {int(item.split(":")[0]) for item in legal if ":" in item}
            answer = str(min(set(range(32)) - targets))
        elif answer == "CHOICE":
            item = legal[self.questions % 2 - 1]
            cat = item.split(":")
            answer = cat_name(int(cat[0])) if len(cat) == 2 else item.split(" (")[0]
        self.console.print(answer)
        return answer


def console() -> Console:
    return Console(file=io.StringIO(), width=150, color_system=None, highlight=False)


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"stasi": True, "cafe_adler": True, "clue_face": "choose"},  # every kind of decision
    ],
    ids=["base", "variants"],
)
def test_a_person_plays_a_whole_game_through_the_terminal(tmp_path, rules):
    screen = console()
    person = Person(screen)
    rules_file = tmp_path / "rules.yaml"
    rules_file.write_text(json.dumps(rules))  # JSON is YAML
    path = tmp_path / "game.json"
    seed = 12 if rules else 11  # seed 12: a game in which the person gets a Cafe Adler decision
    argv = [
        "--seat",
        "1",
        "--opponents",
        "bayes_v1",
        "eager",
        "random",
        "--seed",
        str(seed),
        "--rules",
        str(rules_file),
    ]
    assert play.main([*argv, "--save-replay", str(path)], console=screen, ask=person) == 0
    text = screen.file.getvalue()
    assert person.questions >= 3
    # Every mistake got its reason and the legal choices, and the question again.
    accusations = text.count("accuse a cat or pass >") + text.count("accuse a cat (you must) >")
    assert text.count("'HsTnX' is not a cat: a cat is a number from 0 to 31 or five letters") >= accusations // 5 > 0
    assert "there is no cat 99" in text
    assert re.search(r"(lies on player_\d's discard pile|is in no row|was already accused by player_\d)", text)
    assert text.count("legal now:") >= 3 * person.questions
    assert "How to answer" in text
    # What the seat may see: its own clue, the others' as "?", the round's end revealing all.
    assert "(you)" in text and "Your clue:" in text and "End of round 1: the clues are revealed" in text
    assert "Game over" in text and "wins" in text
    # Everything public: the supply of each colour; at the end every chip's value, the outcome in words.
    assert "supply: gold " in text and ", white " in text and ", black " in text
    assert "Every chip is turned over" in text and re.search(r"player_\d \(\w+\): [+-]\d", text)
    assert "(human)" not in text and "winners [" not in text and "colour_used_up" not in text
    assert re.search(r"(wins|share the win)\n", text)
    if rules:  # the variants' decisions, and their own answers to mistakes
        assert "choose your clue face: a (" in text
        assert "Cafe Adler: keep your hidden" in text and "answer keep, or swap N" in text
        # the round's scoring is shown before the person's Cafe Adler decision
        adler = re.search(r"Cafe Adler: keep your hidden (gold|white|black)", text).start()
        assert text.rfind("the clues are revealed", 0, adler) > text.rfind("accuse a cat", 0, adler)
    # The replay file plays back to the same game.
    replay = Replay.load(path)
    assert replay.finished and replay.players == ["bayes_v1", "human", "eager", "random"]
    assert replay.config == GameConfig.from_dict({**rules, "num_players": 4}) and replay.seed == seed
    *_, (steps, state) = replay.states()
    assert steps == len(replay.actions) and state.game_over
    assert state.final["totals"] == replay.result["totals"]


def test_the_seat_table_hides_the_other_seats_clues(tmp_path):
    screen = console()
    argv = [
        "--seat",
        "0",
        "--opponents",
        "random",
        "--players",
        "3",
        "--seed",
        "4",
        "--save-replay",
        str(tmp_path / "r"),
    ]
    play.main(argv, console=screen, ask=Person(screen))
    text = screen.file.getvalue()
    for block in text.split("End of round")[:1]:  # before the first scoring
        rows = [line for line in block.splitlines() if line.startswith("│ player_") and "(you)" not in line]
        assert rows and all(line.split("│")[2].strip() == "?" for line in rows)


def test_quitting_keeps_the_replay_so_far(tmp_path):
    screen = console()
    path = tmp_path / "left.json"
    argv = ["--seat", "2", "--opponents", "bayes_v1", "--players", "4", "--seed", "3", "--save-replay", str(path)]
    assert play.main(argv, console=screen, ask=Person(screen, quit_at=2)) == 1
    replay = Replay.load(path)
    assert not replay.finished and replay.actions
    assert "Game left after" in screen.file.getvalue()


def test_replay_shows_the_game_step_by_step(tmp_path):
    path = tmp_path / "random.json"
    screen = console()
    assert play.main(["--players", "4", "--seed", "2", "--save-replay", str(path)], console=screen) == 0
    replay = Replay.load(path)
    shown = console()
    assert play.main(["--replay", str(path), "--no-pause"], console=shown) == 0
    text = shown.file.getvalue()
    assert f"step {len(replay.actions)}/{len(replay.actions)}" in text
    assert "hidden clues:" in text and "game over" in text


def test_a_replay_that_does_not_fit_the_game_is_refused(tmp_path, capsys):
    path = tmp_path / "random.json"
    play.main(["--players", "3", "--seed", "2", "--save-replay", str(path)], console=console())
    data = json.loads(path.read_text())
    data["actions"][0] = 39  # swap with seat +4: never legal in a window
    path.write_text(json.dumps(data))
    with pytest.raises(SystemExit) as info:
        play.main(["--replay", str(path), "--no-pause"], console=console())
    assert info.value.code == 2
    assert "step 1 does not fit the game: illegal action 39" in capsys.readouterr().err


def test_games_between_computer_players(capsys):
    screen = console()
    play.main(["--games", "20", "--seed", "1", "--opponents", "bayes_v1", "random", "random"], console=screen)
    text = screen.file.getvalue()
    assert "20 games of bayes_v1, random, random:" in text and text.count("win share") == 3
    screen = console()
    play.main(["--players", "5", "--seed", "0", "--render"], console=screen)
    text = screen.file.getvalue()
    assert "round 1: clues" in text and "game over" in text and "Checkpoint Charlie: 5 players" in text


BAD = [
    (["--seat", "7"], "--seat 7 is not a seat of a 5-player game: seats are 0 to 4"),
    (["--seat", "5", "--opponents", "random", "random"], "--seat 5 is not a seat of a 3-player game: seats are 0 to 2"),
    (["--seat", "-1"], "argument --seat: -1 is out of range: accepted values are integers >= 0"),
    (["--seat", "3", "--players", "3"], "--seat 3 is not a seat of a 3-player game: seats are 0 to 2"),
    (["--seat", "0", "--opponents", "nobody"], "unknown player 'nobody'"),
    (["--seat", "0", "--opponents", "random", "random", "--players", "5"], "4 opponents"),
    (["--seat", "0", "--rules", "missing.yaml"], "no rules preset or file 'missing.yaml': presets are"),
    (["--games", "0"], "argument --games: 0 is out of range"),
    (
        ["--seed", "-1"],
        "argument --seed: -1 is out of range: accepted values are integers from 0 to 18446744073709551615",
    ),
    (["--seat", "0", "--games", "3"], "a person plays one game"),
    (["--seat", "0", "--opponents", *["random"] * 5], "5 opponents and you make 6 players: a game has 3 to 5"),
    (["--seat", "0", "--render"], "--render is for games between computer players"),
    (["--no-pause"], "--no-pause goes with --replay"),
    (["--replay", "nowhere.json"], "cannot read replay file nowhere.json"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_arguments_end_with_a_usage_message(argv, message, capsys):
    with pytest.raises(SystemExit) as info:
        play.main(argv, console=console())
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "usage: ckc-play" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "cat"), [("HsTnG", 0b10101), ("hstng", 0), ("HSTNG", 31), ("13", 13), ("0", 0), ("hSTnG", 0b10110)]
)
def test_cats_by_name_or_number(text, cat):
    assert cat_from_text(text) == cat and cat_name(cat) == (text if not text.isdigit() else cat_name(cat))


@pytest.mark.parametrize("text", ["HsTn", "HsTnGx", "SHTNG", "32", "-1", "cat"])
def test_what_is_not_a_cat(text):
    assert isinstance(cat_from_text(text), str)


def test_the_console_command_with_a_person_who_quits_or_whose_input_ends(tmp_path):
    """The installed entry point as a person starts it: typed input from stdin; 'quit' or the end of
    input leaves the game with status 1, no traceback, and the replay so far."""
    for typed in ("pass\nquit\n", ""):
        done = subprocess.run(
            [sys.executable, "-m", "ckc_env.terminal.play", "--seat", "0", "--opponents", "random", "--players", "3"],
            input=typed,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and "Game left after" in done.stdout
    assert len(list((tmp_path / "replays").glob("seed*.json"))) == 2
