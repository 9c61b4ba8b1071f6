"""Claims as the samples show them: a figure pooled over its samples, and the word a lead earns.

    from ckc_env.evaluation.claims import pooled_difference, verdict
    gain = pooled_difference(["docs/results/a_seed1.json", "docs/results/a_seed2.json"])
    print(gain, verdict(gain))   # +0.011 [+0.007, +0.015] first

A published strength figure is the pooled one over every sample taken of it (independent samples:
different seeds, so different deals), the samples shown beside it; not the range of the samples,
which grows with the number of samples and says nothing of the interval. Pooling is by games: the
mean of the samples weighted by their games, its standard error ``sqrt(sum (n_i / N)^2 se_i^2)``,
each sample's standard error read off its normal 95% interval (a paired difference, a lead).

A player is "first" (or "above") only where the pooled lead's interval clears 0, "behind" where it
is below 0, and "tied" otherwise (:func:`verdict`). ``tests/test_claims.py`` holds every such
sentence of the docs to the result files it names.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..files import read_json
from .statistics import Z95, Stat

Sample = tuple[float, float, float, int]
"""(mean, low, high, games): one sample's figure with its normal 95% interval."""


def pooled(samples: Sequence[Sample]) -> Stat:
    """The samples' figure pooled by games, with its normal 95% interval."""
    if not samples:
        raise ValueError("no samples to pool")
    total = sum(games for *_, games in samples)
    mean = sum(m * games for m, _, _, games in samples) / total
    variance = sum((games / total) ** 2 * ((high - low) / (2 * Z95)) ** 2 for _, low, high, games in samples)
    half = Z95 * math.sqrt(variance)
    return Stat(mean, mean - half, mean + half)


def paired_sample(path: str | Path, metric: str = "win") -> Sample:
    """A paired comparison's difference (``ckc-evaluate --compare --out``): first less second."""
    record = read_json(path, "a paired comparison")
    if "difference" not in record:
        raise ValueError(f"{path}: not a paired comparison (no 'difference'): made by ckc-evaluate --compare")
    figure = record["difference"][metric]
    return figure["mean"], figure["ci95"][0], figure["ci95"][1], int(record["games"])


def lead_sample(path: str | Path, first: str, second: str) -> Sample:
    """``first``'s lead over ``second`` at a lineup's table (``ckc-evaluate --lineup --out``), from
    the file's first place's lead: negative where ``second`` was first. The two must be the table's
    first two places."""
    record = read_json(path, "a tournament result")
    lead = record.get("lead")
    if not isinstance(lead, dict):
        raise ValueError(f"{path}: no first place's lead (re-run it with ckc-evaluate --lineup --out)")
    mean, (low, high) = lead["difference"], lead["ci95"]
    if (lead["first"], lead["second"]) == (first, second):
        return mean, low, high, int(record["games"])
    if (lead["first"], lead["second"]) == (second, first):
        return -mean, -high, -low, int(record["games"])
    raise ValueError(f"{path}: the first two places are {lead['first']} and {lead['second']}, not {first} and {second}")


def rate_sample(path: str | Path, metric: str = "win") -> Sample:
    """The first player's rate (win share) at a lineup's table or in a paired comparison's first
    tournament, with its interval (Wilson's, near enough the normal one at these sizes)."""
    record = read_json(path, "a tournament result")
    figure = record["players"][0][metric]
    return figure["mean"], figure["ci95"][0], figure["ci95"][1], int(record["games"])


def pooled_rate(paths: Sequence[str | Path], metric: str = "win") -> Stat:
    """The first player's rate pooled over lineup or paired files of one table."""
    return pooled([rate_sample(p, metric) for p in paths])


def pooled_difference(paths: Sequence[str | Path], metric: str = "win") -> Stat:
    """Paired comparisons' difference pooled over their files."""
    return pooled([paired_sample(p, metric) for p in paths])


def pooled_lead(paths: Sequence[str | Path], first: str, second: str) -> Stat:
    """``first``'s lead over ``second`` pooled over lineup files of one table."""
    return pooled([lead_sample(p, first, second) for p in paths])


def verdict(stat: Stat) -> str:
    """``first`` where the interval clears 0, ``behind`` where it is below, else ``tied``."""
    if stat.low > 0:
        return "first"
    if stat.high < 0:
        return "behind"
    return "tied"


def signed(stat: Stat, digits: int = 3) -> str:
    """``+0.011 [+0.007, +0.015]``: how the docs quote a difference."""
    return f"{stat.mean:+.{digits}f} [{stat.low:+.{digits}f}, {stat.high:+.{digits}f}]"


def summary(paths: Sequence[str | Path], first: str | None = None, second: str | None = None) -> dict[str, Any]:
    """The pooled figure, its verdict and each sample beside it (paired files, or lineup files with
    the two players named)."""
    samples = (
        [paired_sample(p) for p in paths] if first is None else [lead_sample(p, first, second or "") for p in paths]
    )
    stat = pooled(samples)
    return {
        "pooled": {"mean": stat.mean, "ci95": [stat.low, stat.high], "games": sum(s[3] for s in samples)},
        "verdict": verdict(stat),
        "samples": [
            {"file": str(p), "mean": m, "ci95": [low, high], "games": n}
            for p, (m, low, high, n) in zip(paths, samples, strict=True)
        ],
    }


def markdown(entries: Sequence[dict[str, Any]]) -> str:
    """A table of claims, one row each: what is compared, each sample (file, figure, games), the
    pooled figure and its word. ``entries``: ``{"claim", "files"}`` (paired comparisons) or with
    ``"first"`` and ``"second"`` (a lead at lineup tables), as ``docs/results/claims.json`` holds them."""
    rows = ["| claim | samples (file: figure, games) | pooled | word |", "|---|---|---|---|"]
    for entry in entries:
        found = summary(entry["files"], entry.get("first"), entry.get("second"))
        samples = "; ".join(
            f"`{Path(s['file']).stem}`: {signed(Stat(s['mean'], *s['ci95']))}, {s['games']:,}" for s in found["samples"]
        )
        pooled_stat = Stat(found["pooled"]["mean"], *found["pooled"]["ci95"])
        word = (
            found["verdict"]
            if entry.get("first")
            else {"first": "above", "tied": "level", "behind": "below"}[found["verdict"]]
        )
        rows.append(
            f"| {entry['claim']} | {samples} | {signed(pooled_stat)} on {found['pooled']['games']:,} | **{word}** |"
        )
    return "\n".join(rows)
