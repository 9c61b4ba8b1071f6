"""The game's parameters: every rule option of :class:`~ckc_env.config.GameConfig`, with its
default, plus the reward scheme, read into a configuration by the table's own checks.

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

A refused parameter is a ValueError naming it, its value and the accepted values: the rules are
checked as every front checks them (``ckc_env.table.options``, :class:`~ckc_env.config.GameConfig`),
the scheme by ``ckc_env.table.rewards.scheme``. Nothing here needs OpenSpiel.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...config import COLOURS, MAX_PLAYERS, PLAYER_COUNTS, GameConfig
from ...files import keys_text, short, unknown_keys
from ...table import options, rewards

GAME_NAME = "checkpoint_charlie"
_COUNTS_TEXT = ", ".join(str(n) for n in PLAYER_COUNTS[:-1]) + f" or {MAX_PLAYERS}"  # "3, 4 or 5"


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
INT_PARAMETERS = tuple(name for name, default in PARAMETERS.items() if type(default) is int)
"""The integer parameters (``players``, ``max_rounds``, ``target_points``): C++ ints in OpenSpiel."""


def config_of(params: Mapping[str, Any]) -> tuple[GameConfig, rewards.Scheme]:
    """The rules and the reward scheme of a parameter mapping (missing ones: the defaults); a
    ValueError names the parameter, its value and the accepted values."""
    if not isinstance(params, Mapping):
        raise ValueError(f"{GAME_NAME}'s parameters are a mapping with keys {list(PARAMETERS)}, got {short(params)}")
    unknown = unknown_keys(params, PARAMETERS)
    if unknown:
        raise ValueError(f"unknown parameter(s) {keys_text(unknown)}: accepted parameters are {list(PARAMETERS)}")
    rules = {**PARAMETERS, **params}
    players = rules.pop("players")
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or players not in PLAYER_COUNTS:
        options.fail("players", players, f"{_COUNTS_TEXT} (the number of players)")
    first = rules["first_player"]
    if isinstance(first, str) and re.fullmatch(r"(seat)?\s*-?[0-9]{1,9}", first.strip()):
        rules["first_player"] = int(first.strip().removeprefix("seat"))
    scheme = rewards.scheme(rules.pop("reward"))
    rules["chip_pool"] = parse_chip_pool(rules["chip_pool"])
    return options.game_configs(rules, [int(players)])[int(players)], scheme


def parameters_of(config: GameConfig, reward: str | rewards.Scheme = "points") -> dict[str, Any]:
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
        "reward": rewards.scheme(reward).name,
    }


def check_game_string(text: str) -> None:
    """The integer parameters of a game string (``checkpoint_charlie(players=1099511627776)``) that
    OpenSpiel's parser cannot hold, refused by name (the rest OpenSpiel and the game check)."""
    for item in text[len(GAME_NAME) + 1 :].rstrip(")").split(","):
        key, _, value = (part.strip() for part in item.partition("="))
        if key in INT_PARAMETERS and re.fullmatch(r"[+-]?[0-9]+", value):
            number = int(value) if len(value) <= 400 else value
            if not isinstance(number, int) or not -(2**31) <= number < 2**31:
                config_of({key: number})
