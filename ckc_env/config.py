"""The game's configuration: every [option] of RULES.md as a field of one frozen, validated object.

``GameConfig`` is what the engine reads. It is built from keyword arguments
(``GameConfig(num_players=4, stasi=True)``), from a dict (``GameConfig.from_dict``) or from a YAML
preset (``GameConfig.from_yaml("configs/rules/stasi.yaml")``). Every way in rejects an unknown
key, a value of the wrong type and a value out of range with a ``ValueError`` that names the field
and the accepted values.

| field | default | RULES.md | accepted values |
|---|---|---|---|
| ``num_players`` | 5 | 2 | 3, 4, 5 |
| ``first_player`` | ``"random"`` | 2 [option] | ``"random"`` or a seat 0..n-1 |
| ``clue_face`` | ``"random"`` | 3.1 [decision]/[option] | ``"random"``, ``"choose"`` |
| ``window_order`` | ``"random"`` | 4 [option] | ``"random"``, ``"clockwise_from_drawer"``, ``"clockwise_after_drawer"`` |
| ``reopen_windows`` | False | 4 [option] | bool: an accusation in a window gives the players who passed before it one more decision |
| ``non_accuser_white`` | ``"chief_in_deck"`` | 5 [option] | ``"chief_in_deck"``, ``"chief_uncaught"`` |
| ``stasi`` | False | 7 | bool |
| ``cafe_adler`` | False | 8 | bool |
| ``chip_pool`` | gold 3,3,4,4,5; white 1x6, 2x6; black 0x4, -1x4 | 1 [decision]/[option] | per colour a list of printed values: gold 3..5, white 1..2, black -1..0, at most 20 chips a colour |
| ``max_rounds`` | 5 | 6 (extension) | 1..5 |
| ``target_points`` | 10 | 6 (extension) | 1..50 |

``max_rounds`` and ``target_points`` are not options of the rules: they default to the rules'
values and exist so that shorter games (e.g. single-round training) can be configured.
The chip pool is the base pool; the variants take their chips out of it (RULES.md 7, 8).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import InputError, keys_text, read_yaml, short, short_text, unknown_keys

PLAYER_COUNTS = (3, 4, 5)
"""The numbers of players a game is for (RULES.md 2), declared once: every check of a player count
(here, the table's options, agent cards, the commands) reads it, and every message names it from it."""
MIN_PLAYERS, MAX_PLAYERS = PLAYER_COUNTS[0], PLAYER_COUNTS[-1]

COLOURS = ("gold", "white", "black")
GOLD, WHITE, BLACK = 0, 1, 2

DEFAULT_CHIP_POOL: dict[str, tuple[int, ...]] = {
    "gold": (3, 3, 4, 4, 5),
    "white": (1,) * 6 + (2,) * 6,
    "black": (0,) * 4 + (-1,) * 4,
}
CHIP_VALUE_RANGE = {"gold": (3, 5), "white": (1, 2), "black": (-1, 0)}
MAX_CHIPS_PER_COLOUR = 20

CLUE_FACE_CHOICES = ("random", "choose")
WINDOW_ORDER_CHOICES = ("random", "clockwise_from_drawer", "clockwise_after_drawer")
NON_ACCUSER_CHOICES = ("chief_in_deck", "chief_uncaught")


def _fail(name: str, value: Any, accepted: str) -> None:
    raise ValueError(f"invalid {name}={short(value)}: accepted values are {accepted}")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in choices:
        _fail(name, value, " or ".join(repr(c) for c in choices))


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(name, value, f"an integer from {low} to {high}")


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        _fail(name, value, "true or false")


def _normalise_pool(pool: Any) -> dict[str, tuple[int, ...]]:
    if not isinstance(pool, Mapping):
        _fail("chip_pool", pool, "a mapping with keys 'gold', 'white', 'black'")
    unknown = set(pool) - set(COLOURS)
    if unknown or set(pool) != set(COLOURS):
        _fail("chip_pool", dict(pool), "a mapping with exactly the keys 'gold', 'white', 'black'")
    out = {}
    for colour in COLOURS:
        values = pool[colour]
        low, high = CHIP_VALUE_RANGE[colour]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            _fail(f"chip_pool.{colour}", values, f"a list of 1 to {MAX_CHIPS_PER_COLOUR} integers")
        values = tuple(values)
        if not 1 <= len(values) <= MAX_CHIPS_PER_COLOUR:
            _fail(f"chip_pool.{colour}", list(values), f"a list of 1 to {MAX_CHIPS_PER_COLOUR} integers")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                _fail(f"chip_pool.{colour}", list(values), f"integers from {low} to {high}")
        out[colour] = tuple(sorted(values))
    return out


class ChipPoolSpec(Mapping):
    """A read-only, hashable mapping colour -> sorted tuple of printed values."""

    def __init__(self, pool: Mapping[str, tuple[int, ...]]) -> None:
        self._items = tuple((colour, tuple(pool[colour])) for colour in COLOURS)

    def __getitem__(self, colour: str) -> tuple[int, ...]:
        for name, values in self._items:
            if name == colour:
                return values
        raise KeyError(colour)

    def __iter__(self):
        return iter(COLOURS)

    def __len__(self) -> int:
        return len(COLOURS)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self) == dict(other)

    def __repr__(self) -> str:
        return repr(dict(self._items))


@dataclass(frozen=True)
class GameConfig:
    """Rule options of one game (see the module docstring for the table)."""

    num_players: int = 5
    first_player: int | str = "random"
    clue_face: str = "random"
    window_order: str = "random"
    reopen_windows: bool = False
    non_accuser_white: str = "chief_in_deck"
    stasi: bool = False
    cafe_adler: bool = False
    chip_pool: Mapping[str, tuple[int, ...]] = field(default_factory=lambda: dict(DEFAULT_CHIP_POOL))
    max_rounds: int = 5
    target_points: int = 10

    def __post_init__(self) -> None:
        _check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        if self.first_player != "random":
            _check_int_or_random("first_player", self.first_player, self.num_players)
        _check_choice("clue_face", self.clue_face, CLUE_FACE_CHOICES)
        _check_choice("window_order", self.window_order, WINDOW_ORDER_CHOICES)
        _check_choice("non_accuser_white", self.non_accuser_white, NON_ACCUSER_CHOICES)
        _check_bool("reopen_windows", self.reopen_windows)
        _check_bool("stasi", self.stasi)
        _check_bool("cafe_adler", self.cafe_adler)
        _check_int("max_rounds", self.max_rounds, 1, 5)
        _check_int("target_points", self.target_points, 1, 50)
        pool = _normalise_pool(self.chip_pool)
        object.__setattr__(self, "chip_pool", ChipPoolSpec(pool))
        needed_black = int(self.stasi) + int(self.cafe_adler)
        if pool["black"].count(-1) < needed_black:
            _fail(
                "chip_pool.black", list(pool["black"]), f"at least {needed_black} chip(s) of -1 for the variants chosen"
            )
        if self.cafe_adler and (3 not in pool["gold"] or pool["white"].count(1) < 2):
            _fail("chip_pool", pool, "a gold 3 and two white 1 for Cafe Adler to replace")

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameConfig:
        if not isinstance(data, Mapping):
            raise ValueError(f"a game config must be a mapping of option names to values, got {type(data).__name__}")
        unknown = unknown_keys(data, cls.fields())
        if unknown:
            raise ValueError(f"unknown game option(s) {keys_text(unknown)}: accepted options are {list(cls.fields())}")
        return cls(**data)

    @classmethod
    def from_yaml(cls, path: str | Path, **overrides: Any) -> GameConfig:
        """Load a rules preset; keyword overrides win over the file (e.g. ``num_players``). A
        ValueError names the file, the option and the accepted values."""
        data = load_rules(path)
        try:
            return cls.from_dict({**data, **overrides})
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        out = {f: getattr(self, f) for f in self.fields()}
        out["chip_pool"] = {c: list(v) for c, v in self.chip_pool.items()}
        return out

    @property
    def investigator_cards(self) -> int:
        """Unused investigator cards shuffled into the deck (RULES.md 3.2): one for each seat a full
        table has and this one does not."""
        return MAX_PLAYERS - self.num_players


def _check_int_or_random(name: str, value: Any, n: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
        _fail(name, value, f"'random' or a seat from 0 to {n - 1}")


def load_yaml_mapping(path: str | Path, accepted: Sequence[str] | None = None, what: str = "option") -> dict[str, Any]:
    """Read a YAML file that must hold a mapping of option names; a malformed, oversized, aliased or
    too deeply nested file gets a ValueError naming the file (:func:`ckc_env.files.read_yaml`), and
    so does a key that no config has (:func:`check_keys`). With ``accepted``, a top-level key not
    among them is refused too, naming the file, the key and the accepted keys (``what`` names them:
    ``unknown game option(s) ['variant']: accepted game options are [...]``)."""
    path = Path(path)
    data = read_yaml(path, "config file")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"{path} must hold a mapping of option names to values, got {type(data).__name__}")
    if accepted is not None:
        unknown = unknown_keys(data, accepted)
        if unknown:
            raise InputError(f"{path}: unknown {what}(s) {keys_text(unknown)}: accepted {what}s are {list(accepted)}")
    check_keys(data, str(path))
    return data


def load_rules(path: str | Path) -> dict[str, Any]:
    """A rules file's options, checked whole as every command takes them: the keys of
    :class:`GameConfig` (another key is refused naming the file, the key and the accepted options)
    and every value by :meth:`GameConfig.from_dict` (a file without ``num_players`` is checked at
    the largest table, whose seats include every other's). A ValueError names the file."""
    data = load_yaml_mapping(path, GameConfig.fields(), "game option")
    try:
        GameConfig.from_dict({"num_players": MAX_PLAYERS, **data})
    except ValueError as exc:
        raise InputError(f"{path}: {exc}") from None
    return data


def check_keys(data: Any, source: str) -> None:
    """Refuse keys no config has, anywhere in ``data``: a mapping's keys are option names (text) or,
    in a mapping by player count (``opponents: {3: ..., 5: ...}``), integers, never both; a null
    (``~``), true/false (YAML reads ``on``, ``yes``, ``no`` as those), a number with a point or a
    date is never a key. Walked without recursion; the refusal names the file, the key and where it is."""
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, list):
            stack.extend((child, f"{where}[{k}]") for k, child in enumerate(item) if isinstance(child, (dict, list)))
            continue
        if not isinstance(item, dict):
            continue
        place = f" in {short_text(where, 200)}" if where else " at the top level"
        names = [key for key in item if isinstance(key, str)]
        for key in item:
            if not isinstance(key, str) and (isinstance(key, bool) or not isinstance(key, int)):
                raise InputError(
                    f"{source}: key {short(key)}{place} is not accepted: keys are option names (text), or player "
                    "counts in a mapping by count (YAML reads ~ as null and on, off, yes, no as true or false: quote them)"
                )
            if not isinstance(key, str) and names:
                raise InputError(
                    f"{source}: key {short(key)}{place} stands beside the names {keys_text(names)}: a mapping's keys "
                    "are option names (text), or player counts in a mapping by count, not both"
                )
        stack.extend(
            (child, f"{where}.{key}" if where else str(key))
            for key, child in item.items()
            if isinstance(child, (dict, list))
        )
