"""The package's compiled programs: a few kept per entry point, the rest freed.

Why: XLA's CPU compiler (jaxlib 0.10) loads every kernel of a compiled program as an object of its
own, in three memory mappings (code, read-only data, data), and unmaps them only when the program
is freed; ``jax.jit`` keeps every program a module-level function compiled for the life of the
process. This package's programs take 50 to 6,600 mappings each (a game's init and step about
2,000, a tournament's loop about 2,000, the learner's view about 6,000), and past Linux's
``vm.max_map_count`` (65,530 by default) LLVM cannot map the next kernel and aborts the process
(``LLVM ERROR: Unable to allocate section memory!``), gigabytes of memory still free: about twenty
programs in one process did, in a test suite as in a notebook that tries a few configurations.

So every entry point that compiles (``game.init``, ``game.step``, ``observation.observe_batch``,
``tournament.play_games``, ``vector_env.reset``, ...) is an :func:`entry`: a program per static
configuration and argument shapes, as ``jax.jit`` makes them, at most :data:`KEEP` of them kept
(the least recently used freed first), and :func:`free` frees them all (a training run does when
it ends). Called inside another program (its arguments tracers), an entry is traced into that
program, as a jitted function is.

    from ckc_env.jax import compiled
    compiled.held()    # the programs this package holds now
    compiled.free()    # free them (the next call compiles again)

Compiling is slow the first time (a game's step about 15 s on a 2-core CPU, a training iteration
about a minute), so the commands (``ckc-train``, ``ckc-evaluate --engine jax``, the benchmarks)
call :func:`prepare`: JAX's persistent compilation cache is turned on in :func:`cache_folder`
(``$CKC_COMPILE_CACHE``; ``off`` turns it off), and each program compiled is announced with what
it is and how long it took (:data:`times` keeps the figures, for the run folder and the benchmarks'
JSON). A second run of the same configuration reads its programs from the cache: XLA's code, and
the programs themselves as traced (:mod:`ckc_env.jax.exported`), so that it neither traces nor
lowers them again. The cache holds programs that JAX runs, so it is trusted: a folder another user
can write to is refused.
"""

from __future__ import annotations

import functools
import inspect
import os
import stat
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import jax

from . import exported

KEEP = 4
"""Programs kept per entry point (the configurations a run or a notebook is using)."""

_ENTRIES: list[Entry] = []


class Entry:
    """A function compiled per static configuration, as ``jax.jit(fun, static_argnames=static)``,
    keeping the ``keep`` programs used last."""

    def __init__(
        self, fun: Callable[..., Any], static: Sequence[str], keep: int = KEEP, what: str = "", first: str = ""
    ) -> None:
        self.fun, self.static, self.keep = fun, tuple(static), keep
        self.what, self.first = what or f"{fun.__module__}.{fun.__qualname__}", first
        self.signature = inspect.signature(fun)
        self.programs: OrderedDict[Any, Any] = OrderedDict()
        functools.update_wrapper(self, fun)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = bound.arguments
        dynamic = {name: value for name, value in arguments.items() if name not in self.static}
        leaves, tree = jax.tree_util.tree_flatten(dynamic)
        if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):  # inside another program
            return self.fun(**arguments)
        statics = tuple(arguments[name] for name in self.static)
        key = (statics, tree, tuple(_signature(leaf) for leaf in leaves))
        program = self.programs.pop(key, None)
        if program is None:
            while len(self.programs) >= self.keep:
                self.programs.popitem(last=False)[1].clear_cache()
            fixed = dict(zip(self.static, statics, strict=True))
            program = jax.jit(lambda dynamic: self.fun(**fixed, **dynamic))
            if _announce:  # compiled ahead, timed (the call below finds the program compiled)
                with compiling(self.what, self.first):
                    program = exported.program(
                        _cache, f"{self.__module__}.{self.__qualname__}", program, statics, dynamic
                    )
                    program.lower(dynamic).compile()
        self.programs[key] = program
        return program(dynamic)

    def clear_cache(self) -> None:
        """Free every program of this entry point."""
        while self.programs:
            self.programs.popitem()[1].clear_cache()


def entry(
    static: Sequence[str] = (), keep: int = KEEP, what: str = "", first: str = ""
) -> Callable[[Callable[..., Any]], Entry]:
    """A decorator: the function as an :class:`Entry` (``static``: the names of its static
    arguments; ``what``: the program's name in the line announcing its compilation, ``first``: how
    long that takes the first time on a 2-core CPU)."""

    def wrap(fun: Callable[..., Any]) -> Entry:
        made = Entry(fun, static, keep, what, first)
        _ENTRIES.append(made)
        return made

    return wrap


def held() -> int:
    """How many compiled programs the package's entry points hold."""
    return sum(len(e.programs) for e in _ENTRIES)


def free() -> None:
    """Free every program the package's entry points hold (not the caller's own)."""
    for made in _ENTRIES:
        made.clear_cache()


def _signature(leaf: Any) -> Any:
    """What of a dynamic argument makes another program: its shape and dtype (a Python scalar: its type)."""
    shape = getattr(leaf, "shape", None)
    return (type(leaf).__name__,) if shape is None else (tuple(shape), str(getattr(leaf, "dtype", "")))


# ------------------------------------------------------------------------------------------ the cache
CACHE_VARIABLE = "CKC_COMPILE_CACHE"
"""The environment variable naming the cache's folder (``off``: no cache)."""

times: dict[str, dict[str, Any]] = {}
"""What this process compiled while announcing: ``{what: {"seconds": s, "cache": "hit"|"miss"|"off"}}``
(a program compiled again, for other shapes, adds its seconds)."""

_announce = False
_cache: Path | None = None
_events = {"hits": 0, "misses": 0}


def cache_folder() -> Path | None:
    """The persistent cache's folder: ``$CKC_COMPILE_CACHE`` (``off``: none), else JAX's own
    setting (``JAX_COMPILATION_CACHE_DIR``) if the user made one, else ``ckc-env/jax`` in the user's
    cache folder (``$XDG_CACHE_HOME``, by default ``~/.cache``)."""
    named = os.environ.get(CACHE_VARIABLE, "").strip()
    if named.lower() == "off":
        return None
    if named:
        return Path(named).expanduser()
    own = jax.config.jax_compilation_cache_dir
    if own:
        return Path(own).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ckc-env" / "jax"


def prepare(announce: bool = True) -> Path | None:
    """Turn JAX's persistent compilation cache on in :func:`cache_folder` (made if missing, only
    its owner may write to it) and, with ``announce``, a line for each program compiled; the folder
    in use (``None``: no cache, the reason printed to stderr). Called by the commands: a library
    user's own programs are left to their own JAX settings unless they call it."""
    global _announce, _cache
    _announce = _announce or announce
    folder = cache_folder()
    if folder is None or folder == _cache:
        return _cache
    refused = _unsafe(folder)
    if refused:
        print(
            f"compile cache off: {refused} (set {CACHE_VARIABLE} to a folder of your own, or to off)", file=sys.stderr
        )
        return _cache
    from jax.experimental.compilation_cache import compilation_cache

    if _cache is None:
        jax.monitoring.register_event_listener(_count)
    compilation_cache.reset_cache()  # a process that compiled before: the cache is looked up again
    jax.config.update("jax_compilation_cache_dir", str(folder))
    _cache = folder
    return folder


def cache() -> Path | None:
    """The persistent cache's folder in use (None before :func:`prepare`, or with no cache)."""
    return _cache


@contextmanager
def compiling(what: str, first: str = "") -> Iterator[None]:
    """Announce a compilation (what, how long it takes the first time, where the cache is) and,
    when it ends, its time and whether the cache had it; :data:`times` records it."""
    hits, misses = _events["hits"], _events["misses"]
    where = f"cache: {_cache}" if _cache is not None else "no compile cache"
    if _announce:
        took = f"the first time {first} on a 2-core CPU, " if first else ""
        print(f"compiling {what} ({took}{where})...", flush=True)
    started = time.perf_counter()
    yield
    seconds = time.perf_counter() - started
    cache = "off" if _cache is None else "hit" if _events["hits"] > hits and _events["misses"] == misses else "miss"
    record = times.setdefault(what, {"seconds": 0.0, "cache": cache})
    record["seconds"] = round(record["seconds"] + seconds, 2)
    record["cache"] = cache if record["cache"] == cache else "partly"
    if _announce:
        read = {"hit": "read from the cache", "miss": "compiled", "off": "compiled"}[cache]
        print(f"{what}: {read} in {seconds:.1f} s", flush=True)


def _unsafe(folder: Path) -> str:
    """Why ``folder`` may not hold the cache ('' when it may): JAX runs what it reads there."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError as error:
        return f"{folder} cannot be made or read ({error.strerror})"
    if not stat.S_ISDIR(info.st_mode):
        return f"{folder} is not a folder"
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return f"{folder} belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"others may write to {folder} (chmod go-w it)"
    return ""


def _count(event: str, **_: Any) -> None:
    if event == "/jax/compilation_cache/cache_hits":
        _events["hits"] += 1
    elif event == "/jax/compilation_cache/cache_misses":
        _events["misses"] += 1
