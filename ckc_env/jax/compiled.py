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
"""

from __future__ import annotations

import functools
import inspect
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import jax

KEEP = 4
"""Programs kept per entry point (the configurations a run or a notebook is using)."""

_ENTRIES: list[Entry] = []


class Entry:
    """A function compiled per static configuration, as ``jax.jit(fun, static_argnames=static)``,
    keeping the ``keep`` programs used last."""

    def __init__(self, fun: Callable[..., Any], static: Sequence[str], keep: int = KEEP) -> None:
        self.fun, self.static, self.keep = fun, tuple(static), keep
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
        self.programs[key] = program
        return program(dynamic)

    def clear_cache(self) -> None:
        """Free every program of this entry point."""
        while self.programs:
            self.programs.popitem()[1].clear_cache()


def entry(static: Sequence[str] = (), keep: int = KEEP) -> Callable[[Callable[..., Any]], Entry]:
    """A decorator: the function as an :class:`Entry` (``static``: the names of its static arguments)."""

    def wrap(fun: Callable[..., Any]) -> Entry:
        made = Entry(fun, static, keep)
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
