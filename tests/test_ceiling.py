"""The first-round bound on any honest seat (ckc_env/evaluation/ceiling.py, ``ckc-ceiling``): the
walk it reads is every policy's game up to its accusation, its candidates hold the chief, and the
players' own first rounds fall where the argument says they must, deal by deal."""

import json
import random

import pytest
from cli_helpers import refused

from ckc_env.config import GameConfig
from ckc_env.engine import game as engine
from ckc_env.engine.cards import ASSISTANTS, N_CATS, chief_of, clue_feature, matches
from ckc_env.evaluation import ceiling as module
from ckc_env.evaluation.commands import ceiling as command
from ckc_env.evaluation.paired import compare
from ckc_env.observation import OBSERVATION
from ckc_env.seeding import derive_seed
from ckc_env.table.scalar import Table


def _deals(n: int, players: list[str], games: int, seed: int = 7, opponents: str = "bayes_v1", told: bool = False):
    arrangements, games = module.deals([opponents] * (n - 1), games)
    config = {"num_players": n}
    return module._chunk(([opponents] * (n - 1), players, told, config, seed, range(games), arrangements))


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_cheater_catches_the_chief_exactly_where_the_walk_offers_him(n):
    found = _deals(n, ["cheater"], 24)
    for walk, games in found:
        assert (
            games["cheater"].rounds[0].walk == walk
        )  # the walk from the deal is the first round's, whoever sits there
        for round_ in games["cheater"].rounds:  # every round, from where the cheater's own game stood
            assert round_.caught == round_.walk.opportunity
            if n == 5:  # no tile in the bag: every clue granted is every clue
                assert round_.walk.bound == float(round_.walk.opportunity)
    assert sum(len(games["cheater"].rounds) for _, games in found) > len(found)  # later rounds were walked too
    # the first round's walk taken from a player's game is the walk alone on the same deal
    assert [walk for walk, _ in _deals(n, [], 24)] == [walk for walk, _ in found]


@pytest.mark.parametrize("n", [3, 4])
def test_an_honest_player_catches_the_chief_only_where_the_bound_leaves_room(n):
    found = _deals(n, ["bayes_v1", "eager", "random"], 36)
    caught = 0
    for walk, games in found:
        assert walk.bound > 0 or not walk.opportunity  # the chief in reach is one of the candidates
        for played in games.values():
            assert played.rounds[0].walk == walk
            for round_ in played.rounds:
                caught += round_.caught
                assert not round_.caught or round_.walk.bound > 0
    assert caught > 0  # the check above was put to work


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_candidates_hold_the_chief_and_halve_with_every_clue_known(n):
    rng = random.Random(n)
    state = engine.init(GameConfig(num_players=n), seed=11 * n)
    seen = 0
    while not state.game_over:
        chief = chief_of(state.clues + state.bag)
        mask = module.candidates(state)
        features = {clue_feature(c) for c in (*state.clues, *state.public_clues)}
        assert (mask >> chief) & 1
        assert mask.bit_count() == 2 ** (5 - len(features))
        seen += 1
        engine.apply(state, rng.choice(engine.legal_actions(state)))
    assert seen > 20


def test_with_every_clue_known_a_targets_worth_is_its_colours_mean():
    state = engine.init(GameConfig(num_players=5), seed=3)
    rng = random.Random(3)
    means = module.colour_means(state)
    checked = 0
    while not state.game_over and not state.summaries:
        targets = state.row_cats & ~state.accused_cats
        if targets:
            chief = chief_of(state.clues + state.bag)
            colour = [0 if matches(c, chief) == 5 else 1 if matches(c, chief) == 4 else 2 for c in range(N_CATS)]
            best = max(means[colour[c]] for c in range(N_CATS) if (targets >> c) & 1)
            assert module.worth_at(state, targets, means) == pytest.approx(best)
            checked += 1
        engine.apply(state, rng.choice(engine.legal_actions(state)))
    assert checked > 0
    assert module.colour_means(engine.init(GameConfig(num_players=3), seed=1)) == pytest.approx([3.8, 1.5, -0.5])


@pytest.mark.parametrize("n", [3, 4, 5])
def test_what_a_seat_told_every_clue_believes_adds_up(n):
    rng = random.Random(n)
    state = engine.init(GameConfig(num_players=n), seed=5 * n)
    while not state.game_over:
        told = module.Told(state)
        chief = chief_of(state.clues + state.bag)
        assert told.chief.sum() == pytest.approx(1) and told.assistant.sum() == pytest.approx(5)
        assert told.chief[chief] == pytest.approx(1 / module.candidates(state).bit_count())
        if n == 5:  # nothing in the bag: what it is told is everything
            assert told.chief[chief] == 1 and all(told.assistant[c] == 1 for c in ASSISTANTS[chief])
        engine.apply(state, rng.choice(engine.legal_actions(state)))


def test_the_told_player_plays_whole_games_beside_the_others():
    found = _deals(3, ["bayes_v1"], 12, told=True)
    assert all(set(games) == {"bayes_v1", module.TOLD} for _, games in found)
    assert sum(games[module.TOLD].win for _, games in found) > 0
    result = module.ceiling("bayes_v1", ["bayes_v1"], games=6, seed=1, num_players=3, workers=1, told=True)
    data = result.to_json()["players"]
    assert data["bayes_v1"]["game"]["win_less_the_first_player"]["mean"] == 0
    assert module.TOLD in data and module.TOLD in result.table()


def test_the_deals_and_seats_are_those_of_a_paired_comparison():
    seed, opponents = 5, ["bayes_v1", "eager"]
    paired = compare("bayes_v1", "random", opponents, games=6, seed=seed, num_players=3, workers=1)
    arrangements, games = module.deals(opponents, 6)
    table = Table(GameConfig(num_players=3), OBSERVATION)
    for g in range(games):
        seating = arrangements[g % len(arrangements)]
        players = module.seated("bayes_v1", opponents, seating, seed, g)
        # the walks from every round's start run on branches: the game itself goes as in the tournament
        played = module.play(table, derive_seed(seed, "game", g), seating.index(0), players)
        assert played.win == paired.first.per_game["win"][0][g]
        assert played.points == paired.first.per_game["points"][0][g]
        assert len(played.rounds) >= 1


def test_ckc_ceiling_writes_its_figures_whole(tmp_path, capsys):
    out = tmp_path / "ceiling"
    command.main(["--opponents", "bayes_v1", "--players", "bayes_v1", "cheater", "--games", "12", "--workers", "1"])
    printed = capsys.readouterr().out
    assert "the bound" in printed and "| cheater |" in printed
    command.main(["--opponents", "bayes_v1", "--games", "6", "--seed", "2", "--workers", "1", "--out", str(out)])
    data = json.loads((tmp_path / "ceiling.json").read_text())
    assert data["games"] == 6 and data["seed"] == 2 and data["num_players"] == 3
    assert 0 <= data["bound"]["chief"]["mean"] <= 1 and 0 <= data["cheater_chance"]["mean"] <= 1
    assert [p.name for p in tmp_path.iterdir()] == ["ceiling.json"]


def test_ckc_ceiling_refuses_bad_input_before_a_deal(tmp_path, capsys):
    refused(capsys, lambda: command.main(["--opponents", "nobody"]), "unknown player 'nobody'", "bayes_v2")
    refused(
        capsys,
        lambda: command.main(["--opponents", "bayes_v1", "eager", "random", "--num-players", "3"]),
        "3 players need 2 opponents",
    )
    refused(capsys, lambda: command.main(["--opponents", "bayes_v1", "--games", "0"]), "--games", "1 to")
    refused(capsys, lambda: command.main(["--opponents", "bayes_v1", "--players", "eager", "eager"]), "names one twice")
    refused(capsys, lambda: command.main(["--opponents", "bayes_v1", "--seed", str(2**64)]), "--seed", str(2**64 - 1))
    (tmp_path / "folder.json").mkdir()
    refused(capsys, lambda: command.main(["--opponents", "bayes_v1", "--out", str(tmp_path / "folder")]), "folder")
    assert [p.name for p in tmp_path.iterdir()] == ["folder.json"]


def test_the_figures_do_not_depend_on_the_workers():
    one, two = (
        module.ceiling("bayes_v1", ["eager"], games=12, seed=3, num_players=3, workers=w, told=True).to_json()
        for w in (1, 2)
    )
    assert one == two
