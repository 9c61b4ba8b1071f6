"""The table's options, each checked by one rule for every front (AEC, single-agent, vector, RLlib)
and for the training configs that name them.

| option | accepted | rule |
|---|---|---|
| ``num_players`` | 3, 4, 5, or a list of them such as ``[3, 4, 5]`` | :func:`player_counts`: each game draws one count uniformly from the list (a count listed twice is drawn twice as often) |
| ``learner_seat`` | ``"random"`` or a seat of the smallest count | :func:`learner_seat` |
| ``opponents`` | one spec for every other seat, a list of n-1 specs in seat order after the learner, or ``{count: spec or list}`` naming every count | :func:`opponents_by_count` |
| ``reward`` | ``"points"``, ``"win"``, ``"margin"`` | :func:`ckc_env.table.rewards.scheme` |
| ``belief_features`` | ``False``, ``True``, ``"players"``, ``"second_order"`` | :func:`belief_features` |
| any other | a field of :class:`~ckc_env.config.GameConfig` | :func:`game_configs` |

Every refusal is a ``ValueError`` that names the option, the value (shortened) and what is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..config import MAX_PLAYERS, MIN_PLAYERS, PLAYER_COUNTS, GameConfig
from ..files import short
from ..observation import BELIEF_FEATURES
from ..players.specs import for_seats
from . import rewards


def fail(name: str, value: Any, accepted: str) -> None:
    """The one form of a refused option: ``invalid name=value: accepted values are ...``."""
    raise ValueError(f"invalid {name}={short(value)}: accepted values are {accepted}")


def player_counts(value: Any) -> tuple[int, ...]:
    """The player counts games are drawn from, sorted: one count, or a list of counts (a count
    listed k times is drawn k times as often)."""
    given = [value] if _is_int(value) else value
    accepted = (
        f"a player count from {MIN_PLAYERS} to {MAX_PLAYERS}, or a list of them such as {list(PLAYER_COUNTS)} "
        "(each game draws one)"
    )
    if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Sequence) or not given:
        fail("num_players", value, accepted)
    if not all(_is_int(n) and n in PLAYER_COUNTS for n in given):
        fail("num_players", value, accepted)
    return tuple(sorted(int(n) for n in given))


def is_per_count(value: Any) -> bool:
    """Whether ``value`` maps player counts to settings (``{3: ..., 5: ...}``) rather than being one
    player spec (a spec mapping has a ``name`` key, never integer keys)."""
    return isinstance(value, Mapping) and bool(value) and all(_is_int(k) for k in value)


def per_count(value: Any, counts: Sequence[int], what: str) -> dict[int, Any]:
    """``{count: setting}`` for each distinct count: ``value`` itself for all, or its entry per
    count (a mapping must name exactly the counts played)."""
    distinct = sorted(set(counts))
    if not is_per_count(value):
        return dict.fromkeys(distinct, value)
    if sorted(value) != distinct:
        missing, extra = sorted(set(distinct) - set(value)), sorted(set(value) - set(distinct))
        fail(
            what,
            dict(value),
            f"a mapping by player count naming exactly the counts {distinct} (missing {missing}, not played {extra})",
        )
    return {n: value[n] for n in distinct}


def opponents_by_count(opponents: Any, counts: Sequence[int], what: str = "opponents") -> dict[int, list[Any]]:
    """The players of each count's other seats, n-1 of them in seat order after the learner: one
    spec (or player object) for all, a list of n-1, or a mapping by count of either."""
    tables = per_count(opponents, counts, what)
    out = {}
    for n, table in tables.items():
        try:
            out[n] = for_seats(table if isinstance(table, (list, tuple)) else [table], n - 1, what)
        except ValueError as exc:
            raise ValueError(f"invalid {what}={short(opponents)}: {exc}") from None
    return out


def learner_seat(value: Any, counts: Sequence[int], name: str = "learner_seat") -> int | str:
    """``"random"`` or a seat that every count has."""
    fewest = min(counts)
    if value != "random" and not (_is_int(value) and 0 <= value < fewest):
        fail(name, value, f"'random' or 0 to {fewest - 1}")
    return value


def reward(value: Any, name: str = "reward") -> str:
    """The name of a reward scheme, checked by :func:`ckc_env.table.rewards.scheme` (for configs
    that keep the name; the fronts take the scheme itself from there)."""
    return rewards.scheme(value, name).name


def belief_features(value: Any, batched: bool = False, name: str = "belief_features") -> bool | str:
    """The observation's belief pieces (the same for both engines: ``batched`` is kept for callers
    that say which one they build; the batched engine writes every layout, the players' posterior
    with ``ckc_env.batch.players_posterior``)."""
    if not any(value is v or (isinstance(v, str) and value == v) for v in BELIEF_FEATURES):
        fail(name, value, ", ".join(repr(v) for v in BELIEF_FEATURES))
    return value


def flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        fail(name, value, "True, False")
    return value


def game_configs(rules: Mapping[str, Any], counts: Sequence[int]) -> dict[int, GameConfig]:
    """The rules for each distinct count (unknown options refused by :class:`GameConfig`)."""
    return {n: GameConfig.from_dict({**rules, "num_players": n}) for n in sorted(set(counts))}


def _is_int(value: Any) -> bool:
    import numpy as np

    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
