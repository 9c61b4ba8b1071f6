"""The Pgx environment (ckc_env/jax/pgx_env.py): Pgx's own API test, a PureJaxRL-style random rollout
(vmap + lax.scan + pgx.experimental.auto_reset) replayed on the NumPy batched engine game by game
(each Pgx key a seeded game: the same observations, masks, seats to act, rewards and ends, illegal
actions included), the reward schemes, and the module without Pgx.

Compiling the engine's init and step takes most of this file's time (about 15 s each on a shared
2-core CPU): six compilations, no more."""

import subprocess
import sys
from typing import Literal, get_args

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pgx = pytest.importorskip("pgx")

import jax.numpy as jnp  # noqa: E402
from pgx.experimental import act_randomly, auto_reset  # noqa: E402

from ckc_env import batch  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.jax import pgx_env  # noqa: E402
from ckc_env.jax.state import from_batch  # noqa: E402
from ckc_env.table.rewards import SCHEMES  # noqa: E402

CONFIG = GameConfig(num_players=4, stasi=True, cafe_adler=True)
GAMES, STEPS = 16, 64


@pytest.mark.slow
def test_pgx_api_test(monkeypatch):
    """``pgx._src.api_test.api_test``: single and vmapped games, random play to the end. Two
    patches, neither about our game: its check that the id is one of Pgx's own games is widened to
    ours (Pgx has no registry), and its random player draws along the last axis, since Pgx 2.6's
    ``act_randomly(..., axis=1)`` fails on one game's mask under current JAX (tic_tac_toe's too)."""
    from pgx._src import api_test

    monkeypatch.setattr(api_test, "EnvId", Literal[(*get_args(api_test.EnvId), pgx_env.ENV_ID)])
    monkeypatch.setattr(
        api_test,
        "act_randomly",
        jax.jit(lambda key, mask: jax.random.categorical(key, jnp.log(mask.astype(jnp.float32)), axis=-1)),
    )
    env = pgx_env.CheckpointCharlie(num_players=3)
    assert isinstance(env, pgx.core.Env)
    assert (env.id, env.version, env.num_players, env.num_actions, env.observation_shape) == (
        "checkpoint_charlie",
        "v2",
        3,
        40,
        (736,),
    )
    api_test.api_test(env, num=2)


@pytest.fixture(scope="module")
def rollout():
    """16 games of 4 players for 64 steps: random legal actions, and an illegal one at a few steps."""
    env = pgx_env.CheckpointCharlie(CONFIG)
    step = jax.vmap(auto_reset(env.step, env.init))
    init_keys = jax.random.split(jax.random.PRNGKey(7), GAMES)
    state = jax.jit(jax.vmap(env.init))(init_keys)
    illegal = np.zeros((STEPS, GAMES), bool)
    illegal[[10, 30, 50], [3, 8, 13]] = True

    @jax.jit
    def run(state, key, illegal):
        def body(carry, wrong):
            state, key = carry
            key, k_act, k_step = jax.random.split(key, 3)
            action = act_randomly(k_act, state.legal_action_mask).astype(jnp.int32)
            action = jnp.where(wrong, jnp.argmin(state.legal_action_mask, axis=1), action)  # an illegal one
            keys = jax.random.split(k_step, GAMES)
            state = step(state, action, keys)
            seen = (state.observation, state.legal_action_mask, state.current_player, state.rewards, state.terminated)
            return (state, key), (action, keys, *seen)

        return jax.lax.scan(body, (state, key), illegal)

    (_, _), trace = run(state, jax.random.PRNGKey(8), illegal)
    return env, init_keys, state, illegal, jax.device_get(trace)


@pytest.mark.slow
def test_a_pgx_key_is_a_seeded_game_of_the_engine(rollout):
    _, init_keys, state, _, _ = rollout
    seeds = [pgx_env.seed_of(k) for k in init_keys]
    numpy = batch.init(CONFIG, seeds=seeds)
    same = jax.tree_util.tree_map(lambda a, b: bool(np.array_equal(a, b)), from_batch(numpy)[1], state._game)
    assert all(jax.tree_util.tree_leaves(same))
    assert np.array_equal(np.asarray(state.observation), batch.observe(numpy))
    assert np.array_equal(np.asarray(state.legal_action_mask), batch.legal_action_mask(numpy).astype(bool))
    assert np.array_equal(np.asarray(state.current_player), numpy.pending_seat)
    assert (np.asarray(state.rewards) == 0).all() and (np.asarray(state._step_count) == 0).all()
    assert state.observation.dtype == jnp.float32 and state.rewards.shape == (GAMES, 4)


@pytest.mark.slow
def test_a_random_rollout_is_the_numpy_engines(rollout):
    """Every step of the scan replayed slot by slot on the NumPy engine: after an auto-reset the
    slot's next game is the seeded game of the key ``auto_reset`` gave ``init``."""
    _, init_keys, _, illegal, trace = rollout
    actions, keys, observations, masks, players, rewards, terminated = trace
    second = np.asarray(jax.vmap(lambda k: jax.random.split(k)[1])(keys.reshape(-1, 2))).reshape(keys.shape)
    slots = [batch.init(CONFIG, seeds=[pgx_env.seed_of(k)]) for k in init_keys]
    ended = punished = 0
    totals = np.zeros((GAMES, 4))
    for t in range(STEPS):
        for g in range(GAMES):
            game = slots[g]
            assert batch.legal_action_mask(game)[0].astype(bool)[actions[t, g]] != illegal[t, g]
            if illegal[t, g]:
                expected = -np.eye(4)[game.pending_seat[0]]
                over = True
                punished += 1
            else:
                batch.step(game, np.array([actions[t, g]]))
                expected, over = game.rewards[0, :4], bool(game.terminated[0])
                totals[g] += expected
            assert np.array_equal(rewards[t, g], expected) and terminated[t, g] == over
            if over:
                if not illegal[t, g]:
                    assert np.array_equal(totals[g], game.points[0, :4])  # "points": a game's rewards sum to its points
                totals[g] = 0
                ended += 1
                game = slots[g] = batch.init(CONFIG, seeds=[pgx_env.seed_of(second[t, g])])
            assert np.array_equal(observations[t, g], batch.observe(game)[0])
            assert np.array_equal(masks[t, g], batch.legal_action_mask(game)[0].astype(bool))
            assert players[t, g] == game.pending_seat[0]
    assert ended >= 20 and punished == 3


@pytest.mark.parametrize("scheme", ["points", "margin", "win"])
def test_the_reward_schemes_pay_as_the_project_does(scheme):
    """A finished game's last step (NumPy) paid by the environment's scheme equals ``pay_batch``."""
    from ckc_env.batch.agents import uniform_legal

    config = GameConfig(num_players=5)
    env = pgx_env.CheckpointCharlie(config, reward=scheme)
    numpy = batch.init(config, seeds=range(6))
    rng = np.random.default_rng(0)
    pay = jax.jit(jax.vmap(env._pay))
    checked = 0
    while (numpy.pending_kind >= 0).any():
        batch.step(numpy, uniform_legal(batch.legal_action_mask(numpy), rng))
        paid = np.asarray(pay(from_batch(numpy)[1]))
        over = numpy.terminated[:, None]
        expected = SCHEMES[scheme].pay_batch(numpy.rewards, numpy.n[:, None].astype(np.int64), numpy.winners, over)
        assert np.allclose(paid, expected[:, :5], atol=1e-6)
        checked += int(numpy.terminated.sum())
    assert checked == 6


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="belief_features='players'"):
        pgx_env.CheckpointCharlie(belief_features="players")
    with pytest.raises(ValueError, match="invalid reward='score'"):
        pgx_env.CheckpointCharlie(reward="score")
    with pytest.raises(ValueError, match="not both"):
        pgx_env.CheckpointCharlie(CONFIG, num_players=3)


@pytest.mark.slow
def test_the_module_imports_and_traces_without_pgx():
    """With Pgx blocked, the plain classes stand in and trace to the same shapes and dtypes."""
    code = """
import sys
sys.modules["pgx"] = None
import jax
from ckc_env.jax import pgx_env
assert not pgx_env.HAS_PGX and pgx_env.CheckpointCharlie is pgx_env.PlainCheckpointCharlie
env = pgx_env.CheckpointCharlie(num_players=5, belief_features=True)
state = jax.eval_shape(env.init, jax.random.PRNGKey(0))
after = jax.eval_shape(env.step, state, jax.ShapeDtypeStruct((), "int32"))
print(type(after).__name__, after.observation.shape, after.rewards.shape, after.legal_action_mask.dtype,
      after.current_player.dtype, after.terminated.dtype, after._step_count.dtype)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["PlainState", "(850,)", "(5,)", "bool", "int32", "bool", "int32"]
    env = pgx_env.CheckpointCharlie(num_players=5, belief_features=True)
    after = jax.eval_shape(env.step, jax.eval_shape(env.init, jax.random.PRNGKey(0)), jnp.int32(0))
    assert type(after) is pgx_env.State and after.observation.shape == (850,)
