"""Players in a config: one spec for every other seat, a list of n-1, or by player count
(``{3: [...], 4: [...]}``), each spec's form checked (what it names is built and checked by the
commands, :mod:`training.commands.checks`)."""

from __future__ import annotations

from typing import Any

from ckc_env.files import short
from ckc_env.players import specs
from ckc_env.table.options import fail, is_per_count, per_count


def player(key: str, spec: Any, allow_self: bool = True) -> Any:
    """A spec's form checked (a ValueError naming ``key``); the spec as given."""
    try:
        specs.parse(spec, allow_self=allow_self)
    except ValueError as exc:
        raise ValueError(f"invalid {key}={short(spec)}: {exc}") from None
    return spec


def seat_specs(key: str, value: Any, counts: tuple[int, ...]) -> Any:
    """Opponents for the other seats: one spec for all, a list of n-1 (kept as given), or with
    several player counts a mapping ``{count: one spec or a list of count-1}``."""
    if is_per_count(value):
        tables = per_count(value, counts, key)
        return {n: seat_specs(f"{key}.{n}", table, (n,)) for n, table in tables.items()}
    given = [value] if isinstance(value, (str, dict)) else value
    if not isinstance(given, list):
        fail(key, value, f"one spec, a list of n-1 for n players, or a mapping {{count: opponents}} for {list(counts)}")
    for n in counts:
        try:
            specs.for_seats(given, n - 1)
        except ValueError as exc:
            raise ValueError(f"invalid {key}={short(value)}: {exc}") from None
    return [player(f"{key}[{i}]", spec) for i, spec in enumerate(given)]


def specs_named(value: Any) -> list[Any]:
    """Every player spec in an opponents table or teacher setting (flat, over all counts)."""
    if is_per_count(value):
        return [spec for table in value.values() for spec in specs_named(table)]
    return list(value) if isinstance(value, list) else [value]
