"""The ``search`` player: the strongest shipped agent's policy, with open choices searched over
worlds drawn from its information set and scored by its critic (ckc_env/agents/search.py), and its
batched form (ckc_env/batch/search.py), which plays the scalar player's games."""

import random

import numpy as np
import pytest

import ckc_env
from ckc_env.agents import make_agent
from ckc_env.batch.search import BatchSearchAgent
from ckc_env.engine.actions import WINDOW
from ckc_env.engine.view import PlayerView
from ckc_env.evaluation.tournament import play_batched, run_tournament
from ckc_env.players.policy import PolicyAgent
from ckc_env.resample import resample

AGENT = "checkpoints/ppo_all_counts_mixed_34p"
WIDE = {"gate": 1.1, "least": 0.0, "confidence": 0.0, "worlds": 6}
"""Searching every window, departing for any gain: a few worlds are enough to see it act."""


def _game(n: int, seed: int, **params):
    """Seat 0's actions in a game of ``search`` against bayes_v2, with the agent file as a shadow."""
    env = ckc_env.raw_env(num_players=n)
    env.reset(seed=seed)
    game = env.unwrapped.game
    players = [make_agent("search", seed=seed, **params)] + [make_agent("bayes_v2", seed=seed + s) for s in range(1, n)]
    shadow = PolicyAgent(AGENT)
    for s, player in enumerate(players):
        player.reset(s, env.config)
    shadow.reset(0, env.config)
    played, shadowed = [], []
    while not game.game_over:
        seat = game.current_seat
        view, observation = PlayerView(game, seat), env.observe_lazily(f"player_{seat}")
        action = players[seat].act(view, observation)
        if seat == 0:
            played.append(action)
            shadowed.append(shadow.act(view, observation))
        env.step(action)
    return played, shadowed, players[0]


def test_search_plays_the_agent_file_where_it_does_not_search():
    """With the gate shut it is the agent file, decision for decision."""
    for n in (3, 5):
        played, shadowed, player = _game(n, seed=n, gate=0.0)
        assert played == shadowed and player.searched == 0 and player.decisions > 5


def test_search_searches_open_choices_and_sometimes_departs_from_the_policy():
    searched = departed = 0
    for seed in range(2):
        played, shadowed, player = _game(3, seed=seed, **WIDE)
        searched += player.searched
        departed += sum(a != b for a, b in zip(played, shadowed, strict=True))
    assert searched > 0 and 0 < departed < searched


@pytest.mark.parametrize("opponents", ["bayes_v1", "bayes_v2", "policy"])
def test_every_model_of_the_other_seats_plays_the_continuations(opponents):
    played, shadowed, player = _game(4, seed=5, **{**WIDE, "worlds": 2, "opponents": opponents})
    assert player.searched > 0 and len(played) == len(shadowed)


def test_by_default_it_searches_only_where_the_policy_is_unsure():
    _, _, player = _game(3, seed=1)
    assert player.decisions > 0 and player.searched < player.decisions / 2


def test_two_positions_the_seat_cannot_tell_apart_get_the_same_decision():
    """The true state and a world drawn from it (every hidden card dealt afresh): the same search,
    the same worlds, the same decision; no hidden information enters the search."""
    checked = 0
    for seed in (2, 3):
        env = ckc_env.raw_env(num_players=4)
        env.reset(seed=seed)
        game = env.unwrapped.game
        bots = [make_agent("bayes_v1", seed=seed + s) for s in range(4)]
        for s, bot in enumerate(bots):
            bot.reset(s, env.config)
        while not game.game_over and checked < 6 * (seed - 1):
            seat = game.current_seat
            view = PlayerView(game, seat)
            if view.decision_kind == WINDOW and game.deck_pos >= 4:
                other = resample(game, seat, random.Random(seed).random)
                decisions, searched = [], []
                for state in (game, other):
                    player = make_agent("search", seed=11, **WIDE)
                    player.reset(seat, env.config)
                    there = PlayerView(state, seat)
                    mask = {"action_mask": np.asarray(ckc_env.engine.legal_mask(state))}
                    decisions.append(player.act(there, mask))
                    searched.append(player.searched)
                assert decisions[0] == decisions[1] and searched == [1, 1]
                checked += 1
            env.step(bots[seat].act(view, env.observe_lazily(f"player_{seat}")))
    assert checked >= 6


def test_search_parameters_are_checked():
    assert make_agent("search", seed=0, worlds=8).params.worlds == 8
    for bad in ({"worlds": 0}, {"worlds": 2.5}, {"top": 1}, {"gate": -1}, {"horizon": 0}, {"opponents": "cheater"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            make_agent("search", seed=0, **bad)
    with pytest.raises(ValueError, match="accepted") as info:
        make_agent("search", seed=0, depth=3)
    for param in ("agent", "worlds", "top", "least", "gate", "horizon", "opponents", "confidence"):
        assert param in str(info.value)


BOTH = {"stasi": True, "cafe_adler": True, "clue_face": "choose"}
"""Both variants and chosen clue faces: continuations to the game's end meet the models' random
choices (a face, a Cafe Adler swap), drawn from each world's seeded models as the scalar player's."""


@pytest.mark.parametrize(
    ("n", "params", "rules"),
    [
        (3, {"confidence": 0.0}, {}),
        (3, {"confidence": 0.0, "horizon": 1000, "worlds": 4}, BOTH),
        pytest.param(4, {"confidence": 0.0, "opponents": "policy", "horizon": 2}, {}, marks=pytest.mark.slow),
        pytest.param(5, {"opponents": "bayes_v2", "confidence": 0.5}, {}, marks=pytest.mark.slow),
    ],
)
def test_the_batched_search_plays_the_scalar_players_games(n, params, rules):
    """On the batched engine (every searched game's worlds and candidates continued in one batch)
    the same worlds, continuations and scores: every game's result equal to the scalar engine's,
    with departures from the policy made along the way."""
    lineup = [{"name": "search", **params}] + ["bayes_v2"] * (n - 1)
    games = 2 * n
    scalar = run_tournament(lineup, games=games, seed=44, engine="scalar", workers=1, config=rules)
    batched = run_tournament(lineup, games=games, seed=44, engine="batched", workers=1, config=rules)
    assert batched.engine == "batched" and scalar.engine == "scalar"
    assert batched.per_game == scalar.per_game
    player = BatchSearchAgent(seed=0, **params)
    shadow = [AGENT] + ["bayes_v2"] * (n - 1)
    with_search = play_batched([player, *lineup[1:]], {**rules, "num_players": n}, 44, range(games))
    alone = play_batched(shadow, {**rules, "num_players": n}, 44, range(games))
    assert player.searched > 0 and player.departed > 0
    assert with_search != alone  # the departures changed some games


def test_the_batched_search_is_refused_its_bad_parameters_by_name():
    with pytest.raises(ValueError, match="opponents='cheater'"):
        BatchSearchAgent(seed=0, opponents="cheater")
    with pytest.raises(ValueError, match="accepted"):
        BatchSearchAgent(seed=0, depth=3)
