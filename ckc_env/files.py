"""Files from outside, read within bounds, and their text shown safely.

Agent cards, replays, result and history files and YAML configs may come from anyone (a download,
a shared run folder). Reading one must end quickly with a named error, whatever it holds:

| input | bound | refused with |
|---|---|---|
| a file's size | :data:`CARD_BYTES` for agent cards, :data:`YAML_BYTES` for configs, :data:`JSON_BYTES` otherwise, checked before reading | :class:`InputError` naming the file, its size and the limit |
| nesting | :data:`MAX_DEPTH` levels of lists and mappings (JSON and YAML) | the same |
| YAML aliases | refused (``&a`` / ``*a``): a 300-byte file of aliases expands to 10^9 items | the same |
| values in messages | :func:`short`: a bounded ``repr`` | |
| text shown in a terminal | :func:`printable`: control characters escaped (a name from a replay cannot move the cursor or recolour the screen) | |

:class:`InputError` is a ``ValueError``, so every caller that names bad input (the commands' exit
status 2) takes it as it takes the others.
"""

from __future__ import annotations

import json
import reprlib
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""Lists and mappings nested deeper than this are refused (the package's own files nest about 8 deep)."""
CARD_BYTES = 1 << 20
"""An agent card (JSON) is at most 1 MiB (the shipped cards are under 4 KB)."""
YAML_BYTES = 1 << 20
"""A YAML config is at most 1 MiB."""
JSON_BYTES = 64 << 20
"""Replays, result, history and evaluation files are at most 64 MiB."""


class InputError(ValueError):
    """A file (or a value in one) that is refused: the message names the file and what is accepted."""


# ---------------------------------------------------------------------------------------------- reading
def read_bytes(path: str | Path, what: str, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (the size is checked before reading)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if not path.is_file():
        raise InputError(f"{what} {path} is not a regular file")
    if size > limit:
        raise InputError(f"{what} {path} has {size:,} bytes, more than the {limit:,} accepted")
    try:
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > limit:  # grew while being read
        raise InputError(f"{what} {path} has more than the {limit:,} bytes accepted")
    return data


def parse_json(data: bytes | str, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON text as Python data, nested at most ``max_depth`` deep; :class:`InputError` otherwise."""
    try:
        value = json.loads(data)
    except RecursionError:
        raise InputError(f"{source} is nested deeper than {max_depth} levels") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{source} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    except ValueError as exc:  # JSONDecodeError, and numbers with more digits than Python converts
        raise InputError(f"{source} is not valid JSON: {exc}") from None
    check_depth(value, source, max_depth)
    return value


def read_json(path: str | Path, what: str, limit: int = JSON_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """A JSON file read within bounds: its size, then its nesting."""
    return parse_json(read_bytes(path, what, limit), f"{what} {path}", max_depth)


class _NoAliasLoader:
    """PyYAML's safe loader with aliases refused (built lazily: yaml is imported on first use)."""

    loader: type | None = None

    @classmethod
    def get(cls) -> type:
        if cls.loader is None:
            import yaml

            class Loader(yaml.SafeLoader):
                def compose_node(self, parent: Any, index: Any) -> Any:
                    if self.check_event(yaml.AliasEvent):
                        event = self.peek_event()
                        raise yaml.composer.ComposerError(
                            None,
                            None,
                            f"YAML aliases (*{event.anchor}) are not accepted: write each value out",
                            event.start_mark,
                        )
                    return super().compose_node(parent, index)

            cls.loader = Loader
        return cls.loader


def parse_yaml(text: str, source: str, max_depth: int = MAX_DEPTH) -> Any:
    """YAML text as Python data: safe types only, no aliases, nested at most ``max_depth`` deep."""
    import yaml

    try:
        value = yaml.load(text, Loader=_NoAliasLoader.get())
    except RecursionError:
        raise InputError(f"{source} is nested deeper than {max_depth} levels") from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML in {source}: {short_text(str(exc), 600)}") from None
    check_depth(value, source, max_depth)
    return value


def read_yaml(path: str | Path, what: str = "config file", limit: int = YAML_BYTES) -> Any:
    """A YAML file read within bounds (size, aliases, nesting)."""
    data = read_bytes(path, what, limit)
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} {path} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return parse_yaml(text, f"{what} {path}")


def check_depth(value: Any, source: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse lists and mappings nested deeper than ``max_depth`` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > max_depth:
            raise InputError(f"{source} is nested deeper than {max_depth} levels")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


# ---------------------------------------------------------------------------------------------- showing
_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 8
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlong = 40


def short(value: Any, limit: int = 200) -> str:
    """A ``repr`` of bounded length and effort, for values from files in error messages (a value
    built from aliases or a huge list is never formatted whole)."""
    return short_text(_REPR.repr(value), limit)


def short_text(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters, with control characters escaped."""
    text = printable(text, keep_newlines=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every non-printable character (escape sequences, carriage returns, bells,
    bidirectional controls) written as its Python escape, so it shows as text and does nothing."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        ch if ch.isprintable() or (keep_newlines and ch == "\n") else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )
