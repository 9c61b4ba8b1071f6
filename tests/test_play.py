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
from ckc_env.agents import REGISTRY, make_agent
from ckc_env.engine import scoring
from ckc_env.engine.cards import cat_name
from ckc_env.engine.view import PlayerView
from ckc_env.terminal import play
from ckc_env.terminal.human import PlayerQuitError, cat_from_text, next_drawer, points_text
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


def _adler_game(tmp_path, seed: int) -> tuple[str, Replay]:
    """A Cafe Adler game of a Person at seat 0 against eager and random: the screen and the replay."""
    screen = console()
    rules, path = tmp_path / "adler.yaml", tmp_path / f"adler{seed}.json"
    rules.write_text(json.dumps({"cafe_adler": True}))
    argv = ["--seat", "0", "--opponents", "eager", "random", "--seed", str(seed), "--rules", str(rules)]
    assert play.main([*argv, "--save-replay", str(path)], console=screen, ask=Person(screen)) == 0
    return screen.file.getvalue(), Replay.load(path)


def _adler_chips_received(replay: Replay, seat: int) -> list[int]:
    """The rounds (1-based) whose scoring gave ``seat`` a hidden Cafe Adler chip."""
    rounds, held, last_round = [], 0, 0
    for _, state in replay.states():
        now = len(scoring.hidden_adler_chips(state, seat))
        if now > held:
            rounds.append(last_round + 1 if not state.game_over else len(state.summaries))
        held, last_round = now, state.round_index
    return rounds


def test_a_cafe_adler_chip_is_announced_when_it_is_received(tmp_path):
    """Only its holder knows a chip is a Cafe Adler chip (RULES.md 8): the person is told at the
    scoring that hands it out, also when no swap is possible then (nobody else holds that colour),
    and the seat table marks it."""
    unoffered = 0
    for seed in (11, 15):  # games in which the person takes a Cafe Adler chip no swap is possible for
        text, replay = _adler_game(tmp_path, seed)
        received = _adler_chips_received(replay, 0)
        assert received and text.count("You took a hidden Cafe Adler chip") == len(received)
        for round_ in received:
            scoring_block = text.split(f"End of round {round_}:")[1].split("End of round")[0].split("─ round")[0]
            assert "You took a hidden Cafe Adler chip (" in scoring_block
            unoffered += "Cafe Adler: keep your hidden" not in scoring_block
        assert "(hidden Cafe Adler: " in text
    assert unoffered  # the case a person had no other way to learn of


def test_the_player_who_draws_next_is_marked():
    """ "(draws next)" marks the player who draws the next card: the drawer's neighbour after a cat,
    the drawer again after an investigator card, the first player before the round's first card,
    nobody once the deck is empty or the round is being scored."""
    checked = 0
    for players, seed in ((3, 1), (4, 2), (5, 3)):
        config = GameConfig(num_players=players, cafe_adler=True, clue_face="choose")
        agents = [make_agent("random", seed=seed + s) for s in range(players)]
        replay = play.play_game(config, agents, seed, ["random"] * players)
        predicted = []
        for _, state in replay.states():
            if not state.game_over:
                view = PlayerView(state, state.current_seat)
                predicted.append((state.round_index, len(state.card_order), next_drawer(view), state.phase))
        summaries = state.summaries
        for round_index, drawn, drawer, _phase in predicted:
            cards = summaries[round_index]["cards"]
            if drawn < len(cards):  # a card was drawn after this decision, in the same round
                assert drawer == cards[drawn][0]
                checked += 1
            elif drawer is not None:  # no card after it: only an accusation that ended the round
                assert any(r["cards_drawn"] == drawn for r in summaries[round_index]["accusations"])
    assert checked > 50


def test_the_seat_table_marks_who_draws_next(tmp_path):
    """On screen: in the window after player_k drew a cat, "(draws next)" marks player_k+1."""
    screen = console()
    argv = ["--seat", "0", "--opponents", "random", "--players", "3", "--seed", "4"]
    play.main([*argv, "--save-replay", str(tmp_path / "r")], console=screen, ask=Person(screen))
    text = screen.file.getvalue()
    assert "(draws)" not in text
    windows = re.findall(
        r"^│ player_(\d)[^│\n]*\(draws next\).*\n(?:│.*\n)*└.*\nAccusation window: player_(\d) drew \d+:", text, re.M
    )
    assert windows and all(int(marked) == (int(drawer) + 1) % 3 for marked, drawer in windows)


def test_points_are_singular_or_plural(tmp_path):
    assert [points_text(n) for n in (-2, -1, 0, 1, 2, 10)] == [
        "-2 points",
        "-1 point",
        "0 points",
        "1 point",
        "2 points",
        "10 points",
    ]
    text, _ = _adler_game(tmp_path, 11)
    assert not re.search(r"(?<!\d)1 points", text)


def _pausing_person(screen: Console, at_pause: list[str]) -> tuple[Person, list[str]]:
    """A Person who, at each "Enter: next round", types the next of ``at_pause`` (then Enter alone)."""
    person, prompts = Person(screen), []

    def ask(prompt: str) -> str:
        if "Enter: next round" not in prompt:
            return person(prompt)
        prompts.append(prompt)
        screen.print(prompt, end="")
        answer = at_pause.pop(0) if at_pause else ""
        screen.print(answer)
        return answer

    return ask, prompts


def test_text_typed_at_the_pause_between_rounds_is_not_lost(tmp_path):
    """What a person types at "Enter: next round" answers the next question (shown there), as text
    typed ahead in a terminal does; "quit" there leaves the game."""
    config = GameConfig(num_players=3)
    screen = console()
    ask, prompts = _pausing_person(screen, ["?", "t"])
    opponents = ["random", "random"]
    replay = play.play_human(config, 0, opponents, 4, screen, ask, tmp_path / "game.json", pause=True)
    text = screen.file.getvalue()
    assert replay.finished and len(prompts) >= 2
    assert text.count(" > ? (typed at the pause)") == 1 and text.count(" > t (typed at the pause)") == 1
    after = text.split(" > ? (typed at the pause)")[1]
    assert after.lstrip().startswith("How to answer")  # the help, then the question again
    screen = console()
    ask, _ = _pausing_person(screen, ["quit"])
    with pytest.raises(PlayerQuitError):
        play.play_human(config, 0, opponents, 4, screen, ask, tmp_path / "left.json", pause=True)
    left = Replay.load(tmp_path / "left.json")
    assert not left.finished and "Game left after" in screen.file.getvalue()
    assert "─ round 2 ─" not in screen.file.getvalue().split("Enter: next round")[1]  # left at once


def test_the_help_names_every_registered_agent():
    """The player specs in ckc-play's help come from the registry (bayes_v3 and rollout included)."""
    text = play.build_parser().format_help()
    epilog = text.split("Players are specs")[1]
    options = text.split("options:")[1]
    opponents = " ".join(options.split("--opponents PLAYER")[1].split("--players")[0].split())
    for name in REGISTRY:
        assert name in epilog.split("NAME:KEY=VALUE")[0] and name in opponents, name
    assert "AGENT_NAMES" not in text
