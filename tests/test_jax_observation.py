"""The JAX observation encoder (``ckc_env/jax/observation.py``) against its NumPy twin
``ckc_env/batch/observation.py``: NumPy batches are played with mixed scripted agents, every position
is converted with ``jax.state.from_batch``, and the observations of every seat, the full state and
the critic's state must be equal bit for bit; the posterior pieces are exact when the NumPy
posterior is passed in, and within one float32 ulp when the JAX beliefs compute them."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

from ckc_env import batch  # noqa: E402
from ckc_env.batch import observation as numpy_obs  # noqa: E402
from ckc_env.batch.agents import decide, make_batch_agent  # noqa: E402
from ckc_env.batch.beliefs import seat_beliefs as numpy_beliefs  # noqa: E402
from ckc_env.batch.players_posterior import observed_posterior  # noqa: E402
from ckc_env.batch.state import stack  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.jax import observation as jax_obs  # noqa: E402
from ckc_env.jax.state import from_batch  # noqa: E402
from ckc_env.observation import (  # noqa: E402
    CRITIC_STATE,
    OBSERVATION,
    OBSERVATION_V0,
    OBSERVATION_WITH_BELIEFS,
    OBSERVATION_WITH_PLAYER_BELIEFS,
    OBSERVATION_WITH_SECOND_ORDER,
    STATE,
)

AGENTS = ("random", "bayes_v1", "eager", "bayes_v1", "random")

CONFIGS = {
    "3p": (dict(num_players=3), None),
    "4p-stasi-uncaught": (dict(num_players=4, stasi=True, non_accuser_white="chief_uncaught"), None),
    "5p-adler-choose": (dict(num_players=5, cafe_adler=True, clue_face="choose"), None),
    "mixed-every-option": (
        dict(stasi=True, cafe_adler=True, clue_face="choose", non_accuser_white="chief_uncaught"),
        [3, 4, 5],
    ),
}


def _positions(name: str, size: int, steps: int, chunk: int, seed: int = 0):
    """The positions of a NumPy batch played ``steps`` steps, ``chunk`` steps at a time as one
    stacked batch of ``chunk * size`` games (fewer conversions and calls): (that NumPy batch, its
    JAX rules and games, and seats (5, games): each game's acting seat, then every other seat
    clockwise, repeating in smaller games)."""
    options, counts = CONFIGS[name]
    config = GameConfig(**options)
    num_players = None if counts is None else [counts[i % len(counts)] for i in range(size)]
    state = batch.init(config, batch_size=size, seed=seed, num_players=num_players)
    lineup = [make_batch_agent(agent, seed=seed + s) for s, agent in enumerate(AGENTS)]
    snapshots = []
    for _ in range(steps):
        snapshots.append((state.copy(), np.arange(size)))
        if len(snapshots) == chunk:
            stacked = stack(snapshots)
            snapshots = []
            rules, games = from_batch(stacked)
            acting = np.where(stacked.pending_kind >= 0, stacked.pending_seat, 0).astype(np.int64)
            seats = (acting[None, :] + np.arange(5)[:, None]) % stacked.n[None, :]
            yield stacked, rules, games, seats
        batch.step(state, decide(state, lineup), autoreset=True)


def _equal(got: np.ndarray, want: np.ndarray, what: str) -> None:
    if not np.array_equal(got, want):
        at = tuple(np.argwhere(got != want)[0])
        raise AssertionError(f"{what}: differs first at {at}: {got[at]!r} != {want[at]!r}")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONFIGS))
def test_observations_and_state_bit_for_bit(name: str) -> None:
    layouts = (OBSERVATION, OBSERVATION_V0) if name.startswith("mixed") else (OBSERVATION,)
    terminated = 0
    for chunk, (state, rules, games, seats) in enumerate(_positions(name, size=128, steps=200, chunk=25)):
        where = f"{name} chunk {chunk}"
        seats_jax = jnp.asarray(seats)
        for layout in layouts:
            for k in range(5):
                obs = np.asarray(jax_obs.observe_batch(rules, games, seats_jax[k], layout))
                assert obs.dtype == np.float32 and obs.shape == (state.batch_size, layout.size)
                _equal(obs, numpy_obs.observe(state, seats[k], layout), f"{where} seat +{k}")
        for k in range(5):
            critic = np.asarray(jax_obs.encode_critic_state_batch(rules, games, seats_jax[k]))
            _equal(critic, numpy_obs.encode_critic_state(state, seats[k]), f"{where} critic seat +{k}")
        full = np.asarray(jax_obs.encode_state_batch(rules, games))
        assert full.shape == (state.batch_size, STATE.size) and critic.shape[-1] == CRITIC_STATE.size
        _equal(full, numpy_obs.encode_state(state), f"{where} state")
        terminated += int(state.terminated.sum())
    assert terminated > 0  # the positions include game ends and new games


def test_single_game_and_default_seat() -> None:
    """``observe`` of one game (no vmap), jitted, is the batch's row; without a seat, the seat to act's."""
    state, rules, games, _ = next(_positions("mixed-every-option", size=3, steps=20, chunk=2))
    one = jax.jit(jax_obs.observe, static_argnums=(0,))
    want = numpy_obs.observe(state)
    for b in range(state.batch_size):
        game = jax.tree_util.tree_map(lambda x, b=b: x[b], games)
        np.testing.assert_array_equal(np.asarray(one(rules, game)), want[b])


def _numpy_posterior(b) -> tuple:
    return tuple(jnp.asarray(x) for x in (b.chief, b.assistant, b.clue))


@partial(jax.jit, static_argnames=("rules", "layout"))
def _with_posteriors(rules, games, seats, exact, players, layout):
    given = jax_obs.observe_batch(rules, games, seats, layout, exact=exact, players=players)
    computed = None
    if layout is OBSERVATION_WITH_BELIEFS:
        computed = jax_obs.observe_batch(rules, games, seats, layout)  # jax.beliefs.seat_beliefs
    return given, computed


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mixed-every-option", "4p-stasi-uncaught"])
def test_belief_layout(name: str) -> None:
    """850: exact with the NumPy posterior passed in; within 1 float32 ulp with the JAX beliefs
    (a float32 quotient of the same integer counts, where NumPy rounds its float64 quotient)."""
    layout = OBSERVATION_WITH_BELIEFS
    beliefs = slice(layout.offsets["belief_chief"], layout.size)
    for chunk, (state, rules, games, seats) in enumerate(_positions(name, size=96, steps=80, chunk=20, seed=3)):
        for k in (0, 1, 3):
            where = f"{name} chunk {chunk} seat +{k}"
            exact = numpy_beliefs(state, np.arange(state.batch_size), seats[k])
            want = numpy_obs.observe(state, seats[k], layout, exact=exact)
            given, computed = map(
                np.asarray, _with_posteriors(rules, games, jnp.asarray(seats[k]), _numpy_posterior(exact), None, layout)
            )
            _equal(given, want, where)
            _equal(computed[:, : beliefs.start], want[:, : beliefs.start], where)
            np.testing.assert_array_max_ulp(computed[:, beliefs], want[:, beliefs], maxulp=1)


def test_player_belief_layout() -> None:
    """964: exact with both NumPy posteriors (the exact one and the players') passed in."""
    layout = OBSERVATION_WITH_PLAYER_BELIEFS
    for chunk, (state, rules, games, seats) in enumerate(
        _positions("mixed-every-option", size=48, steps=60, chunk=20, seed=5)
    ):
        for k in (0, 2):
            ids = np.arange(state.batch_size)
            exact = numpy_beliefs(state, ids, seats[k])
            players = observed_posterior(state, ids, seats[k], exact=exact)
            want = numpy_obs.observe(state, seats[k], layout, exact=exact, players=players)
            got, _ = _with_posteriors(
                rules, games, jnp.asarray(seats[k]), _numpy_posterior(exact), _numpy_posterior(players), layout
            )
            _equal(np.asarray(got), want, f"chunk {chunk} seat +{k}")


def test_second_order_layout_needs_its_posterior() -> None:
    state, rules, games, seats = next(_positions("3p", size=2, steps=1, chunk=1))
    exact = _numpy_posterior(numpy_beliefs(state, np.arange(2), seats[0]))
    with pytest.raises(ValueError, match="second_order"):
        jax_obs.observe_batch(rules, games, None, OBSERVATION_WITH_SECOND_ORDER, exact=exact, players=exact)


@pytest.mark.slow
def test_player_belief_layout_read_on_the_device() -> None:
    """964 with nothing passed in: the JAX posteriors (``jax.beliefs`` and a fresh
    ``jax.players_posterior`` reading) fill their pieces, and every other piece is NumPy's exactly;
    the posterior pieces are within the tolerance of ``test_jax_players_posterior.py`` except where
    a near-tie turns a prediction of the reading (counted: at most a few rows)."""
    layout = OBSERVATION_WITH_PLAYER_BELIEFS
    posterior = slice(layout.offsets["belief_chief"], layout.size)
    state, rules, games, _ = next(_positions("4p-stasi-uncaught", size=32, steps=40, chunk=40, seed=7))
    got = np.asarray(jax.jit(jax_obs.observe_batch, static_argnums=(0, 3))(rules, games, None, layout))
    want = numpy_obs.observe(state, None, layout)
    np.testing.assert_array_equal(got[:, : posterior.start], want[:, : posterior.start])
    close = np.abs(got[:, posterior] - want[:, posterior]).max(1) <= 2e-5
    assert close.sum() >= len(close) - 2, f"{(~close).sum()} of {len(close)} rows beyond 2e-5"
