"""env() (CheckedEnv) against raw_env under PettingZoo's own classic wrappers."""

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import ckc_env


def wrapped(**kwargs):
    """raw_env as PettingZoo's classic environments wrap theirs."""
    aec = wrappers.TerminateIllegalWrapper(ckc_env.raw_env(**kwargs), illegal_reward=-1)
    aec = wrappers.AssertOutOfBoundsWrapper(aec)
    return wrappers.OrderEnforcingWrapper(aec)


@pytest.mark.parametrize("seed", range(6))
def test_env_plays_as_the_wrapped_raw_env(seed):
    """The same games, observations, rewards, infos and endings as the wrapper layers, including an
    illegal action now and then (it ends the game with -1 for its player in both)."""
    kwargs = {"num_players": 3 + seed % 3, "stasi": seed % 2 == 0, "cafe_adler": seed % 3 == 0}
    ours, theirs = ckc_env.env(**kwargs), wrapped(**kwargs)
    rng = np.random.default_rng(seed)
    for game in range(3):
        ours.reset(seed=seed * 10 + game)
        theirs.reset(seed=seed * 10 + game)
        seen = []
        for step, (agent, other) in enumerate(zip(ours.agent_iter(), theirs.agent_iter(), strict=True)):
            assert agent == other
            a, b = ours.last(), theirs.last()
            np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
            np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
            assert a[1:] == b[1:]
            seen.append(a[1])
            if a[2] or a[3]:
                action = None
            elif game == 2 and step == 5 + seed:  # an illegal action in the last game
                action = int(rng.choice(np.flatnonzero(a[0]["action_mask"] == 0)))
            else:
                action = int(rng.choice(np.flatnonzero(a[0]["action_mask"])))
            ours.step(action)
            theirs.step(action)
        assert ours.rewards == theirs.rewards and ours.agents == theirs.agents
        if game == 2:
            assert -1 in seen  # the illegal action ended the game, its player's reward -1
