"""A rated ladder: every player rated from multi-player tables by OpenSkill, and the ratings'
predictions checked against tables they were not fitted on.

    from ckc_env.evaluation.rating import rated_ladder
    ladder = rated_ladder(["random", "bayes_v1", "bayes_v2", "cheater"], num_players=3, tables=20, games=60, seed=0)
    print(ladder.table())

Win rates answer "how does A do at this table"; a ladder answers "who is stronger" across tables
that mix many players, and says how sure it is. The rating system is OpenSkill's Plackett-Luce
model (the ``openskill`` package, Joshi 2024, a Weng-Lin Bayesian rating made for games of more
than two sides): each player a Gaussian skill, mu and sigma, updated game by game from the order
the game ended in. A game's order is its win share, then its points (a shared win is a tie).

The tables are balanced: each is a set of ``num_players`` distinct players (every player on about
as many tables, drawn by shuffling the list and cutting it into tables), each played in the balanced
seating design (:mod:`~ckc_env.evaluation.seating`: every player in every seat equally often) on the
tables' own deals. The games are rated in an order shuffled by the seed, since a sequential rating
weighs later games more and the tables' order means nothing.

The check: ``held_out`` further tables, whose seats are drawn with replacement (so a player may sit
at several seats, as in a table of one agent and four bayes_v2) from a seed of their own, are played
and never rated; at each, OpenSkill's predicted win probabilities are set beside the observed win
shares with their 95% intervals, and the predictions are scored game by game (the Brier score,
against the 1/n of a rating that knows nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..cli import need_extra
from ..players import specs
from ..players.specs import PlayerSpec
from ..seeding import derive_seed
from .results import TournamentResult
from .statistics import Stat
from .tournament import distinct_players, run_tournament

MODEL = "PlackettLuce"


TAU = 0.0
"""OpenSkill's tau, the skill's drift added before each game: 0, since a player here is a fixed policy
whose skill does not change from game to game (the package's default, 25/300, is for people, who
learn; it would keep every sigma from shrinking with the games and weigh the last games most)."""


def model(tau: float = TAU):
    """OpenSkill's Plackett-Luce model, its default parameters but ``tau``."""
    need_extra("rating", "openskill")
    from openskill.models import PlackettLuce

    return PlackettLuce(tau=tau)


def draw_tables(count: int, size: int, tables: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """``tables`` sets of ``size`` distinct indices below ``count``: a stream of shuffles of every
    index cut into consecutive tables (a shuffle whose head would seat a leftover of the one before
    twice is drawn again), so every index sits at as many tables as every other, give or take one
    per shuffle cut short."""
    drawn: list[tuple[int, ...]] = []
    stream: list[int] = []
    while len(drawn) < tables:
        while len(stream) < size:
            shuffle = [int(i) for i in rng.permutation(count)]
            if not set(shuffle[: size - len(stream)]) & set(stream):
                stream += shuffle
        drawn.append(tuple(sorted(stream[:size])))
        stream = stream[size:]
    return drawn


def draw_seats(count: int, size: int, rng: np.random.Generator) -> list[int]:
    """``size`` indices below ``count`` drawn with replacement, at least two of them different."""
    while True:
        seats = sorted(int(i) for i in rng.integers(count, size=size))
        if len(set(seats)) > 1:
            return seats


def game_ranks(result: TournamentResult) -> np.ndarray:
    """(games, seats) rank of each lineup player in each game, 1 the best: by win share, then points
    (equal shares and points, equal ranks)."""
    win = np.asarray(result.per_game["win"], dtype=float).T
    points = np.asarray(result.per_game["points"], dtype=float).T
    score = win * 1e6 + points
    return (score[:, None, :] > score[:, :, None]).sum(axis=2) + 1


@dataclass
class Ladder:
    """Ratings fitted on ``rated`` tables, checked on ``held_out`` ones."""

    players: list[PlayerSpec]
    num_players: int
    seed: int
    tau: float
    ratings: dict[str, tuple[float, float]]
    """label -> (mu, sigma)."""
    rated: list[TournamentResult] = field(repr=False)
    held_out: list[TournamentResult] = field(repr=False)
    predictions: list[list[float]] = field(repr=False)

    @property
    def labels(self) -> list[str]:
        return [specs.label(p) for p in self.players]

    def ordered(self) -> list[str]:
        """Labels by ordinal (mu - 3 sigma), the conservative rating, highest first."""
        return sorted(self.labels, key=lambda p: -(self.ratings[p][0] - 3 * self.ratings[p][1]))

    def games_of(self, label: str) -> int:
        return sum(r.games for r in self.rated if label in [specs.label(s) for s in r.lineup])

    def check(self) -> dict[str, Any] | None:
        """The held-out tables: each player's predicted win probability beside its observed win share,
        and the Brier score of the predictions over every game against the uniform 1/n (None: no
        held-out tables)."""
        if not self.held_out:
            return None
        tables, brier, uniform, inside, errors = [], [], [], 0, []
        for result, predicted in zip(self.held_out, self.predictions, strict=True):
            share = np.asarray(result.per_game["win"], dtype=float).T  # (games, seats)
            p = np.asarray(predicted)
            brier.extend(((share - p) ** 2).sum(axis=1))
            uniform.extend(((share - 1 / len(p)) ** 2).sum(axis=1))
            observed = [s["win"] for s in result.stats()]
            inside += sum(o.low <= q <= o.high for o, q in zip(observed, p, strict=True))
            errors.extend(abs(o.mean - q) for o, q in zip(observed, p, strict=True))
            tables.append(
                {
                    "lineup": result.labels,
                    "games": result.games,
                    "seed": result.seed,
                    "predicted": [float(q) for q in p],
                    "observed": [{"mean": o.mean, "ci95": [o.low, o.high]} for o in observed],
                }
            )
        score, base = float(np.mean(brier)), float(np.mean(uniform))
        seats = sum(len(t["lineup"]) for t in tables)
        return {
            "tables": tables,
            "games": sum(t["games"] for t in tables),
            "brier": score,
            "brier_uniform": base,
            "brier_skill": 1 - score / base,
            "mean_absolute_error": float(np.mean(errors)),
            "largest_error": float(np.max(errors)),
            "inside_interval": inside / seats,
            "brier_ci95": list(_interval(np.asarray(brier) - np.asarray(uniform), base)),
        }

    def to_json(self) -> dict[str, Any]:
        import openskill

        check = self.check()
        return {
            "rating": {
                "system": f"openskill {getattr(openskill, '__version__', '')} {MODEL}, default parameters but tau",
                "tau": self.tau,
                "order": "each game ranked by win share, then points; games rated in an order shuffled by the seed",
                "ordinal": "mu - 3 sigma",
            },
            "num_players": self.num_players,
            "seed": self.seed,
            "players": self.labels,
            "ratings": [
                {
                    "player": p,
                    "mu": self.ratings[p][0],
                    "sigma": self.ratings[p][1],
                    "ordinal": self.ratings[p][0] - 3 * self.ratings[p][1],
                    "games": self.games_of(p),
                }
                for p in self.ordered()
            ],
            "rated_tables": [
                {
                    "lineup": [specs.label(s) for s in r.lineup],
                    "games": r.games,
                    "seed": r.seed,
                    "engine": r.engine,
                    "ranks": ["".join(str(k) for k in game) for game in game_ranks(r)],  # "213": seat by seat
                }
                for r in self.rated
            ],
            "rated_games": sum(r.games for r in self.rated),
            "held_out": check,
        }

    def table(self) -> str:
        """The ratings as a Markdown table, then the held-out check in a sentence (:func:`markdown`)."""
        return markdown(self.to_json())


def markdown(record: dict[str, Any]) -> str:
    """A saved ladder (``Ladder.to_json``) as the table ``ckc-ladder`` prints: its caption, one row per
    player by mu - 3 sigma, then the held-out check."""
    rows = [
        f"{record['num_players']} players: {len(record['rated_tables'])} rated tables, {record['rated_games']} games",
        "",
        "| rank | player | mu | sigma | mu - 3 sigma | games |",
        "|---|---|---|---|---|---|",
    ]
    for k, r in enumerate(record["ratings"], 1):
        rows.append(f"| {k} | {r['player']} | {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} | {r['games']} |")
    check = record["held_out"]
    rows += ["", held_out_sentence(check) if check else "no held-out tables"]
    return "\n".join(rows)


def held_out_sentence(check: dict[str, Any]) -> str:
    return (
        f"held out: {len(check['tables'])} tables, {check['games']} games; Brier score {check['brier']:.4f} "
        f"against {check['brier_uniform']:.4f} for 1/n (skill {check['brier_skill']:+.3f}); predicted win "
        f"probabilities off the observed win shares by {check['mean_absolute_error']:.3f} on average "
        f"(at most {check['largest_error']:.3f}), {check['inside_interval']:.0%} inside their 95% intervals"
    )


def _interval(differences: np.ndarray, base: float) -> tuple[float, float]:
    """The 95% interval of the Brier skill, from the per-game differences to the uniform score."""
    stat = Stat.of(differences)
    return 1 - (base + stat.high) / base, 1 - (base + stat.low) / base


def rate(
    labels: Sequence[str], tables: Sequence[tuple[Sequence[str], Sequence[Sequence[int]]]], seed: int, tau: float = TAU
) -> dict[str, tuple[float, float]]:
    """Every game of ``tables`` ((lineup labels, per-game ranks: a list of ints or a string of digits,
    seat by seat) each) rated with OpenSkill, in an
    order shuffled by ``seed``; returns label -> (mu, sigma). A saved ladder's ``rated_tables`` give
    its ratings again: ``rate(record["players"], [(t["lineup"], t["ranks"]) for t in
    record["rated_tables"]], record["seed"], record["rating"]["tau"])``."""
    openskill = model(tau)
    ratings = {p: openskill.rating(name=p) for p in labels}
    order = [(t, g) for t, (_, ranks) in enumerate(tables) for g in range(len(ranks))]
    for k in np.random.default_rng(derive_seed(seed, "ladder", "order")).permutation(len(order)):
        t, g = order[k]
        sitting = tables[t][0]
        new = openskill.rate([[ratings[p]] for p in sitting], ranks=[int(k) for k in tables[t][1][g]])
        for p, team in zip(sitting, new, strict=True):
            ratings[p] = team[0]
    return {p: (float(r.mu), float(r.sigma)) for p, r in ratings.items()}


def rated_ladder(
    players: Sequence[PlayerSpec],
    num_players: int,
    tables: int,
    games: int,
    seed: int = 0,
    held_out: int = 0,
    config: dict[str, Any] | None = None,
    trust_checkpoint: bool = False,
    engine: str = "auto",
    progress: bool = False,
    tau: float = TAU,
) -> Ladder:
    """Rate ``players`` from ``tables`` balanced tables of ``num_players`` distinct players, ``games``
    games each (rounded up to the seating design), then play ``held_out`` tables drawn with
    replacement on other deals and predict them."""
    players = distinct_players(players, num_players, "a rated ladder")
    labels = [specs.label(p) for p in players]
    openskill = model(tau)
    config = dict(config or {}, num_players=num_players)
    rng = np.random.default_rng(derive_seed(seed, "ladder", "tables"))

    def play(lineup: Sequence[int], stream: str, t: int) -> TournamentResult:
        return run_tournament(
            [players[i] for i in lineup],
            games,
            seed=derive_seed(seed, stream, t),
            config=config,
            trust_checkpoint=trust_checkpoint,
            engine=engine,
            progress=progress,
        )

    rated = [play(lineup, "rated", t) for t, lineup in enumerate(draw_tables(len(players), num_players, tables, rng))]
    tables_played = [([specs.label(s) for s in r.lineup], game_ranks(r).tolist()) for r in rated]
    ratings = rate(labels, tables_played, seed, tau)
    held_rng = np.random.default_rng(derive_seed(seed, "ladder", "held_out"))
    checks = [play(draw_seats(len(players), num_players, held_rng), "held_out", t) for t in range(held_out)]
    predictions = [
        openskill.predict_win([[openskill.rating(*ratings[specs.label(s)])] for s in r.lineup]) for r in checks
    ]
    return Ladder(
        players,
        num_players,
        seed,
        tau,
        ratings,
        rated,
        checks,
        [[float(q) for q in p] for p in predictions],
    )
