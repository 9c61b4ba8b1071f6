"""Pictures of the table (``render_mode="rgb_array"``, ``ckc_env.picture``) and videos of them.

The pictures leak nothing: games that differ only in what a seat cannot know give that seat (and
the spectator) identical pictures, pixel for pixel, and the check catches a planted leak; the
spectator's picture reads no private property of the view. Then the fronts: the AEC env (with
PettingZoo's ``render_test``), the single-agent view under gymnasium's ``RecordVideo`` and
stable-baselines3's ``VecVideoRecorder``, and ``ckc-play --replay FILE --video``.
"""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
from test_leaks import _choose, build_pair, chip_orders

import ckc_env
from ckc_env import engine
from ckc_env.engine.cards import chief_of
from ckc_env.engine.game import legal_actions
from ckc_env.engine.state import SCORING
from ckc_env.engine.view import PlayerView
from ckc_env.envs.single_agent import CheckpointCharlieSingleAgent
from ckc_env.render import UnsupportedRenderModeError
from ckc_env.terminal import play
from ckc_env.terminal.replay import Replay

pytest.importorskip("PIL", reason="the pictures need the render extra (Pillow)")
from ckc_env import picture

SHAPE = (picture.HEIGHT, picture.WIDTH, 3)


def random_game(n: int, seed: int, **rules):
    """States of a seeded game with random legal actions, one per decision (copies), and the end."""
    state = engine.init(ckc_env.GameConfig(num_players=n, **rules), seed=seed)
    rng = random.Random(seed)
    states = []
    while not state.game_over:
        states.append(state.copy())
        legal = legal_actions(state)
        engine.step(state, 0 if 0 in legal and rng.random() < 0.7 else rng.choice(legal))
    return [*states, state]


# ------------------------------------------------------------------------------------ the picture
@pytest.mark.parametrize("n", [3, 4, 5])
def test_a_picture_is_an_rgb_image_of_one_size_for_every_seat_and_count(n):
    states = random_game(n, seed=n, stasi=True, cafe_adler=True)
    for state in states[:: max(1, len(states) // 6)] + states[-1:]:
        for seat in (None, *range(n)):
            frame = picture.draw(state, seat)
            assert frame.shape == SHAPE and frame.dtype == np.uint8
    with pytest.raises(ValueError, match="seat must be None"):
        picture.draw(states[0], n)


def test_a_seat_sees_its_own_clue_and_chips_the_spectator_does_not():
    state = random_game(5, seed=1)[30]
    spectator = picture.draw(state)
    assert not np.array_equal(picture.draw(state, 0), spectator)
    assert not np.array_equal(picture.draw(state, 0), picture.draw(state, 1))


def _compare(n: int, pair: dict, config: dict, action_seed: int, seats: tuple) -> int:
    """Play A and B with the same actions; assert the pictures of ``seats`` are identical while the
    public information is (the comparison of tests/test_leaks.py). Returns the positions compared."""
    orders = chip_orders(ckc_env.raw_env(num_players=n, **config), random.Random(action_seed))
    envs = []
    for side, order in zip("ab", orders, strict=True):
        env = ckc_env.raw_env(num_players=n, **config)
        env.reset(seed=0, options={**pair[side], "first_player": pair["first_player"], "chip_order": order})
        envs.append(env)
    game_a, game_b = envs[0].game, envs[1].game
    assert chief_of(game_a.clues + game_a.bag) != chief_of(game_b.clues + game_b.bag)
    rng = random.Random(action_seed)
    compared = 0
    while game_a.round_index == 0 and game_a.phase < SCORING and game_a.deck_pos <= pair["prefix"]:
        for seat in seats:
            same = np.array_equal(picture.draw(game_a, seat), picture.draw(game_b, seat))
            assert same, f"the picture of {seat} differs after {compared} steps"
        action = _choose(envs[0].observe(envs[0].agent_selection)["action_mask"], rng)
        for env in envs:
            env.step(action)
        compared += 1
    return compared


@pytest.mark.parametrize(
    ("n", "mode", "seed", "config"),
    [
        (5, "full", 0, {}),
        (5, "full", 2, {"stasi": True, "cafe_adler": True}),
        (4, "early", 11, {"stasi": True}),
        (3, "late", 12, {}),
    ],
)
def test_pictures_show_nothing_a_seat_or_the_spectator_cannot_know(n, mode, seed, config):
    """Games A and B differ in the other seats' clues, the bag, the chief, the deck beyond the
    compared cards and the chips' face-down order: player_0's and the spectator's pictures agree."""
    pair = build_pair(n, seed, mode)
    assert _compare(n, pair, config, 0, (0, None)) >= 8


def test_the_leak_check_catches_a_planted_leak(monkeypatch):
    """A picture that writes every seat's true clue is caught by the same comparison."""

    def leaky(view, seat):
        return f"clue: {view._state.clues[seat]}", picture.TILE

    monkeypatch.setattr(picture, "clue_shown", leaky)
    with pytest.raises(AssertionError, match="the picture of 0 differs"):
        _compare(5, build_pair(5, 0, "full"), {}, 0, (0,))


class SpectatorView(PlayerView):
    """An onlooker's view that refuses every private property."""

    __slots__ = ()

    def __getattribute__(self, name):
        private = name.startswith("own_") or name in (
            "to_act",
            "decision_kind",
            "decision_chip_colour",
            "legal_actions",
        )
        if private and object.__getattribute__(self, "seat") < 0:
            raise AssertionError(f"the spectator's picture read {name}")
        return object.__getattribute__(self, name)


@pytest.mark.parametrize("n", [3, 5])
def test_the_spectator_picture_reads_only_public_properties(n):
    for state in random_game(n, seed=7, stasi=True, cafe_adler=True, clue_face="choose"):
        picture.draw_view(SpectatorView(state, -1))


def test_a_round_result_shows_the_revealed_chief():
    states = random_game(4, seed=3, cafe_adler=True)
    scored = [s for s in states if s.phase >= SCORING]
    assert scored
    for state in scored:
        title, chief, _ = picture.round_result(PlayerView(state, -1))
        assert chief == chief_of(state.clues + state.bag)
    after = next(s for s in states if s.summaries and s.phase < SCORING)
    title, chief, _ = picture.round_result(PlayerView(after, -1))
    assert (title, chief) == ("Round 1 result", after.summaries[0]["chief"])
    assert picture.round_result(PlayerView(states[0], -1)) is None


# ------------------------------------------------------------------------------------ the fronts
def test_aec_rgb_array_renders_the_spectator_or_render_seat():
    env = ckc_env.env(num_players=4, render_mode="rgb_array", render_seat=2)
    assert "rgb_array" in env.metadata["render_modes"] and env.metadata["render_fps"] == 2
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == SHAPE and frame.dtype == np.uint8
    assert np.array_equal(frame, picture.draw(env.unwrapped.game, 2))
    spectator = ckc_env.env(num_players=4, render_mode="rgb_array")
    spectator.reset(seed=0)
    assert np.array_equal(spectator.render(), picture.draw(spectator.unwrapped.game))
    with pytest.raises(ValueError, match="render_seat"):
        ckc_env.env(num_players=4, render_seat=4)


def test_pettingzoo_render_test_with_every_mode(capsys):
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: ckc_env.env(num_players=3, render_mode=render_mode))


def test_rgb_array_without_pillow_names_the_extra(monkeypatch):
    """As SB3's make_vec_env needs: a TypeError too, on which it retries without a render mode."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "PIL" else find_spec(name, *a))
    with pytest.raises(UnsupportedRenderModeError, match=r"render extra.*pip install") as info:
        ckc_env.env(render_mode="rgb_array")
    assert isinstance(info.value, TypeError)
    ckc_env.env(render_mode="ansi")  # the text needs nothing


def test_single_agent_renders_the_learner_or_the_spectator():
    env = CheckpointCharlieSingleAgent(num_players=3, opponents="random", render_mode="rgb_array")
    env.reset(seed=1)
    assert np.array_equal(env.render(), picture.draw(env.table.game, env.seat))
    env = CheckpointCharlieSingleAgent(num_players=3, opponents="random", render_mode="rgb_array", render_seat=None)
    env.reset(seed=1)
    assert np.array_equal(env.render(), picture.draw(env.table.game))
    with pytest.raises(ValueError, match="render_seat"):
        CheckpointCharlieSingleAgent(num_players=[3, 5], render_seat=3)


def test_gymnasium_record_video_writes_an_episode(tmp_path):
    pytest.importorskip("moviepy")
    import gymnasium as gym
    from gymnasium.wrappers import RecordVideo

    env = gym.make("CheckpointCharlie-v1", num_players=3, opponents="random", render_mode="rgb_array")
    env = RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: episode == 0, disable_logger=True)
    env.reset(seed=0)
    frames, done = 1, False
    while not done:
        mask = env.unwrapped.action_masks()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
        done = terminated or truncated
        frames += 1
    env.close()
    (video,) = (tmp_path / "videos").glob("*.mp4")
    assert video.stat().st_size > 0
    assert _mp4_frames(video) == (picture.WIDTH, picture.HEIGHT, frames)


def test_sb3_vec_video_recorder_writes_a_video(tmp_path):
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("moviepy")
    from stable_baselines3.common.vec_env import DummyVecEnv, VecVideoRecorder

    venv = DummyVecEnv(
        [lambda: CheckpointCharlieSingleAgent(num_players=3, opponents="random", render_mode="rgb_array")]
    )
    venv = VecVideoRecorder(venv, str(tmp_path), record_video_trigger=lambda step: step == 0, video_length=12)
    venv.seed(0)
    venv.reset()
    for _ in range(14):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    venv.close()
    (video,) = tmp_path.glob("*.mp4")
    assert video.stat().st_size > 0
    assert _mp4_frames(video)[:2] == (picture.WIDTH, picture.HEIGHT)


def _mp4_frames(path) -> tuple[int, int, int]:
    """(width, height, frames) of a video, read back with imageio-ffmpeg."""
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    return (*meta["size"], sum(1 for _ in reader))


# ------------------------------------------------------------------------------------ ckc-play
@pytest.fixture(scope="module")
def replay_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "game.json"
    assert play.main(["--players", "3", "--seed", "4", "--save-replay", str(path)], console=_quiet()) == 0
    return path


def _quiet():
    from rich.console import Console

    return Console(file=io.StringIO(), width=120)


@pytest.mark.slow
@pytest.mark.parametrize(("suffix", "seat"), [(".gif", None), (".mp4", 1)])
def test_ckc_play_writes_a_replay_as_a_video_one_frame_per_step(replay_file, tmp_path, suffix, seat):
    from PIL import Image

    out = tmp_path / f"game{suffix}"
    argv = ["--replay", str(replay_file), "--video", str(out), *(["--seat", str(seat)] if seat is not None else [])]
    assert play.main(argv, console=_quiet()) == 0
    assert out.stat().st_size > 0
    replay = Replay.load(replay_file)
    if suffix == ".mp4":
        assert _mp4_frames(out) == (picture.WIDTH, picture.HEIGHT, len(replay.actions) + 1)
    else:  # GIF merges repeated pictures into longer frames: the first and the last are the game's
        states = [state.copy() for _, state in replay.states()]
        with Image.open(out) as gif:
            assert gif.size == (picture.WIDTH, picture.HEIGHT) and 2 <= gif.n_frames <= len(states)
            first = np.asarray(gif.convert("RGB"), dtype=np.int16)
        assert np.abs(first - picture.draw(states[0], seat)).mean() < 3  # a GIF has 256 colours


def test_a_replays_frames_carry_a_progress_bar(replay_file):
    """Along the bottom margin: nothing on the first frame, halfway on the middle one, the whole
    width on the last; the table above it is the picture of the state."""
    states = [state.copy() for _, state in Replay.load(replay_file).states()]
    frames = list(picture.frames_of(iter(states), None, total=len(states)))
    bar = picture.HEIGHT - 4
    amber = np.all(np.stack(frames)[:, bar] == picture.AMBER, axis=-1)  # (frames, width)
    assert not amber[0].any() and amber[-1, picture.MARGIN : picture.WIDTH - picture.MARGIN].all()
    middle = len(states) // 2
    assert abs(amber[middle].sum() / (picture.WIDTH - 2 * picture.MARGIN) - middle / (len(states) - 1)) < 0.01
    for frame, state in zip(frames, states, strict=True):
        assert np.array_equal(
            frame[: picture.HEIGHT - picture.MARGIN], picture.draw(state)[: picture.HEIGHT - picture.MARGIN]
        )


@pytest.mark.parametrize(
    ("with_replay", "argv", "message"),
    [
        (False, ["--video", "x.mp4"], "--video (and --fps) go with --replay"),
        (True, ["--seat", "1"], "--seat and --fps with --replay go with --video"),
        (True, ["--video", "x.avi"], "must end in .mp4 or .gif"),
        (True, ["--video", "x.mp4", "--seat", "3"], "--seat 3 is not a seat of this 3-player replay"),
    ],
)
def test_ckc_play_video_refusals(replay_file, with_replay, argv, message, capsys):
    if with_replay:
        argv = ["--replay", str(replay_file), *argv]
    with pytest.raises(SystemExit) as info:
        play.main(argv, console=_quiet())
    assert info.value.code == 2
    assert message in capsys.readouterr().err
