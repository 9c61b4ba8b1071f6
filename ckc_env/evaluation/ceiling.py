"""What any honest seat can catch: an upper bound on the chance that a player without the hidden
cards accuses the chief in a round, against given opponents, on a paired comparison's deals.

The argument. Until a seat accuses, its only decisions are passes, so up to its accusation every
policy of that seat sees the same round: the round as it goes with that seat passing at every
window (the *all-pass walk*; the deal, the window orders and the opponents' seeds are the
comparison's). A policy is therefore a stopping rule on that walk (the decision at which it
accuses) and a target. Grant the seat more than it sees: every player's clue, not the tiles left
in the bag. Then the chief is one of the cats that show every clue value known so far (own, the
others', those the investigator cards revealed), each equally likely: the bag's faces are fair
tosses that nothing shown before their reveal depends on (the opponents decide on their clues,
the public record, their chips and their seeds). So at each of the seat's decisions on the walk,
any target it may accuse is the chief with probability at most ``m = 1 / |candidates|`` where a
candidate is a legal target, and 0 where none is; whatever the policy, it catches the chief with
probability at most the walk's largest ``m`` (a prophet's bound: the best moment chosen with
hindsight). Averaged over the deals, that bounds every player without the hidden cards in that
seat, however it searches, learns or reads the others (the interval is the sampling error of the
mean over deals). In the first round the same holds for the chip's worth in expectation (each
colour's chance for the best target, or the non-accuser's chip as it fell): no supply can run
out in a round's first hand-out, so a colour's mean value is what its chip is worth.

A round after the first starts where the seat's own play left the game (chips, scores, the first
player), so the bound of later rounds is taken from the starts of a given player's rounds (a walk
on a :meth:`~ckc_env.table.scalar.Table.branch`, the opponents copied as they stand): what any
honest player could catch in that round from there.

The same walk gives the cheater's chance: it passes until the chief is a legal target (then
accuses him), so it catches him exactly when he is a legal target at one of the seat's decisions
on the walk (``opportunity``); ``tests/test_ceiling.py`` checks both, round by round. At 5 players
no tile stays in the bag: every clue is granted and the bound is the cheater's chance.
:class:`ToldAgent` plays on what the bound grants (bayes_v1's rule on :class:`Told`), for a whole
game's win rate of a player that knows more than any honest one. The default rules only.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..agents.bayes import BayesAgent
from ..cli import check_count
from ..config import BLACK, COLOURS, GOLD, MAX_PLAYERS, MIN_PLAYERS, WHITE, GameConfig
from ..engine.actions import ACCUSE, FORCED_ACCUSATION, PASS, WINDOW
from ..engine.cards import CLUE_CATS, N_CATS, N_FEATURES, cat_has_clue, chief_of
from ..engine.state import GameState
from ..engine.view import PlayerView
from ..observation import OBSERVATION
from ..players import build as build_player
from ..players import seating_key, specs
from ..players import validate as validate_player
from ..players.specs import PlayerSpec
from ..reading.bayes_rule import decide
from ..seeding import derive_seed
from ..table.rewards import win_share
from ..table.scalar import Table
from .seating import seatings
from .statistics import Stat
from .tournament import _check_seed_and_workers, _positive_games, _progress, in_chunks

ALL_CATS = (1 << N_CATS) - 1


def candidates(state: GameState) -> int:
    """The cats (a bitmask) that show every clue value known to a seat told all the players'
    clues: its own, the others', and the bag's tiles revealed so far."""
    mask = ALL_CATS
    for clue in (*state.clues, *state.public_clues):
        if clue >= 0:
            mask &= CLUE_CATS[clue]
    return mask


def chance_at(state: GameState, targets: int) -> float:
    """The most any accusation can catch the chief with, for a seat told every player's clue:
    ``1 / |candidates|`` where a candidate is among ``targets``, else 0."""
    mask = candidates(state)
    return 1.0 / mask.bit_count() if mask & targets else 0.0


def colour_means(state: GameState) -> list[float]:
    """The mean value of a chip taken of each colour in the first round: its supply's mean (every
    chip of a colour is equally likely, and the supplies cannot run out in one round)."""
    values = state.pool.value
    return [sum(values[c] for c in supply) / len(supply) if supply else 0.0 for supply in state.supply]


class Told:
    """What a seat told every player's clue (not the tiles in the bag) believes: each cat's chance
    of being the chief and an assistant. The bag's unknown faces are fair tosses, so a cat's count
    of clue values is the count it shows of the known ones plus a binomial over the unknown ones.
    It has the fields bayes_v1's rule reads (``reading.bayes_rule.decide``)."""

    def __init__(self, state: GameState) -> None:
        known = [clue for clue in (*state.clues, *state.public_clues) if clue >= 0]
        unknown = N_FEATURES - len(known)
        self.chief, self.assistant = np.zeros(N_CATS), np.zeros(N_CATS)
        for cat in range(N_CATS):
            shown = sum(cat_has_clue(cat, clue) for clue in known)
            if shown >= N_FEATURES - unknown:
                self.chief[cat] = math.comb(unknown, N_FEATURES - shown) / 2**unknown
            if 4 - unknown <= shown <= 4:
                self.assistant[cat] = math.comb(unknown, 4 - shown) / 2**unknown


def worth_at(state: GameState, targets: int, means: Sequence[float]) -> float:
    """The most a first-round accusation can be worth in expectation to a seat told every player's
    clue: over the targets, the chance of each colour (:class:`Told`) times the colour's mean value;
    ``-inf`` where there is no target."""
    told = Told(state)
    worth = told.chief * means[GOLD] + told.assistant * means[WHITE] + (1 - told.chief - told.assistant) * means[BLACK]
    return max((float(worth[cat]) for cat in range(N_CATS) if (targets >> cat) & 1), default=-math.inf)


class ToldAgent(BayesAgent):
    """bayes_v1's rule on what a seat told every player's clue believes (:class:`Told`): a player
    that knows more than any honest one, though not the bag's faces. It reads the hidden state, as
    ``cheater`` does: a reference for the ceiling, not a player of the registry."""

    name = "told"
    reads_hidden_state = True

    def accuse(self, view: PlayerView, forced: bool) -> int:
        return decide(self.params, view, Told(view._state), forced, self.chip_values(view))


@dataclass
class Walk:
    """One round of one deal with the seat passing: the bound and the cheater's chance."""

    bound: float = 0.0  # the largest chance at any of the seat's decisions
    opportunity: bool = False  # the chief was a legal target at one of them
    decisions: int = 0
    candidates: int = 0  # how many cats could be the chief where the bound was reached (0: never)
    worth: float = -math.inf  # the most the seat's chip of the round can be worth in expectation


def walk(table: Table, seat: int, opponents: Sequence[Any]) -> Walk:
    """The all-pass walk of the round whose start the table's game is at, with ``opponents[s]`` at
    every other seat s (the game is played on: give a :meth:`~ckc_env.table.scalar.Table.branch`
    to keep it)."""
    game = table.game
    done = len(game.summaries)
    out, means = Walk(), colour_means(game)
    while not game.game_over and len(game.summaries) == done:
        current = game.current_seat
        if current != seat:
            action = opponents[current].act(table.views[current], table.lazy_observation(current))
            table.apply(action)
            continue
        targets = table.views[seat].targets
        chance = chance_at(game, targets)
        chief = chief_of(game.clues + game.bag)
        out.decisions += 1
        out.opportunity |= bool((targets >> chief) & 1)
        if chance > out.bound:
            out.bound, out.candidates = chance, candidates(game).bit_count()
        out.worth = max(out.worth, worth_at(game, targets, means))
        if game.pending_kind == WINDOW:
            table.apply(PASS)
        elif game.pending_kind == FORCED_ACCUSATION:  # its last decision of the round: any target
            table.apply(ACCUSE + (targets & -targets).bit_length() - 1)
        else:
            raise ValueError(f"the ceiling covers the default rules: a decision of kind {game.pending_kind} came up")
    summary = game.summaries[done]
    if any(r["seat"] == seat for r in summary["non_accusers"]):  # never accusing was open to it: its chip as it fell
        out.worth = max(out.worth, served_worth(summary, seat, means))
    return out


def served_worth(summary: dict[str, Any], seat: int, means: Sequence[float]) -> float:
    """The mean value of the colour the seat was served in a round's record (0: none was left)."""
    record = next(r for r in (*summary["accusations"], *summary["non_accusers"]) if r["seat"] == seat)
    return means[COLOURS.index(record["colour"])] if record["received"] else 0.0


@dataclass
class Round:
    """One round of a player's game in the seat, and the bound of that round from its start."""

    caught: bool  # it accused the chief
    worth: float  # its chip's colour's mean value (the first round's is bounded by ``walk.worth``)
    walk: Walk  # the all-pass walk from the round's start


@dataclass
class Game:
    """A player's game in the seat: its rounds, its win share and its points."""

    rounds: list[Round]
    win: float
    points: float


def play(table: Table, seed: int, seat: int, players: Sequence[Any]) -> Game:
    """The game of the deal ``seed`` with ``players[s]`` at seat s, and at each round's start the
    all-pass walk of that round (on a branch, the other seats' players copied as they stand)."""
    game = table.deal(seed)
    for s, agent in enumerate(players):
        agent.reset(s, table.config)
    rounds = []
    while not game.game_over:
        done, means = len(game.summaries), colour_means(game)
        others = [None if s == seat else copy.deepcopy(agent) for s, agent in enumerate(players)]
        bound = walk(table.branch(), seat, others)
        while not game.game_over and len(game.summaries) == done:
            current = game.current_seat
            table.apply(players[current].act(table.views[current], table.lazy_observation(current)))
        summary = game.summaries[done]
        caught = any(r["seat"] == seat and r["cat"] == summary["chief"] for r in summary["accusations"])
        rounds.append(Round(caught, served_worth(summary, seat, means), bound))
    winners = game.final["winners"]
    return Game(rounds, win_share(seat in winners, len(winners)), float(game.final["totals"][seat]))


@dataclass
class Ceiling:
    """The bounds and the players' rounds, deal by deal."""

    opponents: list[PlayerSpec]
    num_players: int
    games: int
    seed: int
    walks: list[Walk] = field(default_factory=list)  # the first round's, per deal
    played: dict[str, list[Game]] = field(default_factory=dict)  # label -> per deal, its game

    def to_json(self) -> dict[str, Any]:
        bound = [w.bound for w in self.walks]
        worth = [w.worth for w in self.walks]
        levels = sorted({w.candidates for w in self.walks})
        players = {}
        first = next(iter(self.played.values()), None)
        for label, games in self.played.items():
            caught = [float(g.rounds[0].caught) for g in games]
            worth_1 = [g.rounds[0].worth for g in games]
            per_round = [sum(r.caught for r in g.rounds) / len(g.rounds) for g in games]
            bound_per_round = [sum(r.walk.bound for r in g.rounds) / len(g.rounds) for g in games]
            win = [g.win for g in games]
            players[label] = {
                "game": {
                    "win": _json(Stat.of_rate(win)),
                    "points": _json(Stat.of([g.points for g in games])),
                    "win_less_the_first_player": _json(Stat.paired(win, [g.win for g in first])),
                },
                "first_round": {
                    "chief": _json(Stat.of_rate(caught)),
                    "worth": _json(Stat.of(worth_1)),
                    "room": {"chief": _json(Stat.paired(bound, caught)), "worth": _json(Stat.paired(worth, worth_1))},
                },
                "every_round": {
                    "chief": _json(Stat.of_rate(per_round)),
                    "bound": _json(Stat.of(bound_per_round)),
                    "room": _json(Stat.paired(bound_per_round, per_round)),
                    "rounds": Stat.of([len(g.rounds) for g in games]).mean,
                },
            }
        return {
            "what": "each deal in the compared seat of ckc-evaluate --compare against these opponents with these "
            "games and seed: the chance of accusing the chief, per round, and the first round's chip's worth in "
            "expectation (its colour's mean value); the bounds hold for every player without the hidden cards",
            "num_players": self.num_players,
            "opponents": [specs.label(s) for s in self.opponents],
            "games": self.games,
            "seed": self.seed,
            "bound": {"chief": _json(Stat.of(bound)), "worth": _json(Stat.of(worth))},
            "cheater_chance": _json(Stat.of_rate([float(w.opportunity) for w in self.walks])),
            "bound_reached_with": {
                _reached(k): sum(w.candidates == k for w in self.walks) / len(self.walks) for k in levels
            },
            "seat_decisions": Stat.of([w.decisions for w in self.walks]).mean,
            "players": players,
        }

    def table(self) -> str:
        """The first round's bounds and each player's first round, with its room below the bounds
        (paired); then every round: each player's chief per round beside the bound from its own
        rounds' starts."""
        data = self.to_json()
        bound = data["bound"]
        rows = [
            f"| the bound: every player's clue told, the best moment with hindsight | {_text(bound['chief'])} | "
            f"{_text(bound['worth'])} | | |",
            f"| the cheater's chance (every clue and the bag) | {_text(data['cheater_chance'], rate=True)} | | | |",
        ]
        for label, entry in data["players"].items():
            first = entry["first_round"]
            rows.append(
                f"| {label} | {_text(first['chief'], rate=True)} | {_text(first['worth'])} | "
                f"{_text(first['room']['chief'], signed=True)} | {_text(first['room']['worth'], signed=True)} |"
            )
        head = (
            f"the first round, {self.num_players} players, opponents {', '.join(data['opponents'])}: "
            f"{self.games} deals, seed {self.seed}\n\n"
            "| the seat | chief caught | chip's worth | room below the bound: chief (paired) | worth (paired) |\n"
            "|---|---|---|---|---|\n"
        )
        every = [
            f"| {label} | {_text(e['every_round']['chief'], rate=True)} | {_text(e['every_round']['bound'])} | "
            f"{_text(e['every_round']['room'], signed=True)} |"
            for label, e in data["players"].items()
        ]
        whole = [
            f"| {label} | {_text(e['game']['win'], rate=True)} | {_text(e['game']['points'])} | "
            f"{_text(e['game']['win_less_the_first_player'], signed=True)} |"
            for label, e in data["players"].items()
        ]
        tail = (
            "\n\nevery round, from the starts of the player's own rounds\n\n"
            "| the seat | chief caught per round | the bound per round | room below it (paired) |\n"
            "|---|---|---|---|\n" + "\n".join(every) + "\n\nwhole games\n\n"
            f"| the seat | win rate | points | win rate less {next(iter(data['players']))}'s (paired) |\n"
            "|---|---|---|---|\n" + "\n".join(whole)
            if every
            else ""
        )
        return head + "\n".join(rows) + tail


def _reached(candidates: int) -> str:
    return {0: "never", 1: "1 candidate"}.get(candidates, f"{candidates} candidates")


def _json(stat: Stat) -> dict[str, Any]:
    return {"mean": stat.mean, "ci95": [stat.low, stat.high]}


def _text(entry: dict[str, Any], rate: bool = False, signed: bool = False) -> str:
    low, high = entry["ci95"]
    if rate:
        return f"{entry['mean']:.3f} [{low:.3f}, {high:.3f}]"
    return f"{entry['mean']:{'+' if signed else ''}.3f} ± {(high - low) / 2:.3f}"


def deals(opponents: Sequence[PlayerSpec], games: int) -> tuple[list[list[int]], int]:
    """The seatings of a paired comparison against ``opponents`` (the compared player keeps lineup
    index 0) and the game count rounded up to the design's size, as
    :func:`ckc_env.evaluation.paired.compare` plays them."""
    labels = ["", *(seating_key(s) for s in opponents)]
    arrangements = seatings(labels, "balanced", fixed_first=True)
    return arrangements, -(-games // len(arrangements)) * len(arrangements)


def seated(
    first: PlayerSpec | None, opponents: Sequence[PlayerSpec], seating: Sequence[int], seed: int, game: int
) -> list[Any]:
    """The players of one game of the comparison: ``first`` in the compared seat (None: nobody),
    each seeded as the tournaments seed the player at seat s of game g."""
    lineup = [first, *opponents]
    return [
        None if lineup[i] is None else build_player(lineup[i], seed=derive_seed(seed, "agent", game, s))
        for s, i in enumerate(seating)
    ]


TOLD = "told every clue but the bag's"
"""The label of :class:`ToldAgent`'s games (``ceiling(..., told=True)``)."""


def _chunk(args: tuple) -> list[tuple[Walk, dict[str, Game]]]:
    """Each game's first-round walk and the listed players' games (whose first round's walk is that
    walk: it is taken from them where there are any)."""
    opponents, players, told, config, seed, game_ids, arrangements = args
    table = Table(GameConfig.from_dict(config), OBSERVATION)
    out = []
    for g in game_ids:
        seating = arrangements[g % len(arrangements)]
        seat, deal = seating.index(0), derive_seed(seed, "game", g)
        games = {specs.label(p): play(table, deal, seat, seated(p, opponents, seating, seed, g)) for p in players}
        if told:
            others = seated(None, opponents, seating, seed, g)
            others[seat] = ToldAgent(seed=derive_seed(seed, "agent", g, seat))
            games[TOLD] = play(table, deal, seat, others)
        if games:
            first = next(iter(games.values())).rounds[0].walk
        else:
            table.deal(deal)
            others = seated(None, opponents, seating, seed, g)
            for s, agent in enumerate(others):
                if agent is not None:
                    agent.reset(s, table.config)
            first = walk(table, seat, others)
        out.append((first, games))
    return out


def ceiling(
    opponents: PlayerSpec | Sequence[PlayerSpec],
    players: Sequence[PlayerSpec] = (),
    games: int = 2000,
    seed: int = 0,
    num_players: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    told: bool = False,
) -> Ceiling:
    """The bound on the deals of ``ckc-evaluate --compare X Y --opponents ...`` (one spec for every
    other seat, or one per seat), with each of ``players`` (and with ``told`` a :class:`ToldAgent`) in
    the compared seat: their games, and the bound of each of their rounds from its start. Every
    argument is checked before a deal is played."""
    if num_players is None:
        num_players = len(opponents) + 1 if isinstance(opponents, (list, tuple)) else 3
    check_count("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
    others = specs.for_seats(opponents, num_players - 1)
    players = list(players)
    for spec in (*others, *players):
        validate_player(spec)
    labels = [specs.label(p) for p in players]
    if len(set(labels)) < len(labels):
        raise ValueError(f"each player is played once: {labels} names one twice")
    config = {"num_players": num_players}
    games = _positive_games(games)
    _check_seed_and_workers(seed, workers)
    arrangements, games = deals(others, games)
    found: list[tuple[Walk, dict[str, Game]]] = in_chunks(
        _chunk,
        lambda ids: (others, players, told, config, seed, ids, arrangements),
        games,
        workers,
        _progress(games, progress, f"{num_players}p ceiling against " + " ".join(specs.label(s) for s in others)),
    )
    result = Ceiling(others, num_players, games, seed, walks=[w for w, _ in found])
    for label in labels + ([TOLD] if told else []):
        result.played[label] = [games[label] for _, games in found]
    return result
