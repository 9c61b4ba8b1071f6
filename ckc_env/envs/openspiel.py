"""Checkpoint Charlie as an OpenSpiel game (the ``openspiel`` extra: ``open_spiel``'s Python API).

    import pyspiel
    import ckc_env.envs.openspiel  # registers "checkpoint_charlie" with pyspiel

    game = pyspiel.load_game("checkpoint_charlie", {"players": 4, "stasi": True})
    state = game.new_initial_state()

A Python game (``pyspiel.Game`` / ``pyspiel.State`` subclasses, as OpenSpiel's own
``open_spiel/python/games``) on the scalar engine: sequential, explicit chance, imperfect
information, general-sum, rewards after every transition. This is the only module that imports
``pyspiel``; the engine knows nothing of it.

**Parameters.** Every rule option of :class:`~ckc_env.config.GameConfig`, with its default, plus
the reward scheme:

| parameter | default | GameConfig field / meaning |
|---|---|---|
| ``players`` | 5 | ``num_players`` (OpenSpiel's name for it) |
| ``first_player`` | ``"random"`` | ``"random"``, or a seat as a string: ``"2"`` or ``"seat 2"`` (written back in the second form: OpenSpiel's game strings read ``2`` as an int, which a string parameter refuses) |
| ``clue_face`` | ``"random"`` | ``"random"``, ``"choose"`` |
| ``window_order`` | ``"random"`` | ``"random"``, ``"clockwise_from_drawer"``, ``"clockwise_after_drawer"`` |
| ``reopen_windows`` | False | bool |
| ``non_accuser_white`` | ``"chief_in_deck"`` | ``"chief_in_deck"``, ``"chief_uncaught"`` |
| ``stasi`` | False | bool |
| ``cafe_adler`` | False | bool |
| ``chip_pool`` | ``"gold 3 3 4 4 5; white 1 1 1 1 1 1 2 2 2 2 2 2; black -1 -1 -1 -1 0 0 0 0"`` | per colour its printed values; ``"gold=3,3,4,4,5;white=...;black=..."`` is read too, and written back in the first form (OpenSpiel's game strings split on commas) |
| ``max_rounds`` | 5 | 1..5 |
| ``target_points`` | 10 | 1..50 |
| ``reward`` | ``"points"`` | the scheme of ``ckc_env.table.rewards``: ``"points"``, ``"margin"`` or ``"win"`` (returns sum to each seat's final points, its margin, or its share of the win) |

A refused parameter is a ValueError naming it, its value and the accepted values. OpenSpiel turns
a parameter mapping into C++ values before the game's constructor sees it, so an integer beyond a
C++ int (``{"players": 2**40}``) would end in pybind11's bare "Unable to cast Python instance";
importing this module therefore wraps ``pyspiel.load_game`` (:func:`load_game`) to check this
game's parameters first, the mapping or the game string; other games load as before.

**Actions** are the environment's 40 (``ckc_env.engine.actions``: pass, accuse cat c, clue face
A/B, Cafe Adler keep / swap with seat +k). **Chance nodes** are the engine's chance questions
(``ckc_env.engine.chance``), each asked as a sequence of chance nodes with exact probabilities, so
that a game's distribution is the engine's (uniform permutations):

| question | chance nodes (outcome = action id) |
|---|---|
| the supply | colour by colour (gold, white, black), the chip taken next, uniformly among those left (chip ids) |
| the first player (``first_player="random"``) | one node, a seat |
| a round's deal | the tile features one by one (seats 0..n-1, then the bag in reveal order); each tile's face, 0 = value A, 1 = value B (the seats' faces only when tossed); the deck card by card, top first (cats 0..31, 32 = an investigator card): at one of the top 16 + k places (k = 5 - n investigator cards) an investigator comes with P = investigators left / top places left, each cat left shares the rest |
| a random accusation window's order (when some cat can be accused) | one node: an index into ``engine.suspicion.SEAT_ORDERS[n]`` |
| where the Stasi chip goes back | one node: its place in the black supply |
| the chip a Cafe Adler swap takes | one node: a chip id among those it could take |

A node with a single outcome is skipped (the last tile, the last card, an investigator card that
must come). How it works: the state keeps the engine's state at the last decision; a player's
action is applied to a copy whose chance source (``GameState.chance``) answers from the outcomes
decided so far, and raises at the first question not decided yet; the state then becomes a chance
node for that question, and once it is answered the action is applied again to a fresh copy, with
that outcome known (``_Answers``). So the engine runs unchanged, and its chance questions are asked
where the stream would be read, in the same order.

**Observations.** The observation tensor is the environment's observation vector
(``ckc_env.observation.OBSERVATION``, 736 numbers, seats relative to the observer, one named piece
per entry of the env card's table). The information state tensor is the same vector: the
observation already holds what the player knows of the current round and the chips; it does not
recall the past (earlier rounds, the order of cards and decisions). The information state *string*
is perfect recall: the observation string, then the public record of every finished round, the
cards of this round in the order drawn, every decision of the game (others' chosen clue faces
hidden, each with the round and cards drawn when it was made) and what the player saw of its own
chips change hands. Nothing hidden gets in: the observation is read through the engine's
``PlayerView``, the rest is public decisions and the player's own chips.

**resample_from_infostate(player, sampler)** returns a state the player cannot tell from this one
(same information state strings and tensor, same legal actions), with everything hidden drawn
afresh by ``ckc_env.resample`` from the chance model's posterior: the other seats' clues and the
bag from the exact posterior (``ckc_env.beliefs``), the undrawn deck in a random order consistent
with what is known, the chips the player cannot see dealt uniformly among their places. It is
defined at decision nodes (what ISMCTS asks for), and gives a new game while the first deal is
still being made; its ``history()`` is this state's (not a history of the new world).

**A seat in ckc_env games.** :class:`OpenSpielAgent` plays any ``pyspiel.Bot`` in the environment
and the tournaments (:class:`ISMCTSAgent`: OpenSpiel's information-set MCTS); :func:`register_agents`
names it ``openspiel_ismcts`` among the players, so that tournaments can seat it by spec. Its
parameters are checked when the spec is (:func:`check_ismcts`): ``simulations`` an integer from 1
to :data:`MAX_SIMULATIONS` (100,000), ``rollouts`` from 1 to :data:`MAX_ROLLOUTS` (100), ``uct_c`` a
finite number > 0, ``reward`` a scheme above.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from ..agents.base import Agent
from ..cli import check_count
from ..config import COLOURS, GameConfig
from ..engine import game as engine
from ..engine.actions import CAFE_ADLER, CLUE_FACE, DECISION_KINDS, KEEP, N_ACTIONS, SWAP, action_to_string
from ..engine.cards import FEATURES, INVESTIGATOR, N_CATS, N_FEATURES, card_name, cat_name, cats_in, clue_name
from ..engine.chips import build_pool
from ..engine.scoring import total
from ..engine.state import GAME_OVER, PHASES, SWAPPING, GameState
from ..engine.suspicion import SEAT_ORDERS
from ..engine.view import PlayerView
from ..files import keys_text, short, unknown_keys
from ..observation import OBSERVATION, encoder
from ..resample import Uniform, resample
from ..table import rewards as reward_schemes

GAME_NAME = "checkpoint_charlie"
ISMCTS_NAME = "openspiel_ismcts"
DEAL = -1
"""The action being applied while the game itself is being set up."""


# ---------------------------------------------------------------------------------------------- parameters
def chip_pool_text(pool: Mapping[str, Sequence[int]]) -> str:
    """A chip pool as a parameter: ``"gold 3 3 4 4 5; white ...; black ..."`` (no commas: OpenSpiel's
    game strings split on them)."""
    return "; ".join(f"{colour} " + " ".join(str(v) for v in pool[colour]) for colour in COLOURS)


def parse_chip_pool(text: str) -> dict[str, list[int]]:
    """A chip pool parameter: colours separated by ``;``, each its name then its values, separated by
    spaces, ``=``, ``:`` or commas (``"gold=3,3,4,4,5;white=..."`` and ``"gold 3 3 4 4 5; ..."`` alike)."""
    pool: dict[str, list[int]] = {}
    for part in str(text).split(";"):
        words = part.replace("=", " ").replace(":", " ").replace(",", " ").split()
        if not words:
            continue
        name, values = words[0], words[1:]
        if name not in COLOURS or name in pool:
            raise ValueError(
                f"invalid chip_pool={short(text)}: give each of {list(COLOURS)} once, e.g. {_DEFAULT_POOL!r}"
            )
        if not all(re.fullmatch(r"[+-]?[0-9]{1,9}", v) for v in values):
            raise ValueError(f"invalid chip_pool={short(text)}: values are integers, e.g. {_DEFAULT_POOL!r}")
        pool[name] = [int(v) for v in values]
    return pool


_RULES = GameConfig()
_DEFAULT_POOL = chip_pool_text(_RULES.chip_pool)
PARAMETERS: dict[str, Any] = {
    "players": _RULES.num_players,
    "first_player": str(_RULES.first_player),
    "clue_face": _RULES.clue_face,
    "window_order": _RULES.window_order,
    "reopen_windows": _RULES.reopen_windows,
    "non_accuser_white": _RULES.non_accuser_white,
    "stasi": _RULES.stasi,
    "cafe_adler": _RULES.cafe_adler,
    "chip_pool": _DEFAULT_POOL,
    "max_rounds": _RULES.max_rounds,
    "target_points": _RULES.target_points,
    "reward": "points",
}
"""The game's parameters and their defaults (GameConfig's, ``players`` for ``num_players``)."""


def config_of(params: Mapping[str, Any]) -> tuple[GameConfig, str]:
    """The rules and the reward scheme of a parameter mapping (missing ones: the defaults); a
    ValueError names the parameter, its value and the accepted values."""
    if not isinstance(params, Mapping):
        raise ValueError(f"{GAME_NAME}'s parameters are a mapping with keys {list(PARAMETERS)}, got {short(params)}")
    unknown = unknown_keys(params, PARAMETERS)
    if unknown:
        raise ValueError(f"unknown parameter(s) {keys_text(unknown)}: accepted parameters are {list(PARAMETERS)}")
    given = {**PARAMETERS, **params}
    players = given["players"]
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 3 <= players <= 5:
        raise ValueError(f"invalid players={short(players)}: accepted values are 3, 4 or 5 (the number of players)")
    first = given["first_player"]
    if isinstance(first, str) and re.fullmatch(r"(seat)?\s*-?[0-9]{1,9}", first.strip()):
        first = int(first.strip().removeprefix("seat"))
    reward = given["reward"]
    if not isinstance(reward, str) or reward not in reward_schemes.REWARDS:
        raise ValueError(f"invalid reward={short(reward)}: accepted values are {list(reward_schemes.REWARDS)}")
    config = GameConfig(
        num_players=int(players),
        first_player=first,
        clue_face=given["clue_face"],
        window_order=given["window_order"],
        reopen_windows=given["reopen_windows"],
        non_accuser_white=given["non_accuser_white"],
        stasi=given["stasi"],
        cafe_adler=given["cafe_adler"],
        chip_pool=parse_chip_pool(given["chip_pool"]),
        max_rounds=given["max_rounds"],
        target_points=given["target_points"],
    )
    return config, reward


def parameters_of(config: GameConfig, reward: str = "points") -> dict[str, Any]:
    """The parameters of a configuration (in the forms OpenSpiel's game strings keep)."""
    return {
        "players": config.num_players,
        "first_player": "random" if config.first_player == "random" else f"seat {config.first_player}",
        "clue_face": config.clue_face,
        "window_order": config.window_order,
        "reopen_windows": config.reopen_windows,
        "non_accuser_white": config.non_accuser_white,
        "stasi": config.stasi,
        "cafe_adler": config.cafe_adler,
        "chip_pool": chip_pool_text(config.chip_pool),
        "max_rounds": config.max_rounds,
        "target_points": config.target_points,
        "reward": reward,
    }


@lru_cache(maxsize=32)
def load(config: GameConfig, reward: str = "points") -> CheckpointCharlieGame:
    """The OpenSpiel game of a configuration (loaded once per configuration and scheme)."""
    return pyspiel.load_game(GAME_NAME, parameters_of(config, reward))


# ---------------------------------------------------------------------------------------------- chance questions
class _Question:
    """One of the engine's chance questions, asked as a sequence of chance nodes. ``outcomes(partial)``
    gives the next node's (outcome, probability) pairs after the outcomes ``partial``; once
    ``len(partial) == steps``, ``answer(partial)`` is the outcome in the engine's form. Immutable,
    so that states share them."""

    __slots__ = ()
    kind = ""
    steps = 1

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        raise NotImplementedError

    def answer(self, partial: list[int]) -> Any:
        return partial[0]

    def forced(self, partial: list[int]) -> int | None:
        """The next outcome when it is the only one (no chance node is made for it), else None."""
        outcomes = self.outcomes(partial)
        return outcomes[0][0] if len(outcomes) == 1 else None

    def describe(self, partial: list[int], outcome: int) -> str:
        raise NotImplementedError


def _uniform(outcomes: Sequence[int]) -> list[tuple[int, float]]:
    p = 1.0 / len(outcomes)
    return [(o, p) for o in outcomes]


class _Supply(_Question):
    """Each colour's face-down supply: the chip taken next, colour by colour (chip ids)."""

    __slots__ = ("ids", "steps")
    kind = "supply_order"

    def __init__(self, ids_by_colour: Sequence[Sequence[int]]) -> None:
        self.ids = tuple(tuple(ids) for ids in ids_by_colour)
        self.steps = sum(len(ids) for ids in self.ids)

    def _at(self, partial: list[int]) -> tuple[int, list[int]]:
        """The colour asked for now and its chips taken so far."""
        start = 0
        for colour, ids in enumerate(self.ids):
            if len(partial) < start + len(ids):
                return colour, partial[start:]
            start += len(ids)
        raise ValueError("the supply is complete")

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        colour, taken = self._at(partial)
        return _uniform([chip for chip in self.ids[colour] if chip not in taken])

    def forced(self, partial: list[int]) -> int | None:
        colour, taken = self._at(partial)
        ids = self.ids[colour]
        return next(chip for chip in ids if chip not in taken) if len(taken) == len(ids) - 1 else None

    def answer(self, partial: list[int]) -> list[list[int]]:
        out, start = [], 0
        for ids in self.ids:  # the engine's supply lists end with the chip taken first
            out.append(partial[start : start + len(ids)][::-1])
            start += len(ids)
        return out

    def describe(self, partial: list[int], outcome: int) -> str:
        colour, taken = self._at(partial)
        return f"{COLOURS[colour]} chip {len(taken) + 1} to be taken: chip {outcome}"


class _FirstPlayer(_Question):
    __slots__ = ("n",)
    kind = "first_player"

    def __init__(self, n: int) -> None:
        self.n = n

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return _uniform(range(self.n))

    def describe(self, partial: list[int], outcome: int) -> str:
        return f"first player: {outcome}"


class _Deal(_Question):
    """A round's deal: the tile features in the order drawn, the faces tossed, the deck top first."""

    __slots__ = ("faces", "investigators", "n", "steps")
    kind = "deal"

    def __init__(self, n: int, investigators: int, seat_faces: bool) -> None:
        self.n = n
        self.investigators = investigators
        self.faces = tuple(range(N_FEATURES) if seat_faces else range(n, N_FEATURES))  # tile positions tossed
        self.steps = N_FEATURES + len(self.faces) + N_CATS + investigators

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        i = len(partial)
        if i < N_FEATURES:
            return _uniform([f for f in range(N_FEATURES) if f not in partial])
        if i < N_FEATURES + len(self.faces):
            return [(0, 0.5), (1, 0.5)]
        deck = partial[N_FEATURES + len(self.faces) :]
        drawn = set(deck)
        cats = [cat for cat in range(N_CATS) if cat not in drawn]
        investigators = self.investigators - deck.count(INVESTIGATOR)
        if not investigators:
            return _uniform(cats)
        p = investigators / (16 + self.investigators - len(deck))  # RULES.md 3.2: in the top 16 + k places
        if p >= 1.0:
            return [(INVESTIGATOR, 1.0)]
        share = (1.0 - p) / len(cats)
        return [(cat, share) for cat in cats] + [(INVESTIGATOR, p)]

    def forced(self, partial: list[int]) -> int | None:
        i = len(partial)
        if i < N_FEATURES - 1 or N_FEATURES <= i < N_FEATURES + len(self.faces):
            return None
        if i == N_FEATURES - 1:
            return next(f for f in range(N_FEATURES) if f not in partial)
        deck = partial[N_FEATURES + len(self.faces) :]
        investigators = self.investigators - deck.count(INVESTIGATOR)
        if investigators and investigators == 16 + self.investigators - len(deck):
            return INVESTIGATOR
        if len(deck) == N_CATS + self.investigators - 1:
            return INVESTIGATOR if investigators else next(c for c in range(N_CATS) if c not in set(deck))
        return None

    def answer(self, partial: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
        features = partial[:N_FEATURES]
        faces = dict(zip(self.faces, partial[N_FEATURES : N_FEATURES + len(self.faces)], strict=True))
        clues = [2 * f + faces.get(i, 0) for i, f in enumerate(features)]
        return features[: self.n], clues[: self.n], clues[self.n :], partial[N_FEATURES + len(self.faces) :]

    def describe(self, partial: list[int], outcome: int) -> str:
        i = len(partial)
        if i < N_FEATURES:
            where = f"seat {i}" if i < self.n else f"bag tile {i - self.n + 1}"
            return f"tile for {where}: {FEATURES[outcome][0]}"
        if i < N_FEATURES + len(self.faces):
            position = self.faces[i - N_FEATURES]
            return f"face of tile {position + 1}: {clue_name(2 * partial[position] + outcome)}"
        return f"deck card {i - N_FEATURES - len(self.faces) + 1}: {card_name(outcome)}"


class _Window(_Question):
    __slots__ = ("n",)
    kind = "window_order"

    def __init__(self, n: int) -> None:
        self.n = n

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return _uniform(range(len(SEAT_ORDERS[self.n])))

    def answer(self, partial: list[int]) -> list[int]:
        return SEAT_ORDERS[self.n][partial[0]]

    def forced(self, partial: list[int]) -> int | None:
        return None  # 3! orders at least

    def describe(self, partial: list[int], outcome: int) -> str:
        return "window order: seats " + " ".join(map(str, SEAT_ORDERS[self.n][outcome]))


class _StasiPlace(_Question):
    __slots__ = ("length",)
    kind = "stasi_place"

    def __init__(self, length: int) -> None:
        self.length = length

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return _uniform(range(self.length + 1))

    def describe(self, partial: list[int], outcome: int) -> str:
        return f"the Stasi chip goes back at place {outcome} of the black supply"


class _AdlerPick(_Question):
    __slots__ = ("candidates",)
    kind = "adler_pick"

    def __init__(self, candidates: Sequence[int]) -> None:
        self.candidates = tuple(sorted(candidates))

    def outcomes(self, partial: list[int]) -> list[tuple[int, float]]:
        return _uniform(self.candidates)

    def describe(self, partial: list[int], outcome: int) -> str:
        return f"the swap takes chip {outcome}"


class _UndecidedError(Exception):
    """The engine asked a chance question whose outcome is not decided yet."""

    def __init__(self, question: _Question) -> None:
        super().__init__(question.kind)
        self.question = question


class _Answers:
    """The chance source of one application of an action (``engine.chance.ChanceSource``): the
    outcomes decided so far, given in the order the engine asks; a question past them raises
    :class:`_UndecidedError`. ``seat_faces``: whether the seats' clue faces are tossed (``clue_face="random"``)."""

    __slots__ = ("outcomes", "seat_faces", "used")

    def __init__(self, seat_faces: bool, outcomes: Sequence[tuple[str, Any]] = ()) -> None:
        self.seat_faces = seat_faces
        self.outcomes = outcomes
        self.used = 0

    def _take(self, kind: str, question: Callable[[], _Question]) -> Any:
        if self.used < len(self.outcomes):
            asked, value = self.outcomes[self.used]
            if asked != kind:
                raise RuntimeError(f"the engine asked for {kind} where {asked} was decided: the course diverged")
            self.used += 1
            return value
        raise _UndecidedError(question())

    def supply_order(self, ids_by_colour: Sequence[Sequence[int]]) -> list[list[int]]:
        return self._take("supply_order", lambda: _Supply(ids_by_colour))

    def first_player(self, n: int) -> int:
        return self._take("first_player", lambda: _FirstPlayer(n))

    def deal(self, n: int, investigators: int) -> tuple[list[int], list[int], list[int], list[int]]:
        return self._take("deal", lambda: _Deal(n, investigators, self.seat_faces))

    def window_order(self, orders: Sequence[list[int]]) -> list[int]:
        return self._take("window_order", lambda: _Window(len(orders[0])))

    def stasi_place(self, length: int) -> int:
        return self._take("stasi_place", lambda: _StasiPlace(length))

    def adler_pick(self, candidates: Sequence[int]) -> int:
        return self._take("adler_pick", lambda: _AdlerPick(candidates))


def _answers(config: GameConfig, outcomes: Sequence[tuple[str, Any]] = ()) -> _Answers:
    return _Answers(config.clue_face == "random", outcomes)


# ---------------------------------------------------------------------------------------------- the course of a game
class _Course:
    """Everything an OpenSpiel state holds, in one attribute (OpenSpiel clones a Python state by
    deep-copying its attributes: this one copies itself fast, sharing what never changes)."""

    __slots__ = (
        "action", "answers", "config", "engine", "known", "log", "partial", "private", "question", "records",
        "returns", "reward", "rewards",
    )  # fmt: skip

    def __init__(self, config: GameConfig, reward: str) -> None:
        n = config.num_players
        self.config = config
        self.reward = reward
        self.engine: GameState | None = None  # the engine at the last decision (None while setting up)
        self.action = DEAL  # the action being applied while chance questions are open
        self.question: _Question | None = None  # the open chance question
        self.partial: list[int] = []  # its outcomes so far
        self.answers: list[tuple[str, Any]] = []  # the questions answered for the action being applied
        self.rewards = [0.0] * n  # of the last transition
        self.returns = [0.0] * n
        self.log: list[tuple[int, str, str]] = []  # every decision: (seat, as the seat saw it, as the others did)
        self.private: list[list[str]] = [[] for _ in range(n)]  # what each seat saw of its own chips change
        self.known: list[dict[int, int]] = [{} for _ in range(n)]  # per seat: chips it saw go to a seat, face-down
        self.records: list[str] = []  # the public record of each finished round, as text (written when read)

    def __deepcopy__(self, memo: dict) -> _Course:
        out = _Course.__new__(_Course)
        out.config, out.reward, out.action, out.question = self.config, self.reward, self.action, self.question
        out.engine = None if self.engine is None else self.engine.copy()
        out.partial = list(self.partial)
        out.answers = list(self.answers)
        out.rewards = list(self.rewards)
        out.returns = list(self.returns)
        out.log = list(self.log)
        out.private = [list(seen) for seen in self.private]
        out.known = [dict(known) for known in self.known]
        out.records = list(self.records)
        return out


# ---------------------------------------------------------------------------------------------- the game
_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Checkpoint Charlie",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=5,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class CheckpointCharlieGame(pyspiel.Game):
    """The game under one set of parameters (see the module docstring)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        config, reward = config_of(params or {})
        pool = build_pool(config)
        n, k = config.num_players, config.investigator_cards
        low = sum(min(0, p) for p in pool.points)
        high = sum(max(0, p) for p in pool.points)
        if reward == "win":
            low, high = -1.0, 1.0
        elif reward == "margin":
            low, high = low - high, high - low
        windows = len(SEAT_ORDERS[n]) if config.window_order == "random" else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=max(windows, INVESTIGATOR + 1, len(pool)),
            num_players=n,
            min_utility=float(low),
            max_utility=float(high),
            # a round: clue faces, a window after each card, the reopened windows, forced accusations, Adler decisions
            max_game_length=config.max_rounds * (n + (N_CATS + k) * n + (n - 1) ** 2 + n + 4),
        )
        super().__init__(_GAME_TYPE, info, parameters_of(config, reward))
        self.config = config
        self.reward = reward
        self._chance_nodes = len(pool) + 1 + config.max_rounds * (2 * N_FEATURES + 2 * (N_CATS + k) + 1 + 4)
        self._start = _Course(config, reward)
        _settle(self._start)  # the engine asks its first question (the supply)

    def new_initial_state(self) -> CheckpointCharlieState:
        return CheckpointCharlieState(self)

    def max_chance_nodes_in_history(self) -> int:
        return self._chance_nodes

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Mapping[str, Any] | None = None
    ) -> CheckpointCharlieObserver:
        if isinstance(iig_obs_type, Mapping):  # OpenSpiel asks with the parameters alone for the default type
            iig_obs_type, params = None, iig_obs_type
        return CheckpointCharlieObserver(
            self.config, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params
        )


class CheckpointCharlieState(pyspiel.State):
    """A game in progress: the engine's state at the last decision, and the chance question open."""

    def __init__(self, game: CheckpointCharlieGame) -> None:
        super().__init__(game)
        self._course: _Course = game._start.__deepcopy__({})

    # ------------------------------------------------------------------ OpenSpiel's API
    def current_player(self) -> int:
        course = self._course
        if course.question is not None:
            return pyspiel.PlayerId.CHANCE
        if course.engine.game_over:
            return pyspiel.PlayerId.TERMINAL
        return course.engine.current_seat

    def _legal_actions(self, player: int) -> list[int]:
        return engine.legal_actions(self._course.engine)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        course = self._course
        return course.question.outcomes(course.partial)

    def _apply_action(self, action: int) -> None:
        course = self._course
        action = int(action)
        course.rewards = [0.0] * course.config.num_players
        if course.question is not None:
            course.partial.append(action)
            _settle(course)
            return
        course.action = action
        course.answers = []
        _settle(course)

    def _action_to_string(self, player: int, action: int) -> str:
        course = self._course
        if player == pyspiel.PlayerId.CHANCE:
            if course.question is None:
                return f"chance outcome {action}"
            return course.question.describe(course.partial, action)
        return action_to_string(action)

    def is_terminal(self) -> bool:
        course = self._course
        return course.question is None and course.engine.game_over

    def returns(self) -> list[float]:
        return list(self._course.returns)

    def rewards(self) -> list[float]:
        return list(self._course.rewards)

    def __str__(self) -> str:
        return _full_text(self._course)

    def resample_from_infostate(self, player_id: int, probability_sampler: Uniform) -> CheckpointCharlieState:
        """A state ``player_id`` cannot tell from this one, everything it cannot see drawn afresh
        from the chance model's posterior (see the module docstring). At a decision node, or while
        the game is set up (a new game); at the end, a copy (every total is public then)."""
        course = self._course
        if course.engine is None:  # still setting up: nothing has been seen
            return self.get_game().new_initial_state()
        if course.question is not None:
            raise ValueError(
                "resample_from_infostate is defined at decision nodes: at a chance node the world drawn "
                "could need other chance nodes, or none, to finish the action being applied"
            )
        out = self.clone()
        course = out._course
        course.engine = resample(course.engine, player_id, probability_sampler, course.known[player_id])
        course.engine.chance = _answers(course.config)
        course.returns = (
            _returns_so_far(course.engine, course.reward) if not course.engine.game_over else course.returns
        )
        return out

    # ------------------------------------------------------------------ for the observer
    def observation_vector(self, player: int) -> np.ndarray:
        """The environment's observation vector of ``player`` (the static part while setting up)."""
        course = self._course
        code = encoder(OBSERVATION, course.config)
        if course.engine is None:
            return code.static.copy()
        return code.observation(PlayerView(course.engine, player))

    def observation_text(self, player: int) -> str:
        return _observation_text(self._course, player)

    def information_text(self, player: int) -> str:
        return _information_text(self._course, player)

    @property
    def game_state(self) -> GameState | None:
        """The engine's state at the last decision (None while the game is set up): for tools and tests."""
        return self._course.engine


class CheckpointCharlieObserver:
    """OpenSpiel's Python observer: the environment's observation vector, one named piece per
    entry of the env card's table; the observation string, or with ``perfect_recall`` the
    information state string."""

    def __init__(self, config: GameConfig, iig_obs_type: pyspiel.IIGObservationType, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params!r}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "supported observation types: the public information and the observer's own (the "
                "observation; with perfect_recall=True, the information state)"
            )
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(OBSERVATION.size, np.float32)
        start = OBSERVATION.offsets
        self.dict = {
            piece.name: self.tensor[start[piece.name] : start[piece.name] + math.prod(piece.shape)].reshape(piece.shape)
            for piece in OBSERVATION.pieces
        }

    def set_from(self, state: CheckpointCharlieState, player: int) -> None:
        self.tensor[:] = state.observation_vector(player)

    def string_from(self, state: CheckpointCharlieState, player: int) -> str:
        return state.information_text(player) if self.perfect_recall else state.observation_text(player)


# ---------------------------------------------------------------------------------------------- applying actions
def _settle(course: _Course) -> None:
    """Complete the open question's forced steps; once every question is answered, apply the action
    (again) from the last decision, until it reaches the next decision or a question not decided yet."""
    while True:
        question = course.question
        if question is not None:
            partial = course.partial
            while len(partial) < question.steps:
                outcome = question.forced(partial)
                if outcome is None:
                    return  # a chance node
                partial.append(outcome)
            course.answers.append((question.kind, question.answer(partial)))
            course.question, course.partial = None, []
        source = _answers(course.config, course.answers)
        try:
            if course.engine is None:
                world = engine.init(course.config, seed=0, chance_source=source)
            else:
                world = course.engine.copy()
                world.chance = source
                engine.apply(world, course.action)
        except _UndecidedError as undecided:
            course.question = undecided.question
            continue
        world.chance = _answers(course.config)  # the next action is applied to a copy with its own source
        _record(course, world)
        course.engine, course.action, course.answers = world, None, []
        return


def _record(course: _Course, world: GameState) -> None:
    """Rewards, the decision's entry in the log, and what each seat saw of its own chips change."""
    before = course.engine
    n = world.n
    gained = engine.pop_rewards(world)
    reward = course.reward
    if reward == "win":
        step = [0.0] * n
        if world.game_over:
            winners = world.final["winners"]
            step = [reward_schemes.win(s in winners, len(winners), n) for s in range(n)]
    elif reward == "margin":
        step = [reward_schemes.margin(float(g), float(sum(gained)), n) for g in gained]
    else:
        step = [float(g) for g in gained]
    course.rewards = step
    course.returns = [r + s for r, s in zip(course.returns, step, strict=True)]
    if before is None:
        return
    seat, kind, action = before.pending_seat, before.pending_kind, course.action
    when = f"{before.round_index + 1}.{before.deck_pos}:{seat}:"
    course.log.append((seat, when + str(action), when + ("face" if kind == CLUE_FACE else str(action))))
    if world.phase in (SWAPPING, GAME_OVER) or len(world.summaries) != len(before.summaries):
        _chips_seen(course, before, world)
        if kind == CAFE_ADLER and action != KEEP:
            _swap_seen(course, before, world, seat, (seat + action - SWAP + 1) % n)


def _chips_seen(course: _Course, before: GameState, world: GameState) -> None:
    points = world.pool.points
    for seat in range(world.n):
        old, new = before.holdings[seat], world.holdings[seat]
        if old != new:
            gained = sorted(points[c] for c in new if c not in old)
            lost = sorted(points[c] for c in old if c not in new)
            course.private[seat].append(f"{world.round_index + 1}:+{gained}-{lost}")


def _swap_seen(course: _Course, before: GameState, world: GameState, seat: int, other: int) -> None:
    """A Cafe Adler swap: ``other`` knows where its chip went; the others no longer know which of
    ``other``'s chips of that colour it was."""
    taken = next(c for c in world.holdings[seat] if c not in before.holdings[seat])
    colour = world.pool.colour
    for observer, known in enumerate(course.known):
        if observer == other:
            known[taken] = seat
        elif observer == seat:
            known.pop(taken, None)
        else:
            for chip in [c for c, holder in known.items() if holder == other and colour[c] == colour[taken]]:
                del known[chip]


def _returns_so_far(world: GameState, reward: str) -> list[float]:
    """What the scheme has paid each seat by now in ``world`` (rewards sum to it)."""
    n = world.n
    if reward == "win":
        return [0.0] * n
    points = [float(total(world, s)) for s in range(n)]
    if reward == "margin":
        return [reward_schemes.margin(p, sum(points), n) for p in points]
    return points


# ---------------------------------------------------------------------------------------------- text
def _cats(mask: int) -> str:
    return " ".join(cat_name(c) for c in cats_in(mask)) or "-"


def _observation_text(course: _Course, player: int) -> str:
    """What ``player`` sees at the table now (its ``PlayerView``), one fact a line."""
    state = course.engine
    if state is None:
        return f"player {player}: the game is being set up"
    view = PlayerView(state, player)
    n = view.num_players
    status = "game over" if view.game_over else f"round {view.round_index + 1}, {PHASES[view.phase]}"
    lines = [f"player {player} of {n}, {status}, first player {view.first_player}, drawer {view.drawer}"]
    if state.current_seat >= 0:
        decision = ""
        if view.to_act:
            decision = f" ({DECISION_KINDS[view.decision_kind]}"
            if view.decision_chip_colour >= 0:
                decision += f", a {COLOURS[view.decision_chip_colour]} Cafe Adler chip"
            decision += ")"
        lines.append(f"to act: player {state.current_seat}{decision}")
    clue = clue_name(view.own_clue) if view.own_clue >= 0 else "face to choose"
    lines.append(f"own tile {FEATURES[view.own_tile][0]}, clue {clue}")
    lines.append(f"own chips {sorted(view.own_chip_values)}, points {view.own_points}")
    if view.config.cafe_adler:
        lines.append(f"own face-down Cafe Adler chips {view.own_hidden_adler_counts()}")
    lines.append("public clues: " + (" ".join(clue_name(c) for c in view.public_clues) or "-"))
    exposed = view.exposed_clues
    if exposed:
        lines.append("face-up clues: " + " ".join(f"{s}:{clue_name(c)}" for s, c in sorted(exposed.items())))
    if view.stasi_card >= 0:
        lines.append(f"Stasi card: player {view.stasi_card}")
    if view.last_card >= 0:
        lines.append(f"last card: {card_name(view.last_card)} by player {view.last_drawer}")
    lines.append(f"deck {view.deck_size} cards, {view.investigators_left} investigator(s); supply {view.supply_counts}")
    for s in range(n):
        accused = view.accused_by[s]
        accusation = f"{cat_name(accused)} after {view.accused_at[s]} cards" if accused >= 0 else "-"
        chips = view.chip_table[s]
        lines.append(
            f"player {s}: row {_cats(view.rows[s])} | discards {_cats(view.discards[s])} | accused {accusation} | "
            f"chips {chips[:3]} face-up Adler {chips[3:]}"
        )
    if view.accusations:
        lines.append("accusation order: " + " ".join(str(s) for s, _ in view.accusations))
    if state.final is not None:
        lines.append(f"final points {state.final['totals']}, winners {state.final['winners']}")
    return "\n".join(lines)


def _information_text(course: _Course, player: int) -> str:
    """The observation text, then everything ``player`` has seen so far (perfect recall)."""
    state = course.engine
    cards = ""
    if state is not None:
        cards = " ".join(f"{seat}:{card}" for seat, card in state.card_order)
        for summary in state.summaries[len(course.records) :]:  # each finished round's record, written once
            course.records.append(json.dumps(summary, sort_keys=True, separators=(",", ":")))
    decisions = " ".join(own if seat == player else public for seat, own, public in course.log)
    return "\n".join(
        [
            _observation_text(course, player),
            "rounds: " + " ".join(course.records),
            "cards: " + cards,
            "decisions: " + decisions,
            "own chips: " + " ".join(course.private[player]),
        ]
    )


def _full_text(course: _Course) -> str:
    """Everything, hidden parts included (OpenSpiel's ``ToString``: for debugging and its tests)."""
    state = course.engine
    lines = []
    if state is not None:
        lines.append(
            f"round {state.round_index + 1}, {PHASES[state.phase]}, to act {state.current_seat}, "
            f"tiles {state.tiles}, clues {state.clues}, bag {state.bag}, public clues {state.public_clues}"
        )
        lines.append(f"deck {state.deck[state.deck_pos :]} (drawn {state.card_order})")
        lines.append(f"rows {state.rows}, discards {state.discards}, accusations {state.accusations}")
        lines.append(f"window {state.queue}@{state.queue_pos}, passed {state.window_passed}, owed {state.window_owed}")
        lines.append(f"holdings {state.holdings}, face-up {sorted(state.face_up)}, supply {state.supply}")
    else:
        lines.append("setting up")
    if course.question is not None:
        lines.append(f"chance: {course.question.kind} {course.partial} after {len(course.answers)} answer(s)")
    lines.append(f"returns {course.returns}, decisions {len(course.log)}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- a seat for a bot
def state_for_seat(view: PlayerView, uniform: Uniform, reward: str = "points") -> CheckpointCharlieState:
    """An OpenSpiel state at ``view.seat``'s decision, for a bot to search from: the game behind the
    view with everything the seat cannot see drawn afresh (``ckc_env.resample``), so the bot never
    reads a hidden fact. The decisions before it are not on record (the information state string
    starts from here), and what the seat saw of chips it lost in swaps is not kept."""
    game = load(view.config, reward)
    state = game.new_initial_state()
    course = state._course
    world = resample(view._state, view.seat, uniform)
    world.chance = _answers(course.config)
    course.engine, course.action, course.question, course.partial = world, None, None, []
    course.returns = _returns_so_far(world, reward)
    return state


BotFactory = Callable[[CheckpointCharlieGame, int, np.random.RandomState], Any]
"""Builds a bot for a game, a seat and a random state (``pyspiel.Bot``: ``step(state) -> action``)."""


class OpenSpielAgent(Agent):
    """An OpenSpiel bot in a ckc_env seat (``Agent``: ``act(view, observation) -> action``), for the
    environment's drivers and :func:`ckc_env.evaluation.tournament.run_tournament`. At each decision
    the bot is given :func:`state_for_seat`: the game as the seat could see it, the hidden parts
    drawn afresh, so it decides on the seat's information only."""

    name = "openspiel"

    def __init__(self, make_bot: BotFactory, seed: int | None = None, reward: str = "points") -> None:
        super().__init__(seed)
        self.make_bot = make_bot
        self.reward = reward
        self.random_state = np.random.RandomState(self.stream.draw() % (1 << 32))

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        self.bot = self.make_bot(load(config, self.reward), seat, self.random_state)

    def act(self, view: PlayerView, observation: Mapping[str, np.ndarray]) -> int:
        return int(self.bot.step(state_for_seat(view, self.random_state.random_sample, self.reward)))


class ISMCTSAgent(OpenSpielAgent):
    """OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) with
    random rollouts: ``simulations`` per decision, each from a world resampled from the seat's
    information set; returns by ``reward``."""

    name = ISMCTS_NAME

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = 100,
        uct_c: float = 4.0,
        rollouts: int = 1,
        reward: str = "points",
    ) -> None:
        # checked here, so that a spec's parameters are refused when the spec is validated
        self.simulations, self.uct_c, self.rollouts = check_ismcts(simulations, uct_c, rollouts)
        if not isinstance(reward, str) or reward not in reward_schemes.REWARDS:
            raise ValueError(f"invalid reward={short(reward)}: accepted values are {list(reward_schemes.REWARDS)}")
        super().__init__(self._make_bot, seed=seed, reward=reward)

    def _make_bot(self, game: CheckpointCharlieGame, seat: int, random_state: np.random.RandomState) -> Any:
        return ismcts_bot(game, random_state, self.simulations, self.uct_c, self.rollouts)


class RandomRollouts(mcts.RandomRolloutEvaluator):
    """OpenSpiel's random-rollout evaluator (uniform legal actions, chance outcomes by their
    probabilities, to the end of the game), drawing each chance outcome with one uniform number
    rather than ``RandomState.choice``, which costs more than the rest of a chance node here (a deal
    is some 40 of them)."""

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        random_state, result = self._random_state, None
        for _ in range(self.n_rollouts):
            working = state.clone()
            while not working.is_terminal():
                if working.is_chance_node():
                    outcomes = working.chance_outcomes()
                    u, action = random_state.random_sample(), outcomes[-1][0]
                    for outcome, p in outcomes:
                        u -= p
                        if u < 0:
                            action = outcome
                            break
                    working.apply_action(action)
                else:
                    legal = working.legal_actions()
                    working.apply_action(legal[random_state.randint(len(legal))])
            returns = np.array(working.returns())
            result = returns if result is None else result + returns
        return result / self.n_rollouts


MAX_SIMULATIONS = 100_000
"""The most ISMCTS simulations per decision (each resamples a world and plays it out, some 4 ms on a
core of a 3-player game's first decision: 100,000 take about 7 minutes a decision)."""
MAX_ROLLOUTS = 100
"""The most random rollouts per ISMCTS leaf."""


def check_ismcts(simulations: Any, uct_c: Any, rollouts: Any) -> tuple[int, float, int]:
    """ISMCTS's parameters, checked: ``simulations`` an integer from 1 to :data:`MAX_SIMULATIONS`,
    ``uct_c`` a finite number > 0, ``rollouts`` an integer from 1 to :data:`MAX_ROLLOUTS`; a
    ValueError names the parameter, its value and the accepted values."""
    simulations = check_count("simulations", simulations, 1, MAX_SIMULATIONS)
    rollouts = check_count("rollouts", rollouts, 1, MAX_ROLLOUTS)
    if (
        isinstance(uct_c, (bool, np.bool_))
        or not isinstance(uct_c, (int, float, np.integer, np.floating))
        or not math.isfinite(uct_c)
        or uct_c <= 0
    ):
        raise ValueError(f"invalid uct_c={short(uct_c)}: accepted values are finite numbers > 0")
    return simulations, float(uct_c), rollouts


def ismcts_bot(
    game: CheckpointCharlieGame,
    random_state: np.random.RandomState,
    simulations: int = 100,
    uct_c: float = 4.0,
    rollouts: int = 1,
) -> Any:
    """OpenSpiel's ``ISMCTSBot`` on this game, its worlds resampled with ``random_state`` (so a
    seeded bot decides alike run after run); the parameters are checked by :func:`check_ismcts`."""
    simulations, uct_c, rollouts = check_ismcts(simulations, uct_c, rollouts)
    evaluator = RandomRollouts(n_rollouts=rollouts, random_state=random_state)
    bot = ismcts.ISMCTSBot(
        game=game,
        evaluator=evaluator,
        uct_c=uct_c,
        max_simulations=simulations,
        random_state=random_state,
        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    )
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, random_state.random_sample))
    return bot


def register_agents() -> None:
    """Name :class:`ISMCTSAgent` ``openspiel_ismcts`` among ckc_env's players (``ckc_env.agents.REGISTRY``),
    so that tournaments seat it by spec: ``run_tournament(["openspiel_ismcts", "random", "random"], ...)``
    or ``{"name": "openspiel_ismcts", "simulations": 50}``. Worker processes inherit the name when
    they are forked (Linux) or with ``workers=1``."""
    from ..agents import REGISTRY

    REGISTRY.setdefault(ISMCTS_NAME, ISMCTSAgent)


pyspiel.register_game(_GAME_TYPE, CheckpointCharlieGame)


# ---------------------------------------------------------------------------------------------- load_game
INT_PARAMETERS = tuple(name for name, default in PARAMETERS.items() if type(default) is int)
"""The integer parameters (``players``, ``max_rounds``, ``target_points``): C++ ints in OpenSpiel."""
_LOAD_GAME = getattr(pyspiel.load_game, "__wrapped__", pyspiel.load_game)


def load_game(*args: Any, **kwargs: Any) -> Any:
    """``pyspiel.load_game``, with this game's parameters checked first. OpenSpiel converts a
    parameter mapping to C++ before the game's constructor sees it, so an integer outside a C++
    int (``{"players": 2**40}``) would end in pybind11's "Unable to cast Python instance" with no
    parameter named: checked here, the refusal is the constructor's (``invalid players=...:
    accepted values are 3, 4 or 5``). Other games load as before."""
    if len(args) == 2 and not kwargs and isinstance(args[0], str) and args[0] == GAME_NAME:
        params = args[1]
        if isinstance(params, Mapping):  # NumPy scalars as the Python values pybind11 takes
            params = {key: value.item() if isinstance(value, np.generic) else value for key, value in params.items()}
        config_of(params)
        args = (args[0], params)
    elif len(args) == 1 and not kwargs and isinstance(args[0], str) and args[0].startswith(GAME_NAME + "("):
        _check_game_string(args[0])
    return _LOAD_GAME(*args, **kwargs)


def _check_game_string(text: str) -> None:
    """The integer parameters of a game string (``checkpoint_charlie(players=1099511627776)``) that
    OpenSpiel's parser cannot hold, refused by name (the rest OpenSpiel and the constructor check)."""
    for item in text[len(GAME_NAME) + 1 :].rstrip(")").split(","):
        key, _, value = (part.strip() for part in item.partition("="))
        if key in INT_PARAMETERS and re.fullmatch(r"[+-]?[0-9]+", value):
            number = int(value) if len(value) <= 400 else value
            if not isinstance(number, int) or not -(2**31) <= number < 2**31:
                config_of({key: number})


load_game.__wrapped__ = _LOAD_GAME  # type: ignore[attr-defined]
pyspiel.load_game = load_game  # the module's own import registers the game and this check together
