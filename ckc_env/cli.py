"""Argument types for the command-line tools and benchmarks: every number is checked by range.

argparse names the argument when a type refuses a value, so ``--seed -1`` ends with
``argument --seed: -1 is out of range: accepted values are integers from 0 to 18446744073709551615``
and exit status 2.

    parser.add_argument("--seed", type=cli.seed(), default=0)      # 0 .. MAX_SEED
    parser.add_argument("--games", type=cli.games(), default=2000)  # 1 .. MAX_GAMES
    parser.add_argument("--seat", type=cli.integer(0, 4))

Every count a command takes has an upper bound, so that no value runs on without end:

| value | accepted | why |
|---|---|---|
| a seed | 0 .. :data:`MAX_SEED` (2**64 - 1) | the engine deals a game from a 64-bit seed (``ckc_env.engine.chance``) |
| games | 1 .. :data:`MAX_GAMES` (1,000,000) | a million games is hours of play; more is a typo |
| worker processes | 1 .. :data:`MAX_WORKERS` (256) | |
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import NoReturn, TextIO

from .engine.chance import SEED_LIMIT
from .files import printable, short, short_text

MAX_SEED = SEED_LIMIT - 1
"""The largest seed a command takes: the engine's seeds are the integers 0 .. 2**64 - 1."""
MAX_GAMES = 1_000_000
"""The most games one command plays (a tournament, a comparison, ``ckc-play --games``)."""
MAX_WORKERS = 256
"""The most worker processes a command starts."""
MAX_DIGITS = 100
"""An integer argument longer than this is refused before it is converted."""


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


def say(text: str, file: TextIO | None = None, flush: bool = False) -> None:
    """Print a line that may hold names from files or the command line (a path, a player, a card)
    with control characters escaped: a name cannot move the cursor or recolour the terminal."""
    print(printable(text, keep_newlines=True), file=file if file is not None else sys.stdout, flush=flush)


def fail(parser: argparse.ArgumentParser, error: BaseException | str) -> NoReturn:
    """End a command on bad input: the usage, the message (control characters from files escaped,
    its length bounded) and exit status 2."""
    parser.error(short_text(str(error), 4000))


def check_outputs(parser: argparse.ArgumentParser, **outputs: str | None) -> None:
    """The files a command will write (by flag: ``json=args.json``), checked before any work
    (:func:`ckc_env.files.check_output`): a refusal ends the command with exit status 2 and
    nothing created."""
    from .files import check_output

    for flag, path in outputs.items():
        if path:
            try:
                check_output(path, f"--{flag.replace('_', '-')}")
            except ValueError as exc:
                fail(parser, exc)


def integer(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high] (either bound may be open). The value is shown
    shortened in the refusal (a 5000-digit number is named, not printed whole)."""
    accepted = _range_text(low, high, "integers")

    def parse(text: str) -> int:
        if re.fullmatch(r"\s*[+-]?[0-9_]+\s*", text) and len(text.strip()) > MAX_DIGITS:
            # refused unconverted: no count or seed has that many digits (and Python converts at most 4300)
            raise argparse.ArgumentTypeError(
                f"{short_text(text.strip(), 40)} ({len(text.strip()):,} digits) is out of range: accepted values "
                f"are {accepted}" + ("" if high is not None else f" of at most {MAX_DIGITS} digits")
            )
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{short(text, 80)} is not an integer: accepted values are {accepted}"
            ) from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{short(value, 80)} is out of range: accepted values are {accepted}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def seed() -> Callable[[str], int]:
    """An argparse type: a seed, 0 .. :data:`MAX_SEED`."""
    return integer(0, MAX_SEED)


def games() -> Callable[[str], int]:
    """An argparse type: a number of games, 1 .. :data:`MAX_GAMES`."""
    return integer(1, MAX_GAMES)


def check_count(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in [low, high] (a bool or a float is refused), else a ValueError naming
    ``name``, the value (shortened) and the range: the bound a Python API puts on a count or a seed."""
    import operator

    try:
        count = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        count = None
    if count is None or not low <= count <= high:
        raise ValueError(f"invalid {name}={short(value, 80)}: accepted values are integers from {low} to {high}")
    return count


def number(low: float | None = None, high: float | None = None, low_open: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in [low, high], or (low, high] with ``low_open``."""
    accepted = _range_text(low, high, "numbers", low_open)

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{short(text, 80)} is not a number: accepted values are {accepted}"
            ) from None
        below = low is not None and (value <= low if low_open else value < low)
        if value != value or below or (high is not None and value > high) or value in (float("inf"), float("-inf")):
            raise argparse.ArgumentTypeError(f"{short_text(text, 80)} is out of range: accepted values are {accepted}")
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
