"""The scripted agents (ckc_env.agents): legal play, fairness, their documented behaviour, strength.

- Legal play: every registered agent plays whole games, at tables of 3, 4 and 5 with every window
  order and both variants, choosing clue faces (``clue_face="choose"``), without an illegal action.
  At every decision of those games every registered agent is also asked, as a *shadow* at that
  seat, what it would do: so each agent meets each decision kind, even ones its own play never
  reaches (``eager`` is never forced to accuse, since it accuses at its first window).
- Fairness: games A and B are dealt (through reset options) so that the round-1 placements are
  identical while other seats' clues, the bag and therefore the chief differ. A fair agent at seat 0
  with the same seed takes the same actions in both; the cheater does not.
- Behaviour: passive never accuses in a window, eager always does (so at its first window
  decision), bayes_v1 takes a cat it knows to be the chief, forced accusations name a cat.
- Registry errors name the accepted values; strength sanity on small seeded tournaments.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pytest

import ckc_env
from ckc_env.agents import BASELINES, REGISTRY, make_agent
from ckc_env.config import GameConfig
from ckc_env.engine.actions import ACCUSE, CAFE_ADLER, CLUE_FACE, DECISION_KINDS, FORCED_ACCUSATION, PASS, WINDOW
from ckc_env.engine.cards import INVESTIGATOR, N_CATS, cats_in, chief_of
from ckc_env.engine.game import SCORING
from ckc_env.engine.view import PlayerView
from ckc_env.evaluation.tournament import play_game, run_tournament
from ckc_env.observation import OBSERVATION
from ckc_env.reading.beliefs import beliefs, weighted_beliefs
from ckc_env.table.scalar import Table

AGENTS = sorted(REGISTRY)
FAIR = sorted(BASELINES)
WINDOW_ORDERS = ("random", "clockwise_from_drawer", "clockwise_after_drawer")
FULL_RULES = {"stasi": True, "cafe_adler": True, "clue_face": "choose"}
QUICK = {"rollout": {"worlds": 2}, "search": {"worlds": 2}}
"""Few worlds for the searching player where a test is about legality or fairness, not strength."""
SHADOW = {"rollout": {"worlds": 2, "endgame": 0}, "search": {"worlds": 2}}
"""As a shadow it is asked at every decision of many games: rollouts of the round only."""


def quick_agent(name: str, seed: int, settings: dict = QUICK):
    return make_agent(name, seed=seed, **settings.get(name, {}))


def test_the_registry_holds_the_documented_agents():
    assert AGENTS == ["bayes_v1", "bayes_v2", "bayes_v3", "cheater", "eager", "passive", "random", "rollout", "search"]
    assert "cheater" not in BASELINES and "search" not in BASELINES  # search plays an agent file
    assert [REGISTRY[name].reads_hidden_state for name in AGENTS] == [False] * 3 + [True] + [False] * 5


# ---------------------------------------------------------------------- legal play, every decision kind
@dataclass
class Decision:
    agent: str
    seated: bool  # False: a shadow's answer, not played
    kind: int
    action: int
    legal: list[int]
    sure_chief: int  # a target with P(chief) = 1 for the seat, or -1


def sure_chief(view: PlayerView) -> int:
    if view.decision_kind not in (WINDOW, FORCED_ACCUSATION):
        return -1
    chief = beliefs(view).chief
    return next((c for c in cats_in(view.targets) if chief[c] == 1.0), -1)


def play_recorded(n: int, config: dict, lineup: list[str], seed: int) -> list[Decision]:
    """One game with ``lineup[s]`` at seat s; every registered agent shadows every seat."""
    env = ckc_env.raw_env(num_players=n, **config)
    env.reset(seed=seed)
    game = env.unwrapped.game
    seated = [quick_agent(name, seed=seed * 10 + s) for s, name in enumerate(lineup)]
    shadows = [{name: quick_agent(name, seed=seed * 10 + s, settings=SHADOW) for name in AGENTS} for s in range(n)]
    for s in range(n):
        seated[s].reset(s, env.config)
        for shadow in shadows[s].values():
            shadow.reset(s, env.config)
    views = [PlayerView(game, s) for s in range(n)]
    records = []
    while not game.game_over:
        seat = game.current_seat
        view, obs = views[seat], env.observe(f"player_{seat}")
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        sure = sure_chief(view)
        for name, shadow in shadows[seat].items():
            records.append(Decision(name, False, view.decision_kind, int(shadow.act(view, obs)), legal, sure))
        action = int(seated[seat].act(view, obs))
        records.append(Decision(lineup[seat], True, view.decision_kind, action, legal, sure))
        assert action in legal, f"{lineup[seat]} chose illegal {action}; legal {legal}"
        env.step(action)
    return records


def table_configs():
    for n in (3, 4, 5):
        for order in WINDOW_ORDERS:
            for rules in ({}, FULL_RULES):
                yield n, {"window_order": order, **rules}


@pytest.fixture(scope="module")
def decisions() -> list[Decision]:
    """Games at every table size, window order and rule set: the five agents rotate through the
    seats, and one game per setting seats an agent among passive players, which leaves rounds to
    forced accusations."""
    records = []
    for i, (n, config) in enumerate(table_configs()):
        for g in range(2):
            lineup = [AGENTS[(i + g + s) % len(AGENTS)] for s in range(n)]
            records += play_recorded(n, config, lineup, seed=100 * i + g)
        lineup = [AGENTS[i % len(AGENTS)]] + ["passive"] * (n - 1)
        records += play_recorded(n, config, lineup, seed=100 * i + 99)
    return records


@pytest.mark.slow
@pytest.mark.parametrize("name", AGENTS)
@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("window_order", WINDOW_ORDERS)
def test_agent_plays_whole_games_legally(name, n, window_order):
    """The agent in every seat, both variants, chosen clue faces: play_game checks legality (the
    table raises ValueError naming the player on an illegal action); the game ends with results for every seat."""
    table = Table(GameConfig(num_players=n, window_order=window_order, **FULL_RULES), OBSERVATION)
    for seed in range(2):
        agents = [quick_agent(name, seed=seed * 10 + s) for s in range(n)]
        result = play_game(table, agents, seed)
        assert table.game.game_over
        assert sum(result["win"]) == pytest.approx(1.0)
        assert len(result["points"]) == n


@pytest.mark.slow
@pytest.mark.parametrize("name", AGENTS)
def test_every_agent_answers_every_decision_kind_legally(decisions, name):
    mine = [d for d in decisions if d.agent == name]
    assert {d.kind for d in mine} == set(range(len(DECISION_KINDS)))
    illegal = [d for d in mine if d.action not in d.legal]
    assert not illegal, f"{name} chose illegal actions: {illegal[:3]}"


@pytest.mark.slow
@pytest.mark.parametrize("name", AGENTS)
def test_seated_agents_meet_windows_clue_faces_and_adler_chips(decisions, name):
    """In its own play every agent meets windows, clue faces and Cafe Adler chips. Forced
    accusations come to a seat only when it never accused in a window: in practice to passive (the
    others meet them as shadows, above)."""
    kinds = Counter(d.kind for d in decisions if d.agent == name and d.seated)
    assert kinds[WINDOW] and kinds[CLUE_FACE] and kinds[CAFE_ADLER], kinds
    if name == "passive":
        assert kinds[FORCED_ACCUSATION], kinds


@pytest.mark.slow
def test_forced_accusations_always_name_a_cat(decisions):
    forced = [d for d in decisions if d.kind == FORCED_ACCUSATION]
    assert len(forced) >= 50
    assert all(ACCUSE <= d.action < ACCUSE + N_CATS for d in forced)


@pytest.mark.slow
def test_passive_never_accuses_in_a_window(decisions):
    windows = [d for d in decisions if d.agent == "passive" and d.kind == WINDOW]
    assert len(windows) >= 100
    assert all(d.action == PASS for d in windows)


@pytest.mark.slow
def test_eager_accuses_at_its_first_window_decision(decisions):
    """Every window decision of eager is an accusation, so in particular its first of each round."""
    windows = [d for d in decisions if d.agent == "eager" and d.kind == WINDOW]
    assert len(windows) >= 100
    assert all(d.action != PASS for d in windows)


@pytest.mark.slow
def test_bayes_takes_a_target_it_knows_to_be_the_chief(decisions):
    sure = [d for d in decisions if d.agent == "bayes_v1" and d.sure_chief >= 0]
    assert len(sure) >= 10, "too few positions with a certain chief to test"
    assert all(d.action == ACCUSE + d.sure_chief for d in sure)


def test_bayes_takes_a_certain_chief_in_a_constructed_position():
    """3 players, clues all value A (a cat goes to seat s's row iff bit s is set), chief cat 31.
    Seat 0 draws both investigator cards (features 3 and 4 revealed), then the chief into its row.
    Seat 1's row gets cats 0b00010 and 0b00110, seat 2's row cat 0b00100: only then are the hidden
    clues of seats 1 and 2 certain, and so is the chief. bayes_v1 at seat 0 accuses him, at the latest
    then."""
    top = [INVESTIGATOR, INVESTIGATOR, 31, 0b00010, 0b00100, 0b00001, 0b00110]
    deck = top + [c for c in range(N_CATS) if c not in top]
    env = ckc_env.raw_env(num_players=3, window_order="clockwise_from_drawer")
    env.reset(seed=0, options={"first_player": 0, "deck": deck, "clues": [0, 2, 4], "bag": [6, 8]})
    game = env.unwrapped.game
    agent = make_agent("bayes_v1", seed=0)
    agent.reset(0, env.config)
    view = PlayerView(game, 0)
    seen = []  # (cards drawn, the certain chief or -1, action) at each of seat 0's decisions
    while game.phase < SCORING:
        if game.current_seat == 0:
            action = agent.act(view, env.observe("player_0"))
            seen.append((len(game.card_order), sure_chief(view), action))
            if action != PASS:
                break
        else:  # the other seats pass (the round never gets to forced accusations here)
            assert game.pending_kind == WINDOW
            action = PASS
        env.step(action)
    for _, sure, action in seen:  # a certain chief is never passed over
        if sure >= 0:
            assert action == ACCUSE + sure, seen
    assert seen[-1][2] == ACCUSE + 31, seen  # it takes the chief (with the tuned bar, before he is certain)


# ---------------------------------------------------------------------- fairness
def hidden_pair(n: int) -> tuple[dict, dict, int, int]:
    """Reset options of games A and B that differ only in what seat 0 cannot know.

    A: seat s holds value A of feature s, the bag tiles value A: the chief is cat 31.
    B: seats 1 and 2 hold value B of features 2 and 1 instead, the bag tiles value B.
    A cat with bit 1 != bit 2 lands in the same pile for seat 1 (A: bit 1 set; B: bit 2 clear) and
    for seat 2 in both games, so seats 1 and 2 draw only such cats; seats 0, 3 and 4 keep their
    clues. Every placement is the same until an investigator card reveals a (different) bag tile:
    they lie at positions 16.. . Seat 0 draws A's chief first and B's chief second (both have bit 0,
    so both land in seat 0's row).
    Returns (options A, options B, chief A, chief B).
    """
    k = 5 - n
    clues_a, bag_a = [0, 2, 4, 6, 8][:n], [0, 2, 4, 6, 8][n:]
    clues_b, bag_b = [0, 5, 3, *clues_a[3:]], [c ^ 1 for c in bag_a]
    chief_a, chief_b = chief_of(clues_a + bag_a), chief_of(clues_b + bag_b)
    deck: list[int | None] = [None] * (N_CATS + k)
    deck[16 : 16 + k] = [INVESTIGATOR] * k
    deck[0], deck[n] = chief_a, chief_b
    same_pile = [c for c in range(N_CATS) if (c >> 1 & 1) != (c >> 2 & 1)]
    for p in range(16 if k else N_CATS):  # before the first investigator card, seat p % n draws
        if p % n in (1, 2):
            deck[p] = same_pile.pop(0)
    rest = [c for c in range(N_CATS) if c not in deck]
    deck = [rest.pop(0) if card is None else card for card in deck]
    first = {"first_player": 0}
    return (
        {**first, "deck": deck, "clues": clues_a, "bag": bag_a},
        {**first, "deck": deck, "clues": clues_b, "bag": bag_b},
        chief_a,
        chief_b,
    )


def seat0_answers(n: int, seed: int) -> dict[str, tuple[list[int], list[int]]]:
    """What every registered agent would do at seat 0's decisions in games A and B, while everything
    seat 0 can know is the same in both.

    Each agent has one instance per game, with the same seed. The games are played by puppets: seat 0
    passes in every window (so it keeps deciding), the others pass mostly; both games get the same
    puppet choices. Seat 0's observation, the acting seat and the legal actions are checked to be
    identical all along, so a difference in an agent's answers can only come from hidden information.
    """
    options_a, options_b, _, _ = hidden_pair(n)
    envs = [ckc_env.raw_env(num_players=n) for _ in range(2)]
    for env, options in zip(envs, (options_a, options_b), strict=True):
        env.reset(seed=seed, options=options)
    games = [env.unwrapped.game for env in envs]
    views = [PlayerView(game, 0) for game in games]
    agents = {name: [quick_agent(name, seed=seed) for _ in envs] for name in AGENTS}
    for pair in agents.values():
        for agent, env in zip(pair, envs, strict=True):
            agent.reset(0, env.config)
    answers: dict[str, tuple[list[int], list[int]]] = {name: ([], []) for name in AGENTS}
    puppet = random.Random(seed)
    while all(g.round_index == 0 and g.phase < SCORING and not g.public_clues for g in games):
        obs = [env.observe("player_0") for env in envs]
        assert np.array_equal(obs[0]["observation"], obs[1]["observation"]), "the construction leaks"
        assert games[0].current_seat == games[1].current_seat
        seat = games[0].current_seat
        masks = [env.observe(f"player_{seat}")["action_mask"] for env in envs]
        assert np.array_equal(masks[0], masks[1])
        if seat == 0:
            for name, pair in agents.items():
                for side, (agent, view, o) in enumerate(zip(pair, views, obs, strict=True)):
                    answers[name][side].append(int(agent.act(view, o)))
        legal = np.flatnonzero(masks[0]).tolist()
        passes = PASS in legal and (seat == 0 or puppet.random() < 0.85)
        action = PASS if passes else puppet.choice(legal)
        for env in envs:
            env.step(action)
    return answers


@pytest.fixture(scope="module")
def hidden_answers() -> list[dict[str, tuple[list[int], list[int]]]]:
    return [seat0_answers(n, seed) for n in (3, 4, 5) for seed in range(3)]


def test_the_hidden_pair_differs_only_in_hidden_information():
    for n in (3, 4, 5):
        a, b, chief_a, chief_b = hidden_pair(n)
        assert a["deck"] == b["deck"] and a["clues"][0] == b["clues"][0] and chief_a != chief_b
        assert sorted(c for c in a["deck"] if c != INVESTIGATOR) == list(range(N_CATS))


@pytest.mark.parametrize("name", FAIR)
def test_fair_agents_act_only_on_what_their_seat_knows(hidden_answers, name):
    for answers in hidden_answers:
        in_a, in_b = answers[name]
        assert in_a == in_b, f"{name} answered differently on identical information"
    assert sum(len(answers[name][0]) for answers in hidden_answers) >= 50
    if name != "passive":  # the comparison includes accusations, not only passes
        assert any(a != PASS for answers in hidden_answers for a in answers[name][0])


def test_the_cheater_acts_on_hidden_clues(hidden_answers):
    """Seat 0's first row cat is cat 31, the chief in A and not in B: the cheater accuses him in A
    and waits in B."""
    for answers in hidden_answers:
        in_a, in_b = answers["cheater"]
        assert in_a != in_b
        assert (in_a[0], in_b[0]) == (ACCUSE + 31, PASS)


# ---------------------------------------------------------------------- the registry
def test_unknown_agent_names_the_registered_ones():
    with pytest.raises(ValueError, match="unknown agent 'nope'") as info:
        make_agent("nope")
    for name in AGENTS:
        assert name in str(info.value)


def test_bayes_parameters():
    assert make_agent("bayes_v1", seed=0, sure=0.7).params.sure == 0.7
    with pytest.raises(ValueError, match="bogus") as info:
        make_agent("bayes_v1", seed=0, bogus=1.0)
    for param in ("sure", "bar_early", "bar_late", "margin_last"):
        assert param in str(info.value)


def test_same_seed_same_agent_choices():
    """An agent's randomness comes from its seed: two games with the same seeds are identical."""
    env = ckc_env.raw_env(num_players=4, **FULL_RULES)
    results = [play_game(env.config, [make_agent("random", seed=s) for s in range(4)], seed=3) for _ in range(2)]
    assert results[0] == results[1]


# ---------------------------------------------------------------------- strength sanity
def win_stats(lineup: list[str], seed: int = 0):
    return [s["win"] for s in run_tournament(lineup, games=300, seed=seed, workers=2).stats()]


def test_bayes_beats_random():
    bayes, *randoms = win_stats(["bayes_v1", "random", "random", "random", "random"])
    assert bayes.mean > 1 / 5 and bayes.low > 0.2
    assert all(bayes.low > r.high for r in randoms)


def test_bayes_beats_passive():
    bayes, passive, *_ = win_stats(["bayes_v1", "passive", "random", "random", "random"])
    assert bayes.low > passive.high


def test_cheater_beats_bayes():
    cheater, bayes, *_ = win_stats(["cheater", "bayes_v1", "random", "random", "random"])
    assert cheater.low > bayes.high


# ---------------------------------------------------------------------- bayes_v2
def _bayes_table(n: int, seed: int, shadows: dict[str, dict]) -> list[tuple[int, dict[str, int], dict[str, float]]]:
    """A table of bayes_v1 players; at every accusation decision, each shadow (name -> bayes_v2
    parameters) answers for the seat too. Returns (true chief, shadow actions, shadow P(true chief))."""
    env = ckc_env.raw_env(num_players=n)
    env.reset(seed=seed)
    game = env.unwrapped.game
    players = [make_agent("bayes_v1", seed=s) for s in range(n)]
    shadow = [{k: make_agent("bayes_v2", seed=s, **p) for k, p in shadows.items()} for s in range(n)]
    for s in range(n):
        players[s].reset(s, env.config)
        for agent in shadow[s].values():
            agent.reset(s, env.config)
    out = []
    while not game.game_over:
        seat = game.current_seat
        view, obs = PlayerView(game, seat), env.observe_lazily(f"player_{seat}")
        if view.decision_kind in (WINDOW, FORCED_ACCUSATION):
            actions = {"bayes_v1": players[seat].act(view, obs)}
            posterior = {"bayes_v1": beliefs(view).chief}
            for name, agent in shadow[seat].items():
                actions[name] = agent.act(view, obs)
                posterior[name] = weighted_beliefs(view, agent.reader.likelihood).chief
            chief = chief_of(game.clues + game.bag)
            out.append((chief, actions, {k: float(p[chief]) for k, p in posterior.items()}))
            env.step(actions["bayes_v1"])
        else:
            env.step(players[seat].act(view, obs))
    return out


def test_bayes_v2_without_trust_in_the_others_is_bayes_v1():
    """follow=0: every decision of the others is as likely under every clue, so bayes_v2 decides as
    bayes_v1 does."""
    for n in (3, 4, 5):
        for seed in range(3):
            for _, actions, _ in _bayes_table(n, seed, {"blind": {"follow": 0.0}}):
                assert actions["blind"] == actions["bayes_v1"]


def test_bayes_v2_reads_the_others_decisions():
    """Among bayes_v1 players, what their accusations and passes reveal puts more weight on the true
    chief: the mean log-probability of the truth rises over bayes_v1's card-only posterior."""
    for n in (3, 5):
        records = [r for seed in range(4) for r in _bayes_table(n, 10 + seed, {"bayes_v2": {}})]
        v1 = np.mean([np.log(p["bayes_v1"] + 1e-9) for _, _, p in records])
        v2 = np.mean([np.log(p["bayes_v2"] + 1e-9) for _, _, p in records])
        assert v2 > v1 + 0.05, (n, v1, v2)
        assert sum(a["bayes_v2"] != a["bayes_v1"] for _, a, _ in records) > 0


def test_what_the_table_reveals_depends_on_the_record_not_on_when_it_was_read():
    """A PlayersReader brought up to date at every decision and one reading the whole round at once give
    bit-identical likelihoods: an observation built from them is a function of the game's state."""
    from ckc_env.reading.bayes_rule import BayesParams
    from ckc_env.reading.chip_values import expected_chip_values
    from ckc_env.reading.players_posterior import PlayersReader

    checked = 0
    for n, config in ((3, {}), (4, {"stasi": True}), (5, {"reopen_windows": True})):
        env = ckc_env.raw_env(num_players=n, **config)
        env.reset(seed=n)
        game = env.unwrapped.game
        players = [make_agent("bayes_v1", seed=s) for s in range(n)]
        for s in range(n):
            players[s].reset(s, env.config)
        readers = [PlayersReader(s, BayesParams(), 0.8) for s in range(n)]
        rng = random.Random(n)
        while not game.game_over:
            seat = game.current_seat
            view = PlayerView(game, seat)
            if view.phase < SCORING:
                for s in range(n):
                    observer = PlayerView(game, s)
                    values = expected_chip_values(observer)
                    kept = readers[s].update(observer, values)
                    if rng.random() < 0.2:
                        fresh = PlayersReader(s, BayesParams(), 0.8).update(observer, values)
                        for other in kept:
                            assert np.array_equal(kept[other], fresh[other])
                        checked += 1
            env.step(players[seat].act(view, env.observe_lazily(f"player_{seat}")))
    assert checked > 50


# ---------------------------------------------------------------------- rollout
def _seat0_actions(first: str, n: int, seed: int, **params) -> tuple[list[int], list[int], object]:
    """Seat 0's actions in a game of ``first`` against bayes_v2, with a bayes_v2 shadow at seat 0."""
    env = ckc_env.raw_env(num_players=n)
    env.reset(seed=seed)
    game = env.unwrapped.game
    players = [make_agent(first, seed=seed, **params)] + [make_agent("bayes_v2", seed=seed + s) for s in range(1, n)]
    shadow = make_agent("bayes_v2", seed=seed)
    for s, player in enumerate(players):
        player.reset(s, env.config)
    shadow.reset(0, env.config)
    played, shadowed = [], []
    while not game.game_over:
        seat = game.current_seat
        view, observation = PlayerView(game, seat), env.observe_lazily(f"player_{seat}")
        action = players[seat].act(view, observation)
        if seat == 0 and view.decision_kind in (WINDOW, FORCED_ACCUSATION):
            played.append(action)
            shadowed.append(shadow.act(view, observation))
        env.step(action)
    return played, shadowed, players[0]


# ---------------------------------------------------------------------- bayes_v3
def test_bayes_v3_with_an_uninformed_inner_model_is_bayes_v2():
    """inner_follow=0: each modelled player reads nothing from the others' decisions, which is
    bayes_v1, the model bayes_v2 has of them: the two play alike, decision for decision."""
    for n in (3, 4, 5):
        for seed in (1, 2):
            played, shadowed, _ = _seat0_actions("bayes_v3", n, seed=10 * n + seed, inner_follow=0.0)
            assert played == shadowed and len(played) > 5


def test_bayes_v3_reads_the_table_otherwise_than_bayes_v2():
    """With its default model of the others (bayes_v2 themselves) some of its decisions differ."""
    differing = sum(
        a != b for seed in range(6) for a, b in zip(*_seat0_actions("bayes_v3", 4, seed=seed)[:2], strict=True)
    )
    assert differing > 0


def test_bayes_v3_parameters_are_checked():
    assert make_agent("bayes_v3", seed=0, inner_follow=0.5).params.inner_follow == 0.5
    with pytest.raises(ValueError, match=r"inner_follow=1\.0 must lie in \[0, 1\)"):
        make_agent("bayes_v3", seed=0, inner_follow=1.0)
    with pytest.raises(ValueError, match="unknown bayes_v3 parameter"):
        make_agent("bayes_v3", seed=0, depth=2)


def test_rollout_plays_bayes_v2_where_it_does_not_search():
    """With the gates shut (no target is likely enough) it is bayes_v2, decision for decision."""
    for n in (3, 4, 5):
        played, shadowed, player = _seat0_actions("rollout", n, seed=n, gate=1.1, gate_ev=-100.0)
        assert played == shadowed and player.searched == 0 and player.decisions > 0


def test_rollout_searches_open_choices_and_sometimes_departs_from_bayes_v2():
    """With the confidence guard off, a few worlds are enough to see it act on its rollouts."""
    searched = departed = 0
    for seed in range(3):
        played, shadowed, player = _seat0_actions("rollout", 3, seed=seed, worlds=8, confidence=0.0, endgame=0)
        searched += player.searched
        departed += sum(a != b for a, b in zip(played, shadowed, strict=True))
        assert player.searched < player.decisions  # clear choices are not searched
    assert searched > 0 and 0 < departed < searched


def test_rollout_parameters_are_checked():
    assert make_agent("rollout", seed=0, worlds=8).params.worlds == 8
    for bad in ({"worlds": 0}, {"worlds": 2.5}, {"follow": 1.0}, {"endgame": 0.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            make_agent("rollout", seed=0, **bad)
    with pytest.raises(ValueError, match="accepted") as info:
        make_agent("rollout", seed=0, depth=3)
    for param in ("worlds", "gate", "gate_ev", "spite", "confidence", "endgame", "follow"):
        assert param in str(info.value)


def test_rollout_knows_when_a_round_may_end_the_game():
    """RULES.md 6: the last round allowed, or a seat that a gold chip could take to the target."""
    from ckc_env.agents.rollout import may_end_game

    for settings, expected in (({}, False), ({"max_rounds": 1}, True), ({"target_points": 5}, True)):
        env = ckc_env.raw_env(num_players=3, **settings)
        env.reset(seed=0)
        assert may_end_game(PlayerView(env.unwrapped.game, 0)) is expected, settings
