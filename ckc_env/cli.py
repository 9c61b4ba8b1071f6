"""Argument types for the command-line tools and benchmarks: every number is checked by range.

argparse names the argument when a type refuses a value, so ``--seed -1`` ends with
``argument --seed: -1 is out of range: accepted values are integers >= 0`` and exit status 2.

    parser.add_argument("--seed", type=cli.integer(0), default=0)
    parser.add_argument("--games", type=cli.integer(1), default=2000)
    parser.add_argument("--seat", type=cli.integer(0, 4))
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import NoReturn

from .files import short_text


def plain(doc: str | None) -> str:
    """A module docstring as ``--help`` text: reStructuredText markup removed (````x```` -> x,
    ``:mod:`~a.b``` -> b, ``:class:`a.B``` -> a.B), ``::`` at a line's end made ``:``."""
    text = doc or ""
    text = re.sub(r":[a-z]+:`~[\w.]*?\.(\w+)`", r"\1", text)
    text = re.sub(r":[a-z]+:`([^`]+)`", r"\1", text)
    text = text.replace("``", "")
    return re.sub(r"::$", ":", text, flags=re.M)


def need_extra(extra: str, *modules: str) -> None:
    """A ValueError naming the extra to install when one of ``modules`` is missing."""
    import importlib.util

    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise ValueError(
            f'this needs the {extra} extra ({", ".join(missing)} not installed): pip install -e ".[{extra}]" '
            f'in a checkout, or pip install "ckc-env[{extra}]"'
        )


def fail(parser: argparse.ArgumentParser, error: BaseException | str) -> NoReturn:
    """End a command on bad input: the usage, the message (control characters from files escaped,
    its length bounded) and exit status 2."""
    parser.error(short_text(str(error), 4000))


def integer(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high] (either bound may be open)."""
    accepted = _range_text(low, high, "integers")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer: accepted values are {accepted}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is out of range: accepted values are {accepted}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def number(low: float | None = None, high: float | None = None, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high], or (low, high] with ``low_open``."""
    accepted = _range_text(low, high, "numbers", low_open)

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number: accepted values are {accepted}") from None
        below = low is not None and (value <= low if low_open else value < low)
        if value != value or below or (high is not None and value > high) or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"{text} is out of range: accepted values are {accepted}")
        return value

    parse.__name__ = "number"
    return parse


def _range_text(low: float | None, high: float | None, what: str, low_open: bool = False) -> str:
    if low is not None and high is not None:
        return f"{what} from {low} to {high}" if not low_open else f"{what} > {low} and <= {high}"
    if low is not None:
        return f"{what} {'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{what} <= {high}"
    return what
