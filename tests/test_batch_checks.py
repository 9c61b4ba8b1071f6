"""Every decision a batched player makes is checked before the batched engine applies it
(``ckc_env.table.batched.check_actions``): actions out of range, illegal ones and answers of the
wrong shape or type raise a ValueError naming the player, the game and the seat, through the
batched play loop, the batched tournament and the vector environment's opponents; legal play is
unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from ckc_env import batch
from ckc_env.batch.agents import BatchAgent, make_batch_agent, uniform_legal
from ckc_env.batch.state import BatchState
from ckc_env.config import GameConfig
from ckc_env.envs.subproc_vector import SubprocVectorEnv
from ckc_env.envs.vector import CheckpointCharlieVectorEnv
from ckc_env.evaluation.tournament import play_batched
from ckc_env.players.batch_policy import BatchPolicyAgent
from ckc_env.table import batched
from ckc_env.table.batched import check_actions, play

CHECKPOINT = Path(__file__).resolve().parents[1] / "checkpoints" / "ppo_5p_distilled"


class Faulty(BatchAgent):
    """A user's batched player that answers with ``answer(state, games)``; it records the games it
    was asked about, so a test can tell the games its refused decisions came from."""

    def __init__(self, name: str, answer, seed: int = 0) -> None:
        super().__init__(seed)
        self.name = name
        self.answer = answer
        self.asked: set[int] = set()

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        self.asked.update(games.tolist())
        return self.answer(state, games)


def constant(value, dtype=np.int64):
    return lambda state, games: np.full(len(games), value, dtype=dtype)


def nan_cast(state: BatchState, games: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.full(len(games), np.nan).astype(np.int64)  # garbage: the most negative int64


def nan_masked_logits(state: BatchState, games: np.ndarray) -> np.ndarray:
    """A policy that masks with NaN instead of -inf: argmax takes the first NaN, an illegal action."""
    legal = batch.legal_action_mask(state)[games] == 1
    return np.argmax(np.where(legal, 0.0, np.nan), axis=1)


def first_illegal(state: BatchState, games: np.ndarray) -> np.ndarray:
    return np.argmin(batch.legal_action_mask(state)[games], axis=1)


FAULTS = {
    "minus_one": constant(-1),
    "forty": constant(40),
    "two_to_the_forty": constant(2**40),
    "beyond_int64": constant(2**64 - 1, np.uint64),
    "nan_cast": nan_cast,
    "nan_masked_logits": nan_masked_logits,
    "illegal_in_range": first_illegal,
    "column": lambda state, games: np.zeros((len(games), 1), dtype=np.int64),
    "one_short": lambda state, games: np.zeros(len(games) - 1, dtype=np.int64),
    "floats": constant(0.0, np.float64),
    "bools": constant(False, bool),
}


def assert_names_the_decision(error: pytest.ExceptionInfo, player: Faulty, state: BatchState) -> None:
    """The message names the player and a game it was asked about, with the seat acting there (the
    state is as the player saw it: nothing of the refused pass was applied)."""
    message = str(error.value)
    assert repr(player) in message and player.name in message
    named = re.findall(r"game (\d+) \(seat (\d+), ", message)
    assert named, message
    for game, seat in named:
        assert int(game) in player.asked
        assert int(state.pending_seat[int(game)]) == int(seat)
    assert "legal: " in message


def lineup_with(player: BatchAgent, n: int = 4) -> list[BatchAgent]:
    return [player] + [make_batch_agent("random", seed=s) for s in range(1, n)]


def play_all(state: BatchState, lineup: list[BatchAgent]) -> None:
    """Seat s of every game is ``lineup[s]``, games played to their end."""
    play(state, lineup, lambda: np.flatnonzero(state.pending_kind >= 0), lambda games: state.pending_seat[games])


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_play_loop_refuses_a_faulty_player(fault):
    player = Faulty(fault, FAULTS[fault])
    state = batch.init(GameConfig(num_players=4), batch_size=32, seed=0)
    with pytest.raises(ValueError, match=re.escape(f"batched player {player!r}")) as error:
        play_all(state, lineup_with(player))
    assert_names_the_decision(error, player, state)


@pytest.mark.parametrize("fault", ["minus_one", "two_to_the_forty", "illegal_in_range", "column"])
def test_the_batched_tournament_refuses_a_faulty_player(fault):
    player = Faulty(fault, FAULTS[fault])
    with pytest.raises(ValueError, match=re.escape(repr(player))) as error:
        play_batched([player, "random", "bayes_v1", "eager"], {"num_players": 4}, seed=0, game_ids=range(24))
    message = str(error.value)
    assert re.search(r"game \d+ \(seat \d+, ", message) and "legal: " in message
    assert {int(g) for g in re.findall(r"game (\d+) \(", message)} <= player.asked


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_vector_environment_refuses_a_faulty_opponent(fault):
    player = Faulty(fault, FAULTS[fault])
    env = CheckpointCharlieVectorEnv(16, opponents=[player, "random", "random"], num_players=4)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=re.escape(f"batched player {player!r}")) as error:
        env.reset(seed=0)
        for _ in range(200):
            env.step(uniform_legal(env.action_masks().astype(np.int8), rng))
    assert_names_the_decision(error, player, env.state)
    named = [int(g) for g in re.findall(r"game (\d+) \(", str(error.value))]
    assert all(env.state.pending_seat[g] != env.seat[g] for g in named)  # an opponent's seat, not the learner's


def test_a_faulty_duplicate_reference_is_refused():
    player = Faulty("reference", first_illegal)
    env = CheckpointCharlieVectorEnv(8, opponents="random", duplicate=player, num_players=3)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=re.escape(f"batched player {player!r} chose illegal actions")):
        env.reset(seed=0)
        for _ in range(200):
            env.step(uniform_legal(env.action_masks().astype(np.int8), rng))


def test_the_learner_keeps_its_documented_illegal_action_rule():
    """Only opponents' decisions raise: the learner's illegal action ends its game with the penalty."""
    env = CheckpointCharlieVectorEnv(4, opponents="random", num_players=3)
    env.reset(seed=0)
    actions = np.argmin(env.action_masks(), axis=1)  # an illegal action in every slot
    actions[0] = -1
    _, rewards, terminated, _, infos = env.step(actions)
    assert terminated.all() and (rewards == -1.0).all() and infos["final_info"]["illegal_action"].all()


class MinusOne(BatchAgent):
    """A faulty player a worker process can unpickle."""

    name = "minus_one"

    def act(self, state: BatchState, games: np.ndarray) -> np.ndarray:
        return np.full(len(games), -1, dtype=np.int64)


def test_a_worker_says_which_slots_its_games_are():
    player = MinusOne(seed=0)
    env = SubprocVectorEnv(6, workers=2, opponents=[player, "random"], num_players=3)
    try:
        with pytest.raises(ValueError, match=re.escape(repr(player))) as error:
            env.reset(seed=0)
            for _ in range(50):
                env.step(np.argmax(env.action_masks(), axis=1))
    finally:
        env.close()
    message = str(error.value)
    assert re.search(r"game \d+ \(seat \d+, ", message)
    assert re.search(r"raised in the worker of slots (0\.\.2|3\.\.5): its game g is slot (0|3) \+ g", message)


def test_an_agent_file_with_nan_logits_is_refused_naming_the_file(monkeypatch):
    """An agent file's own guard refuses NaN logits before any action is chosen from them."""
    player = BatchPolicyAgent(str(CHECKPOINT))
    monkeypatch.setattr(player.network, "_forward", lambda layers, x: np.full((len(x), 40), np.nan, np.float32))
    env = CheckpointCharlieVectorEnv(8, opponents=player)
    with pytest.raises(ValueError, match="NaN or infinite logits") as error:
        env.reset(seed=0)
        for _ in range(50):
            env.step(np.argmax(env.action_masks(), axis=1))
    assert "ppo_5p_distilled" in str(error.value)


def test_any_integer_dtype_and_a_list_are_taken():
    state = batch.init(GameConfig(num_players=3), batch_size=16, seed=1)
    games = np.flatnonzero(state.pending_kind >= 0)
    chosen = uniform_legal(batch.legal_action_mask(state)[games], np.random.default_rng(0))
    for answer in (chosen.astype(np.uint8), chosen.astype(np.int32), chosen.astype(np.uint64), chosen.tolist()):
        actions = check_actions(state, [(make_batch_agent("random"), games, answer)])
        assert actions.dtype == np.int64 and (actions[games] == chosen).all()


@pytest.mark.slow
@pytest.mark.parametrize(
    "config",
    [
        GameConfig(num_players=5),
        GameConfig(num_players=4, stasi=True, cafe_adler=True, clue_face="choose", reopen_windows=True),
        GameConfig(num_players=3, cafe_adler=True, clue_face="choose", window_order="clockwise_from_drawer"),
    ],
    ids=["5p", "4p_adler_faces", "3p_adler_faces"],
)
def test_a_few_games_are_checked_against_their_rows_of_the_batch_mask(config):
    """A pass over fewer than half the games reads only their rows (``batched._Rows``): the same
    mask as the batch's, on every kind of decision."""
    state = batch.init(config, batch_size=64, seed=2)
    lineup = [make_batch_agent("random", seed=s) for s in range(config.num_players)]
    rng = np.random.default_rng(0)
    kinds = set()
    for _ in range(150):
        waiting = np.flatnonzero(state.pending_kind >= 0)
        full = batch.legal_action_mask(state)
        rows = rng.permutation(waiting)[: len(waiting) // 3]
        np.testing.assert_array_equal(batch.legal_action_mask(batched._Rows(state, rows)), full[rows])
        kinds.update(state.pending_kind[rows].tolist())
        legal_play = [(lineup[s], waiting[state.pending_seat[waiting] == s]) for s in range(config.num_players)]
        answers = [(player, games, player.act(state, games)) for player, games in legal_play if len(games)]
        batch.apply(state, check_actions(state, answers), autoreset=True, games=waiting)
    assert kinds >= ({0, 2, 3} if config.cafe_adler else {0})


def unchecked(state: BatchState, answers) -> np.ndarray:
    """The play loop's actions as they were before the check: assembled, not checked."""
    actions = np.zeros(state.batch_size, dtype=np.int64)
    for _, games, chosen in answers:
        actions[games] = chosen
    return actions


def test_legal_play_is_unchanged_in_a_tournament(monkeypatch):
    lineup = ["random", "bayes_v1", "eager", "passive", "cheater"]
    checked = play_batched(lineup, {"num_players": 5}, seed=3, game_ids=range(40))
    monkeypatch.setattr(batched, "check_actions", unchecked)
    assert play_batched(lineup, {"num_players": 5}, seed=3, game_ids=range(40)) == checked


@pytest.mark.slow
def test_legal_play_is_unchanged_in_the_vector_environment(monkeypatch):
    def run() -> list:
        env = CheckpointCharlieVectorEnv(
            12, opponents=["bayes_v1", "random", "eager"], duplicate="bayes_v1", num_players=4
        )
        rng = np.random.default_rng(5)
        out = [env.reset(seed=5)[0]]
        for _ in range(60):
            observations, rewards, terminated, _, infos = env.step(
                uniform_legal(env.action_masks().astype(np.int8), rng)
            )
            out += [observations, rewards, terminated, infos["seat"]]
        return out

    checked = run()
    monkeypatch.setattr(batched, "check_actions", unchecked)
    for mine, theirs in zip(checked, run(), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_the_check_is_applied_where_a_teacher_collects(monkeypatch):
    """``collect_batched`` checks its teacher's decisions as an opponent's (else the environment would
    take an illegal one as the learner's and keep it as a demonstration)."""
    cloning = pytest.importorskip("ckc_env.training.imitation.cloning")
    player = Faulty("teacher", first_illegal)
    env = CheckpointCharlieVectorEnv(8, opponents="random", num_players=3)
    with pytest.raises(ValueError, match=re.escape(f"batched player {player!r} chose illegal actions")) as error:
        cloning.collect_batched(env, player, 100, gamma=0.9, seed=0)
    assert_names_the_decision(error, player, env.state)
