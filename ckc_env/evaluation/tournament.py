"""Tournaments: seeded games between any mix of players, on either engine, and round robins of them.

    from ckc_env.evaluation.tournament import run_tournament
    result = run_tournament(["bayes_v1", "random", "random", "random", "random"], games=2000, seed=0)
    print(result.table())

Players are named by specs (:mod:`ckc_env.players.specs`: a registered agent name, a name with
parameters, or a checkpoint path); every worker builds its own players from them. A
stable-baselines3 ``.zip`` plays only with ``trust_checkpoint=True`` (its loading unpickles).

Seatings (:mod:`ckc_env.evaluation.seating`): by default a balanced design, in which every player
sits in every seat and right after every other player equally often, laid over the lineup sorted
by seating key (the label; a safe agent file's weights' hash), so neither the order of the lineup
nor the path that names an agent changes anyone's results; the game count is rounded
up to a multiple of the design's size (6, 24 or 20 arrangements for 3, 4 or 5 players).
``seating="rotate"`` rotates the lineup's own order instead. Game g is dealt with seed
``derive_seed(seed, "game", g)`` and the player at seat s gets ``derive_seed(seed, "agent", g, s)``
(:mod:`ckc_env.seeding`), whatever the number of workers, so results do not depend on how the
games were split.

When every player has a batched form (the batched baselines and checkpoints,
:func:`ckc_env.players.batch_capable`), the games are played on the batched engine
(:mod:`ckc_env.batch`), up to :data:`BATCH_GAMES` at once in one process, with the same seating and
per-game seeds: each player decides for all the games where it is to act in one call (a checkpoint
in one forward pass). Both engines deal a seed's game from one chance model (``engine.chance``) and
the players draw their random choices alike, so the same lineup and seed give the same games, game
by game, on either engine.
``engine="scalar"`` (``ckc-evaluate --engine scalar``) plays them one at a time as before.
``engine="jax"`` (the ``jax`` extra) plays them on the JAX engine, the whole game loop on the device
(:func:`ckc_env.jax.tournament.play_jax`: the same seatings, seeds and records; equal game for game
but where a float32 near-tie turns a bayes or agent decision).

Every count is bounded (:mod:`ckc_env.cli`): at most :data:`~ckc_env.cli.MAX_GAMES` games (a
million), a root seed from 0 to 2**64 - 1, at most :data:`~ckc_env.cli.MAX_WORKERS` workers; a
value beyond is a ValueError naming it and the range, before anything is played.

This module plays; the rest of a tournament has its own module, whose names it hands on
(``from ckc_env.evaluation.tournament import Stat, markdown_table`` and the like keep working):

| module | role |
|---|---|
| ``tournament`` | playing: one lineup's games on either engine (:func:`run_tournament`), round robins (:func:`round_robin`) |
| :mod:`~ckc_env.evaluation.seating` | who sits where in each game |
| :mod:`~ckc_env.evaluation.results` | the result objects, their tables, JSON and CSV (:class:`TournamentResult`, :func:`markdown_table`) |
| :mod:`~ckc_env.evaluation.statistics` | every mean's 95% interval (:class:`Stat`): Wilson's for the rates (win share, chief caught per round), the normal one for points and chips, and the first place's lead |
| :mod:`~ckc_env.evaluation.paired` | two players compared in the same seat on the same deals |
"""

from __future__ import annotations

import multiprocessing
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from itertools import combinations
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from ..agents import Agent
from ..batch.agents import BATCH_REGISTRY
from ..batch.state import SEATS
from ..cli import MAX_GAMES, MAX_SEED, MAX_WORKERS, check_count, need_extra
from ..config import COLOURS, MAX_PLAYERS, MIN_PLAYERS, GameConfig
from ..engine.chance import key_of
from ..files import short
from ..observation import OBSERVATION
from ..players import batch_capable, seating_key, specs
from ..players import build as build_player
from ..players import build_batched as build_batched_player
from ..players import validate as validate_player
from ..players.specs import PlayerSpec
from ..seeding import derive_seed
from ..table import batched
from ..table.rewards import win_share
from ..table.scalar import Table
from .results import METRICS, RATES, RoundRobinResult, TournamentResult, markdown_table, metric_stat
from .seating import describe, seatings
from .statistics import Stat, wilson

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [  # with the names of results and statistics that its importers take from here
    "BATCH_GAMES",
    "ENGINES",
    "METRICS",
    "RATES",
    "RoundRobinResult",
    "Stat",
    "TournamentResult",
    "markdown_table",
    "metric_stat",
    "play_batched",
    "play_game",
    "round_robin",
    "run_tournament",
    "wilson",
]


def play_game(table: Table | GameConfig, agents: Sequence[Agent], seed: int) -> dict[str, Any]:
    """One game with ``agents[s]`` at seat s (each choice checked); returns per-seat results for
    the statistics."""
    if isinstance(table, GameConfig):
        table = Table(table, OBSERVATION)
    game = table.deal(seed)
    for seat, agent in enumerate(agents):
        agent.reset(seat, table.config)
    table.play(agents, (), [0.0] * table.n)
    final = game.final
    n = len(agents)
    winners = final["winners"]
    caught = [0] * n
    for summary in game.summaries:
        for record in summary["accusations"]:
            if record["cat"] == summary["chief"]:
                caught[record["seat"]] += 1
    rounds = len(game.summaries)
    views = table.views
    return {
        "win": [win_share(s in winners, len(winners)) for s in range(n)],
        "points": [float(t) for t in final["totals"]],
        **{COLOURS[c]: [float(views[s].colour_counts(s)[c]) for s in range(n)] for c in range(3)},
        "chief_rate": [caught[s] / rounds for s in range(n)],
        "rounds": rounds,
    }


BATCH_GAMES = 4096
"""The most games the batched engine plays at once in a tournament (memory stays well under 1 GiB)."""
ENGINES = ("auto", "batched", "scalar", "jax")


def play_batched(
    lineup: Sequence[PlayerSpec],
    config: dict[str, Any],
    seed: int,
    game_ids: Sequence[int],
    trust: bool = False,
    arrangements: Sequence[Sequence[int]] | None = None,
) -> list[tuple[int, dict[str, Any]]]:
    """The games ``game_ids`` on the batched engine, seated (``arrangements``: the seatings,
    game g plays ``arrangements[g % len]``; default rotation) and seeded as ``_play_chunk`` seats
    them; the same per-game records."""
    from .. import batch

    n = len(lineup)
    ids = np.asarray(list(game_ids), dtype=np.int64)
    arrangements = np.asarray(arrangements if arrangements is not None else seatings(["x"] * n, "rotate"))
    at_seat = arrangements[ids % len(arrangements)]  # (games, n): the lineup index at each seat
    game_config = GameConfig.from_dict(config)
    state = batch.init(game_config, seeds=[derive_seed(seed, "game", int(g)) for g in ids])
    size = len(ids)
    seated = [build_batched_player(spec, None, trust) for spec in lineup]
    games = np.arange(size)
    for i, player in enumerate(seated):  # the scalar player's stream at its seat in each game
        seats = np.argmax(at_seat == i, axis=1)
        keys = np.zeros((size, SEATS), dtype=np.uint64)
        keys[games, seats] = [
            key_of(derive_seed(seed, "agent", int(g), int(s))) for g, s in zip(ids, seats, strict=True)
        ]
        player.start(games, keys)
    caught = np.zeros((size, n))
    rounds = np.zeros(size)
    record = state.record

    def count_rounds() -> None:
        ended = np.flatnonzero(state.round_ended)
        if len(ended):
            rounds[ended] += 1
            served = np.arange(record.served_cat.shape[1]) < record.served_count[ended, None]
            hit = served & (record.served_cat[ended] == record.round_chief[ended, None])
            rows, slots = np.nonzero(hit)
            np.add.at(caught, (ended[rows], record.served_seat[ended[rows], slots].astype(np.int64)), 1)

    batched.play(
        state,
        seated,
        lambda: np.flatnonzero(state.pending_kind >= 0),
        lambda games: at_seat[games, state.pending_seat[games]],  # the lineup index at the acting seat
        count_rounds,
    )
    winners = state.winners[:, :n]
    share = win_share(winners, winners.sum(1, keepdims=True))
    out = []
    for k, g in enumerate(ids):
        seating = at_seat[k].tolist()
        out.append(
            (
                int(g),
                {
                    "win": share[k].tolist(),
                    "points": state.points[k, :n].astype(float).tolist(),
                    **{COLOURS[c]: state.chip_table[k, :n, c].astype(float).tolist() for c in range(3)},
                    "chief_rate": (caught[k] / rounds[k]).tolist(),
                    "rounds": int(rounds[k]),
                    "seating": seating,
                },
            )
        )
    return out


def _play_chunk(args: tuple) -> list[tuple[int, dict[str, Any]]]:
    lineup, config, seed, game_ids, trust, arrangements = args
    table = Table(GameConfig.from_dict(config), OBSERVATION)
    out = []
    for g in game_ids:
        seating = list(arrangements[g % len(arrangements)])  # seating[s] = lineup index at seat s
        agents = [
            build_player(lineup[i], seed=derive_seed(seed, "agent", g, s), trust_checkpoint=trust)
            for s, i in enumerate(seating)
        ]
        out.append((g, {**play_game(table, agents, derive_seed(seed, "game", g)), "seating": seating}))
    return out


class Play(TypedDict, total=False):
    """How a tournament's games are played, declared once for every kind of tournament (a lineup,
    :func:`run_tournament`; a round robin, :func:`round_robin`; a paired comparison,
    :func:`ckc_env.evaluation.paired.compare`), which take these as keywords."""

    config: dict[str, Any] | None
    """The rules (``GameConfig`` options; the lineup gives the number of players)."""
    workers: int | None
    """Processes for the scalar engine (default: every core)."""
    progress: bool
    """A progress bar on stderr."""
    trust_checkpoint: bool
    """Let stable-baselines3 zips in the lineup load (they unpickle)."""
    engine: str
    """``"auto"`` plays on the batched engine when every player has a batched form, ``"batched"``
    insists on it, ``"scalar"`` plays one game at a time (``workers`` processes), ``"jax"`` on the JAX
    engine (every player needs a JAX form: :mod:`ckc_env.jax.tournament`)."""
    seating: str
    """:mod:`ckc_env.evaluation.seating`: ``"balanced"``, every player in every seat and next to every
    other equally often, the lineup's order immaterial; or ``"rotate"``."""
    companions: PlayerSpec | Sequence[PlayerSpec]
    """``engine="jax"`` alone: players whose JAX forms the compiled loop holds beside the lineup's,
    unseated, so that tables of different players (a training run's evaluation tables) share one
    program instead of compiling one each; the games are the same."""


def run_tournament(
    lineup: Sequence[PlayerSpec], games: int, seed: int = 0, *, fixed_first: bool = False, **play: Unpack[Play]
) -> TournamentResult:
    """Play ``games`` seeded games, rounded up to a multiple of the seating design's size, as
    ``play`` says (:class:`Play`); ``fixed_first`` keeps the first player in the first slot of the
    design (paired comparisons)."""
    config, workers, progress = play.get("config"), play.get("workers"), play.get("progress", False)
    trust_checkpoint, engine = play.get("trust_checkpoint", False), play.get("engine", "auto")
    seating = play.get("seating", "balanced")
    companions = play.get("companions", ())
    companions = [companions] if isinstance(companions, (str, Mapping, Agent)) else list(companions)  # one spec
    unknown = sorted(set(play) - set(Play.__annotations__))
    if unknown:
        raise TypeError(f"run_tournament() got unexpected keyword argument(s) {unknown}")
    lineup = list(lineup)
    n = len(lineup)
    config = dict(config or {})
    if "num_players" in config and config["num_players"] != n:
        raise ValueError(
            f"num_players={config['num_players']} but the lineup has {n} players: "
            f"give {MIN_PLAYERS} to {MAX_PLAYERS} players"
        )
    config["num_players"] = n
    GameConfig.from_dict(config)  # fail early with the accepted values (the player counts etc.)
    games = _positive_games(games)
    _check_seed_and_workers(seed, workers)
    if engine not in ENGINES:
        raise ValueError(f"invalid engine={short(engine)}: accepted values are {list(ENGINES)}")
    if engine == "batched":  # before validate, which asks for what building the scalar form needs (ray)
        refused = [specs.label(s) for s in lineup if not batch_capable(s, trust_checkpoint)]
        if refused:
            raise ValueError(
                f"engine='batched' but {refused} have no batched form: batched players are {sorted(BATCH_REGISTRY)} "
                "and checkpoints (engine='auto' plays such tables on the scalar engine)"
            )
    if companions and engine != "jax":
        raise ValueError(f"companions are for engine='jax' alone (its compiled loop), not engine={short(engine)}")
    if engine == "jax":
        _check_jax(lineup + companions, trust_checkpoint)
    for spec in lineup + companions:
        validate_player(spec, trust_checkpoint=trust_checkpoint)
    arrangements = seatings([seating_key(s) for s in lineup], seating, fixed_first)
    games = -(-games // len(arrangements)) * len(arrangements)
    batched = engine in ("batched", "jax") or (
        engine == "auto" and all(batch_capable(spec, trust_checkpoint) for spec in lineup)
    )
    if batched:
        played_on = "jax" if engine == "jax" else "batched"
        result = _run_batched(
            lineup, config, seed, games, progress, trust_checkpoint, arrangements, played_on, companions
        )
        result.seating = describe(seating, n)
        return result
    results = in_chunks(
        _play_chunk,
        lambda ids: (lineup, config, seed, ids, trust_checkpoint, arrangements),
        games,
        workers,
        _progress(games, progress, f"{n}p " + " ".join(specs.label(s) for s in lineup)),
    )
    result = _collect(lineup, config, seed, games, results, "scalar")
    result.seating = describe(seating, n)
    return result


def in_chunks(
    work: Callable[[Any], list[Any]],
    job: Callable[[range], Any],
    games: int,
    workers: int | None,
    bar: Callable[..., None],
) -> list[Any]:
    """``work`` over the games cut in chunks (``job(game_ids)`` the argument of each), in this
    process with one worker, else in ``workers`` processes (default: every core); the chunks'
    results in order, ``bar`` told of each."""
    workers = max(1, min(workers or os.cpu_count() or 1, games))
    chunk = max(1, min(50, games // (workers * 4) or 1))
    jobs = [job(range(start, min(start + chunk, games))) for start in range(0, games, chunk)]
    results: list[Any] = []
    if workers == 1:
        for one in jobs:
            part = work(one)
            results += part
            bar(len(part))
    else:
        # Workers never fork this process: its threads (JAX's, torch's, a progress bar's) do not
        # survive a fork, and a fork may deadlock on a lock one of them held.
        with ProcessPoolExecutor(max_workers=workers, mp_context=worker_context(), initializer=_one_thread) as pool:
            for part in pool.map(work, jobs):
                results += part
                bar(len(part))
    bar(0, close=True)
    return results


def _run_batched(
    lineup: list[PlayerSpec],
    config: dict[str, Any],
    seed: int,
    games: int,
    progress: bool,
    trust: bool,
    arrangements: Sequence[Sequence[int]],
    engine: str = "batched",
    companions: Sequence[PlayerSpec] = (),
) -> TournamentResult:
    n = len(lineup)
    bar = _progress(games, progress, f"{n}p " + " ".join(specs.label(s) for s in lineup) + f" ({engine})")
    play_part, chunk = play_batched, BATCH_GAMES
    if engine == "jax":
        from ..jax import compiled
        from ..jax.tournament import JAX_GAMES, play_jax

        compiled.prepare(announce=progress)  # the persistent compile cache; a line per program compiled
        play_part, chunk = partial(play_jax, companions=companions), JAX_GAMES
    results: list[tuple[int, dict[str, Any]]] = []
    for start in range(0, games, chunk):
        part = play_part(lineup, config, seed, range(start, min(start + chunk, games)), trust, arrangements)
        results += part
        bar(len(part))
    bar(0, close=True)
    return _collect(lineup, config, seed, games, results, engine)


def _check_jax(lineup: list[PlayerSpec], trust: bool) -> None:
    """engine='jax' needs JAX (the ``jax`` extra) and a JAX form of every player: a ValueError
    naming the extra, or the players that have none and those that do."""
    try:
        need_extra("jax", "jax")
    except ValueError as exc:
        raise ValueError(f"engine='jax' plays on JAX: {exc}") from None
    from ..jax.tournament import accepted, missing

    refused = missing(lineup, trust)
    if refused:
        raise ValueError(f"engine='jax' but {refused} have no JAX form: {accepted()}")


def _collect(
    lineup: list[PlayerSpec],
    config: dict[str, Any],
    seed: int,
    games: int,
    results: list[tuple[int, dict[str, Any]]],
    engine: str,
) -> TournamentResult:
    n = len(lineup)
    results.sort(key=lambda item: item[0])
    per_game: dict[str, list[list[float]]] = {m: [[] for _ in range(n)] for m in METRICS}
    for _, record in results:
        for seat, index in enumerate(record["seating"]):
            for m in METRICS:
                per_game[m][index].append(record[m][seat])
    rounds = float(np.mean([record["rounds"] for _, record in results]))
    return TournamentResult(list(lineup), config, games, seed, per_game, rounds, engine)


def worker_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: ``forkserver`` where the platform has it (a clean server process,
    started once, forks the workers), else ``spawn``; never a fork of this process, whose threads
    (JAX's compiler and runtime, torch's pools) would be copied mid-work (as stable-baselines3's
    SubprocVecEnv, and :class:`ckc_env.envs.subproc_vector.SubprocVectorEnv`, start theirs)."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _one_thread() -> None:
    """Workers play one decision at a time: torch's thread pools (when a checkpoint loads it) would
    only oversubscribe the cores the other workers use."""
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["MKL_NUM_THREADS"] = "1"


def _positive_games(games: Any) -> int:
    try:
        count = -1 if isinstance(games, bool) else operator.index(games)
    except TypeError:
        count = -1
    if not 1 <= count <= MAX_GAMES:
        raise ValueError(
            f"games must be a positive integer, got {short(games)}: accepted values are 1 to {MAX_GAMES:,}"
        )
    return count


def _check_seed_and_workers(seed: Any, workers: Any) -> None:
    """The root seed (0 .. 2**64 - 1, as the commands' ``--seed``) and the worker count (None: all cores)."""
    check_count("seed", seed, 0, MAX_SEED)
    if workers is not None:
        check_count("workers", workers, 1, MAX_WORKERS)


def _progress(total: int, enabled: bool, description: str) -> Callable[..., None]:
    if not enabled:
        return lambda k, close=False: None
    try:
        from tqdm import tqdm
    except ImportError:  # a plain counter on stderr
        import sys

        done = [0]

        def plain(k: int, close: bool = False) -> None:
            done[0] += k
            end = "\n" if close else "\r"
            print(f"{description}: {done[0]}/{total} games", end=end, file=sys.stderr, flush=True)

        return plain
    handle = tqdm(total=total, desc=description, unit="game")

    def update(k: int, close: bool = False) -> None:
        handle.update(k)
        if close:
            handle.close()

    return update


def distinct_players(players: Sequence[PlayerSpec], num_players: int, what: str) -> list[PlayerSpec]:
    """The players of tables of ``num_players`` distinct players (a round robin, a rated ladder): a
    ValueError where two have one label or there are too few."""
    players = list(players)
    labels = [specs.label(p) for p in players]
    if len(set(labels)) != len(labels):
        raise ValueError(f"the players of {what} must be distinct, got {labels}")
    if len(players) < num_players:
        raise ValueError(
            f"{what} of {num_players}-player tables needs at least {num_players} players, got {len(players)}"
        )
    return players


def round_robin(
    players: Sequence[PlayerSpec], num_players: int, games: int, seed: int = 0, **play: Unpack[Play]
) -> RoundRobinResult:
    """Every table of ``num_players`` distinct players from the list, ``games`` games in all.

    With exactly ``num_players`` players that is one table; with more, each combination gets an
    equal share of the games (rounded up), so every player meets every other equally often.
    """
    players = distinct_players(players, num_players, "a round robin")
    games = _positive_games(games)
    _check_seed_and_workers(seed, play.get("workers"))
    for spec in players:  # before any table is played
        validate_player(spec, trust_checkpoint=play.get("trust_checkpoint", False))
    tables = list(combinations(players, num_players))
    per_table = -(-games // len(tables))
    results = [
        run_tournament(table, per_table, seed=derive_seed(seed, "table", t), **play) for t, table in enumerate(tables)
    ]
    return RoundRobinResult(players, num_players, results)
