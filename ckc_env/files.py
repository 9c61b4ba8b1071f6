"""Files from outside, read within bounds, and their text shown safely.

Agent cards, replays, result and history files and YAML configs may come from anyone (a download,
a shared run folder). Reading one must end quickly with a named error, whatever it holds:

| input | bound | refused with |
|---|---|---|
| a file's size | :data:`CARD_BYTES` for agent cards, :data:`YAML_BYTES` for configs, :data:`JSON_BYTES` otherwise, checked before reading | :class:`InputError` naming the file, its size and the limit |
| nesting | :data:`MAX_DEPTH` levels of lists and mappings (JSON and YAML) | the same |
| YAML aliases | refused (``&a`` / ``*a``): a 300-byte file of aliases expands to 10^9 items | the same |
| a value Python cannot build | an integer of more than 4300 digits (JSON and YAML), a date with month 13 (YAML) | the same, with the value's line (YAML): :func:`value_error` |
| values in messages | :func:`short`: a bounded ``repr`` (an integer too long to print is named by its size) | |
| keys in messages | :func:`unknown_keys`, :func:`keys_text`: keys of mixed types (``1``, ``~`` beside names) named, never compared | |
| text shown in a terminal | :func:`printable`: control characters escaped (a name from a replay cannot move the cursor or recolour the screen) | |

:class:`InputError` is a ``ValueError``, so every caller that names bad input (the commands' exit
status 2) takes it as it takes the others.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import reprlib
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
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
        raise InputError(f"{source} is not valid JSON: {value_error(exc)}") from None
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
                def construct_object(self, node: Any, deep: bool = False) -> Any:
                    # A scalar Python cannot convert (an integer of more than 4300 digits, a date
                    # with month 13, ``!!timestamp x``) raises a plain ValueError or AttributeError
                    # in PyYAML's constructors: made a YAML error with the value and its line.
                    try:
                        return super().construct_object(node, deep)
                    except (ValueError, ArithmeticError, AttributeError, TypeError) as exc:
                        raise yaml.constructor.ConstructorError(
                            None, None, value_error(exc, getattr(node, "value", None)), node.start_mark
                        ) from None

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


def value_error(exc: BaseException, text: Any = None) -> str:
    """Why a value in a file could not be read, in the reader's terms: an integer longer than
    Python converts is named with its length and the limit (not ``sys.set_int_max_str_digits``)."""
    message = str(exc)
    if "Exceeds the limit" in message and "integer string conversion" in message:
        digits = re.search(r"value has (\d+) digits", message)
        return (
            f"an integer of {digits.group(1) if digits else 'too many'} digits: integers of at most "
            f"{sys.get_int_max_str_digits():,} digits are accepted"
        )
    shown = f"cannot read the value {short_text(str(text), 80)!r}: " if isinstance(text, str) else ""
    return shown + short_text(message, 300)


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
class _Repr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        # An integer of more decimal digits than Python converts (``0x`` followed by 5000 ``f``s in a
        # YAML file) has no repr: it is named by its size instead.
        if x.bit_length() > 3 * (sys.get_int_max_str_digits() or 4300):  # about 0.9 times the limit in digits
            return f"<an integer of about {int(x.bit_length() * 0.30103):,} digits>"
        return super().repr_int(x, level)


_REPR = _Repr()
_REPR.maxlevel = 3
_REPR.maxdict = _REPR.maxlist = _REPR.maxtuple = _REPR.maxset = 8
_REPR.maxstring = _REPR.maxother = 80
_REPR.maxlong = 40


def short(value: Any, limit: int = 200) -> str:
    """A ``repr`` of bounded length and effort, for values from files in error messages (a value
    built from aliases or a huge list is never formatted whole)."""
    return short_text(_REPR.repr(value), limit)


# ---------------------------------------------------------------------------------------------- keys
MAX_KEYS_SHOWN = 20
"""A message names at most this many unknown keys (then how many there are in all)."""


def unknown_keys(data: Mapping[Any, Any], accepted: Iterable[str]) -> list[Any]:
    """The keys of ``data`` that are not ``accepted``, in a stable order: names sorted, then any
    other key (a number, YAML's ``~``, a date) by its ``repr``. Keys of mixed types are never
    compared with each other, so ``{1: 2, "stasi": True}`` is named, not a ``TypeError``."""
    names = set(accepted)
    unknown = [key for key in data if not (isinstance(key, str) and key in names)]
    return sorted(
        unknown, key=lambda key: (0, key, "") if isinstance(key, str) else (1, type(key).__name__, short(key))
    )


def keys_text(keys: Sequence[Any], prefix: str = "") -> str:
    """Keys in a message, as a list: a name quoted (``'game.stasi2'``, with ``prefix``), any other
    key as its bounded ``repr`` (``game.1``, ``game.None``); at most :data:`MAX_KEYS_SHOWN` of them."""
    shown = [repr(prefix + key) if isinstance(key, str) else prefix + short(key) for key in keys[:MAX_KEYS_SHOWN]]
    more = f", ... ({len(keys):,} in all)" if len(keys) > MAX_KEYS_SHOWN else ""
    return short_text("[" + ", ".join(shown) + more + "]", 2000)


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


# ---------------------------------------------------------------------------------------------- writing
def write_atomic(path: str | Path, data: bytes | str) -> None:
    """Write ``path`` whole or not at all, and never through a link.

    The bytes go to a new temporary file beside it (created exclusively, so a planted name cannot
    redirect them), are flushed to disk, then renamed over ``path``: a reader, or a run killed
    mid-write, sees the old file or the new one, never half of one. A symbolic link at ``path`` is
    replaced by the file, never written through; a folder, FIFO or device there is refused by name
    (:class:`InputError`).
    """
    if isinstance(data, str):
        data = data.encode()
    with atomic_output(path) as temporary, temporary.open("wb") as handle:
        handle.write(data)


@contextlib.contextmanager
def atomic_output(path: str | Path, suffix: str = "") -> Iterator[Path]:
    """A new temporary file beside ``path`` for a writer that needs a file name (a video encoder,
    matplotlib, a CSV writer), renamed over ``path`` once the block ends without an error and
    removed if it raises: ``path`` is the old file or the new one, whole, never a part, and a link
    at ``path`` is replaced, never written through. ``suffix`` ends the temporary name (``.mp4``
    for an encoder that picks its format from it). Missing parent folders are made."""
    path = Path(path)
    check_writable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=PARTIAL + suffix)
    os.close(descriptor)
    temporary = Path(name)
    try:
        yield temporary
        with temporary.open("rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o666 & ~UMASK)
        check_writable(path)  # nothing but a file or a link was put there meanwhile
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


PARTIAL = ".partial"
"""What the name of a temporary file of :func:`atomic_output` ends with (before its ``suffix``):
``.NAME.XXXXXXXX.partial``. One left behind was being written when its command was killed."""


def leftovers(folder: str | Path) -> list[Path]:
    """The temporary files a killed command left in ``folder`` and below (:data:`PARTIAL`)."""
    found = []
    for root, _, names in os.walk(folder, followlinks=False):
        found += [Path(root) / n for n in names if n.startswith(".") and PARTIAL in n and Path(root, n).is_file()]
    return sorted(found)


def check_output(path: str | Path, what: str, suffixes: Sequence[str] = ()) -> Path:
    """An output path checked before any work: its name ends in one of ``suffixes`` (any, if none
    are given), it is not a folder, FIFO or device, and its folder exists or can be made (no file
    stands where a folder must be, and the nearest existing folder is writable). Nothing is
    created: a refusal changes nothing."""
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise InputError(
            f"{what} {printable(str(path))}: the file name must end in {' or '.join(suffixes)}, "
            f"not {printable(path.suffix) or 'nothing'}"
        )
    folder = path.parent
    while not folder.exists():
        if os.path.lexists(folder):  # a dangling link where a folder must be
            raise InputError(f"{what} {printable(str(path))}: {printable(str(folder))} is a link to nothing")
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"{what} {printable(str(path))}: {printable(str(folder))} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{what} {printable(str(path))}: the folder {printable(str(folder))} is not writable")
    check_writable(path)
    return path


def check_writable(path: str | Path) -> None:
    """Refuse a file to be written or replaced that exists as a folder, FIFO, socket or device (a
    symbolic link is fine: it is replaced, never followed)."""
    path = Path(path)
    try:
        mode = path.lstat().st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (or no folder to hold it: said on writing)
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise InputError(
            f"{printable(str(path))} is {kind_of(mode)}, not a regular file: refusing to write over it "
            "(remove it yourself, or give another name)"
        )


def remove_file(path: str | Path) -> None:
    """Remove a regular file (a missing one is fine); a link, FIFO, device or folder is refused by name."""
    path = Path(path)
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise InputError(
            f"{printable(str(path))} is {kind_of(mode)}, not a regular file: refusing to remove it (remove it yourself)"
        )
    path.unlink(missing_ok=True)


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words, for messages."""
    for test, name in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISREG, "a regular file"),
    ):
        if test(mode):
            return name
    return "an unknown kind of file"


def _umask() -> int:
    """The process's umask, read once at import (``os.umask`` can only be read by setting it, which
    a thread creating a file at that moment would see)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


# ---------------------------------------------------------------------------------------------- one writer
LOCK = "run.lock"
"""The lock file of a folder a command writes (a run folder, a pipeline's folder), while it writes."""
LOCK_BYTES = 1 << 16


class FolderLock:
    """One writer per folder: an exclusive lock on ``FOLDER/run.lock``, taken before a command reads
    anything of the folder that it will write, held until it ends.

    The lock is the operating system's (``flock``; ``msvcrt.locking`` on Windows) on the open file,
    so it is released however the process ends, a kill included: a lock file left by a killed
    command is taken over at once (:attr:`stale` names who left it). The file holds its holder (the
    process, the host, the command, since when), which a refused command names. A lock is released
    by removing its file while still holding it, then closing it; a command that finds the file
    replaced or removed after locking it locks again, so two commands never both hold a folder.

        with FolderLock(run_dir, "--resume"):
            ...  # the only writer of run_dir
    """

    def __init__(self, folder: str | Path, flag: str = "the folder") -> None:
        self.folder, self.flag = Path(folder), flag
        self.path = self.folder / LOCK
        self.handle: int | None = None
        self.stale: str | None = None

    def acquire(self) -> FolderLock:
        """Take the lock (the folder must exist); :class:`InputError` naming the holder if another
        process holds it."""
        for _ in range(100):  # the file may be removed by a holder releasing it between open and lock
            check_writable(self.path)
            if os.path.islink(self.path):
                raise InputError(f"{printable(str(self.path))} is a symbolic link: a lock file is the folder's own")
            flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            handle = os.open(self.path, flags, 0o666)
            if not _lock(handle):
                holder = _holder(handle)
                os.close(handle)
                raise InputError(
                    f"{self.flag} {printable(str(self.folder))} is in use by another command ({holder}): one command "
                    "writes a folder at a time. Wait for it to end, or stop it (a lock left by a killed command is "
                    "taken over by the next one)"
                )
            try:
                same = os.path.samestat(os.fstat(handle), os.lstat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(handle)  # the file we locked was released and removed: lock the one there now
        else:  # pragma: no cover - a folder whose lock is taken and released a hundred times meanwhile
            raise InputError(f"{self.flag} {printable(str(self.folder))}: its lock could not be taken")
        left = _holder(handle, default="")
        self.stale = left or None
        record = {
            "pid": os.getpid(),
            "host": _host(),
            "command": " ".join(sys.argv)[:2000],
            "since": _now(),
        }
        os.ftruncate(handle, 0)
        os.lseek(handle, 0, os.SEEK_SET)
        os.write(handle, (json.dumps(record) + "\n").encode())
        self.handle = handle
        return self

    def release(self) -> None:
        """Remove the lock file while holding it, then let go (a no-op once released)."""
        if self.handle is None:
            return
        handle, self.handle = self.handle, None
        try:
            if os.path.samestat(os.fstat(handle), os.lstat(self.path)):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            os.close(handle)

    @property
    def held(self) -> bool:
        return self.handle is not None

    def __enter__(self) -> FolderLock:
        return self.acquire() if self.handle is None else self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock(handle: int) -> bool:
    """An exclusive, non-blocking lock on an open file; whether it was taken."""
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(handle, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(handle: int, default: str = "a process that left no record") -> str:
    """Who holds (or held) a lock, from its file: the process, host, command and time."""
    try:
        os.lseek(handle, 0, os.SEEK_SET)
        data = os.read(handle, LOCK_BYTES)
        record = json.loads(data) if data.strip() else None
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict):
        return default
    pid, host, command, since = (record.get(k) for k in ("pid", "host", "command", "since"))
    return short_text(f"process {pid} on {host} since {since}: {command}", 600)


def _host() -> str:
    import socket

    return socket.gethostname()


def _now() -> str:
    import datetime

    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
