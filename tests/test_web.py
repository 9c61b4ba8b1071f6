"""``ckc-serve``: the table in a browser. Its HTTP interface (what a client may send, the errors it
gets, nothing changed by a refused request) and, in a real headless browser (Playwright driving
Debian's chromium), a whole game played by clicks and a replay stepped to its end."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("PIL", reason="ckc-serve needs the web extra")
from ckc_env.terminal import play
from ckc_env.web import command
from ckc_env.web.server import MAX_BODY, start
from ckc_env.web.tables import Tables

ROOT = Path(__file__).resolve().parents[1]
AGENT = str(ROOT / "checkpoints" / "ppo_all_counts_mixed_34p")


@pytest.fixture(scope="module")
def replay_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("replays") / "game.json"
    assert play.main(["--players", "3", "--seed", "4", "--save-replay", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def server(replay_file):
    server = start(Tables([AGENT], [replay_file]))
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def call(url: str, method: str = "GET", body: bytes | None = None, kind: str = "application/json"):
    request = urllib.request.Request(url, data=body, method=method, headers={"Content-Type": kind})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read()) if "json" in response.headers["Content-Type"] else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def post(url: str, data) -> tuple[int, dict]:
    return call(url, "POST", json.dumps(data).encode())


def test_it_binds_to_this_machine_unless_told_and_serves_the_page(server):
    assert command.build_parser().parse_args([]).host == "127.0.0.1"
    with urllib.request.urlopen(server + "/", timeout=30) as response:
        assert b"Checkpoint Charlie" in response.read()
    status, options = call(server + "/api/options")
    assert status == 200 and AGENT in options["players"] and "bayes_v2" in options["players"]
    assert options["replays"][0]["name"] == "game.json" and options["counts"] == [3, 4, 5]


def test_a_game_is_the_seats_view_and_a_refused_request_changes_nothing(server):
    status, view = post(server + "/api/games", {"players": 3, "seat": 1, "opponents": ["random", AGENT], "seed": 5})
    assert status == 200 and view["seat"] == 1 and view["players"] == ["random", "you", AGENT]
    assert view["picture"].startswith("data:image/png;base64,") and view["choices"]
    game = server + "/api/games/" + view["game"]
    legal = {choice["action"] for choice in view["choices"]}
    illegal = next(a for a in range(40) if a not in legal)
    for body, status_code, words in [
        ({"action": illegal}, 400, "is not legal now"),
        ({"action": True}, 400, "is not legal now"),
        ({"move": 0}, 400, "unknown keys ['move']"),
        ([1, 2], 400, "must be a JSON object"),
    ]:
        status, answer = post(game + "/act", body)
        assert status == status_code and words in answer["error"], answer
    assert call(game + "/act", "POST", b"{not json")[1]["error"] == "the request body must be JSON"
    status, answer = call(game + "/act", "POST", b"{" + b" " * MAX_BODY + b"}")
    assert status == 413 and f"at most {MAX_BODY} bytes" in answer["error"]
    assert call(game)[1] == view  # nothing changed
    status, after = post(game + "/act", {"action": view["choices"][0]["action"]})
    assert status == 200 and after["decisions"] > view["decisions"]


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("/api/games", {"players": 6}, 400, "players must be an integer from 3 to 5"),
        ("/api/games", {"players": 3, "seat": 3}, 400, "seat must be an integer from 0 to 2"),
        ("/api/games", {"players": 3, "opponents": ["random"]}, 400, "a list of 2 players"),
        ("/api/games", {"players": 3, "opponents": ["random", "/etc/passwd"]}, 400, "unknown player '/etc/passwd'"),
        ("/api/games", {"players": 3, "stasi": 1}, 400, "stasi must be true or false"),
        ("/api/games", {"players": 3, "seed": -1}, 400, "seed must be an integer"),
        ("/api/games/0123456789abcdef/act", {"action": 0}, 404, "no game"),
        ("/api/nothing", {}, 404, "nothing to post"),
    ],
)
def test_a_bad_request_gets_a_clear_error(server, path, body, status, words):
    got, answer = post(server + path, body)
    assert got == status and words in answer["error"], answer


def test_replays_step_by_step_and_bad_steps(server, replay_file):
    steps = call(server + "/api/options")[1]["replays"][0]["steps"]
    status, first = call(server + "/api/replays/0?step=0&seat=spectator")
    assert status == 200 and first["step"] == 0 and first["next"].startswith("player_")
    status, end = call(server + f"/api/replays/0?step={steps}&seat=2")
    assert status == 200 and end["next"] is None and end["seat"] == 2
    assert call(server + f"/api/replays/0?step={steps + 1}")[1]["error"].startswith("step must be an integer from 0")
    assert call(server + "/api/replays/0?step=0&seat=7")[1]["error"].startswith("seat must be an integer from 0 to 2")
    assert call(server + "/api/replays/9")[0] == 404  # no such replay
    assert call(server + "/etc/passwd")[0] == 404
    assert call(server + "/api/options", "PUT", b"{}")[0] == 405


def test_the_command_checks_its_files_before_serving(tmp_path, capsys):
    for argv, words in [
        (["--replays", str(tmp_path / "none")], "no such file or folder"),
        (["--agents", str(tmp_path / "agent.json")], "agent.json"),
        (["--port", "70000"], "70000 is out of range"),
    ]:
        with pytest.raises(SystemExit) as info:
            command.main([*argv, "--port", "0"] if "--port" not in argv else argv)
        assert info.value.code == 2 and words in capsys.readouterr().err


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (apt-get install chromium)")
def test_a_whole_game_by_clicks_and_a_replay_to_its_end_in_a_browser(server):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs playwright (the dev extra)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server + "/")
        page.wait_for_selector("body[data-ready=yes]")
        page.select_option("#count", "3")
        page.select_option("#seat", "2")
        for select, name in zip(page.query_selector_all(".opponent"), ["random", AGENT], strict=True):
            select.select_option(name)
        page.fill("#seed", "11")
        page.click("#start")
        page.wait_for_selector("body[data-shown='1']")
        clicks = 0
        while "game over" not in page.inner_text("#status"):
            page.click("#choices button >> nth=0")
            clicks += 1
            page.wait_for_selector(f"body[data-shown='{clicks + 1}']")
            assert page.inner_text("#error") == "" and clicks < 400
        assert clicks > 3 and page.inner_text("#status").startswith("game over: you")
        assert page.get_attribute("#table", "src").startswith("data:image/png;base64,")
        options = [o.inner_text() for o in page.query_selector_all("#replay option")]
        assert options[0].startswith("game.json") and any(o.startswith("your game") for o in options)
        page.select_option("#replay", "0")
        page.select_option("#replay-seat", "spectator")
        page.wait_for_selector("#replay-status:has-text('step 0 of')")
        steps = int(page.inner_text("#replay-status").split(" of ")[1].split(":")[0])
        for step in range(1, steps + 1):
            page.click("#next")
            page.wait_for_selector(f"#replay-status:has-text('step {step} of {steps}')")
        assert page.inner_text("#replay-status").endswith(": the end")
        assert not page.is_hidden("#replay-table")
        browser.close()


def test_the_games_finished_here_are_kept_as_replays_the_last_sixteen(replay_file):
    """A long-running server holds a bounded number of replays; a replay keeps its id while held."""
    from ckc_env.terminal.replay import Replay
    from ckc_env.web.tables import MAX_GAMES

    tables = Tables([], [replay_file])
    replay = Replay.load(replay_file)
    for k in range(MAX_GAMES + 3):
        tables._keep_replay(f"your game {k}", replay)
    ids = [entry["id"] for entry in tables.options()["replays"]]
    assert ids == [0, *range(4, MAX_GAMES + 4)]
    assert tables.replay_step(MAX_GAMES + 3, 0, None)["name"] == f"your game {MAX_GAMES + 2}"
    with pytest.raises(ValueError, match="no replay 1 here"):
        tables.replay_step(1, 0, None)
