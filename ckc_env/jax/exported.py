"""The package's programs kept traced on disk (``jax.export``), so that a second run skips the
tracing and lowering that JAX's persistent cache does not keep.

Why: the persistent compile cache keeps XLA's compiled code, but every run still traces the Python
that builds a program and lowers it to StableHLO before it can look the code up: a cached run of
``scratch_jax.yaml`` spent 17 of its 26 compile seconds tracing and 3 lowering on the 2-core CPU.
Here a program is exported once (its StableHLO, serialized by ``jax.export``) into ``programs/`` of
the cache folder, under a key of everything that shapes it: the package's source, the versions of
Python, JAX, jaxlib, NumPy and optax, the backend, JAX's options that change what is traced, a
fingerprint of its static arguments, and its arguments' tree, shapes and dtypes. A later run with
the same key reads the StableHLO back (``jax.export.deserialize``: a flatbuffer, no pickle) and
compiles it, which the persistent cache answers.

An object may say what of it shapes a program with a ``program_key()`` method (a loaded agent
file: its network and card, not its path or training record); anything else is fingerprinted by
its content, whatever its ``__eq__`` says.

Safe by construction: a program is not read unless its file's name is the key computed here, a
file is written whole under a temporary name and renamed, the folder is the compile cache's
(refused where others may write: ``compiled.prepare``), and anything that cannot be fingerprinted
(an object of unknown kind among the static arguments) or exported (a host callback) is traced as
before. The tree types named in a file are looked up among the modules already imported, never
imported.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path, PurePath
from typing import Any

import jax
import numpy as np

from ..files import write_atomic

FOLDER = "programs"
"""The cache folder's subfolder that holds the exported programs."""

_OPTIONS = (
    "jax_enable_x64",
    "jax_default_prng_impl",
    "jax_threefry_partitionable",
    "jax_default_matmul_precision",
    "jax_numpy_rank_promotion",
    "jax_numpy_dtype_promotion",
    "jax_enable_checks",
    "jax_debug_nans",
    "jax_debug_infs",
)
"""JAX's options that change what a traced program computes (part of every key)."""


class UnkeyedError(TypeError):
    """A static argument this module cannot fingerprint: the program is traced as before."""


@functools.cache
def _environment() -> bytes:
    """The key's part shared by every program: the package's source and the libraries' versions."""
    digest = hashlib.sha256()
    import ckc_env
    import ckc_env.training as training  # the trainers (training/, installed as ckc_env.training)

    for package in (ckc_env, training):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    versions = [sys.version, jax.__version__, np.__version__]
    for name in ("jaxlib", "optax"):
        module = sys.modules.get(name)
        versions.append(f"{name} {getattr(module, '__version__', None)}")
    devices = jax.devices()
    versions += [jax.default_backend(), devices[0].device_kind, str(len(devices))]
    versions += [f"{name}={getattr(jax.config, name, None)!r}" for name in _OPTIONS]
    digest.update("\n".join(versions).encode())
    return digest.digest()


def fingerprint(value: Any) -> bytes:
    """A digest of ``value`` (static arguments: rules, forms, environments, configs) that two runs
    give alike when it builds the same program; :class:`UnkeyedError` for a kind it does not know."""
    digest = hashlib.sha256()
    _feed(digest, value, {})
    return digest.digest()


def _feed(digest: Any, value: Any, seen: dict[int, tuple[int, Any]]) -> None:
    """Feed ``value`` to ``digest``; ``seen`` numbers the containers met so far in their order
    (a second meeting feeds its number) and holds them, so that no id is reused by a later object."""

    def put(*parts: Any) -> None:
        for part in parts:
            digest.update(part if isinstance(part, bytes) else repr(part).encode())
            digest.update(b"\0")

    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        put(type(value).__name__, value)
        return
    if isinstance(value, enum.Enum):
        put("enum", type(value).__qualname__, value.name)
        return
    if isinstance(value, types.ModuleType):
        put("module", value.__name__)
        return
    if isinstance(value, (type, types.BuiltinFunctionType)):
        put("named", getattr(value, "__module__", None), value.__qualname__)
        return
    if isinstance(value, (np.ndarray, np.generic, jax.Array)):
        if isinstance(value, jax.core.Tracer):
            raise UnkeyedError("a traced value")
        array = np.asarray(value)
        put("array", str(array.dtype), array.shape, np.ascontiguousarray(array).tobytes())
        return
    if isinstance(value, PurePath):  # a file's name, and what it holds (an agent file read when traced)
        path = Path(value)
        put("path", str(value), hashlib.sha256(path.read_bytes()).digest() if path.is_file() else b"")
        return
    if isinstance(value, np.dtype):
        put("dtype", str(value))
        return
    if id(value) in seen:
        put("again", seen[id(value)][0])
        return
    seen[id(value)] = (len(seen), value)
    if isinstance(value, (list, tuple)):  # a named tuple's class by its module and name too
        put(type(value).__module__, type(value).__qualname__, len(value))
        for item in value:
            _feed(digest, item, seen)
        return
    if isinstance(value, (set, frozenset)):
        put(type(value).__qualname__, sorted(repr(item) for item in value))
        return
    if isinstance(value, Mapping):
        put("mapping", type(value).__qualname__, len(value))
        for name in sorted(value, key=repr):
            _feed(digest, name, seen)
            _feed(digest, value[name], seen)
        return
    if isinstance(value, functools.partial):
        put("partial")
        for part in (value.func, value.args, value.keywords):
            _feed(digest, part, seen)
        return
    if isinstance(value, types.MethodType):
        put("method")
        _feed(digest, value.__func__, seen)
        _feed(digest, value.__self__, seen)
        return
    wrapped = getattr(value, "__wrapped__", None)
    if wrapped is not None and callable(value):  # a jitted function, a compiled.Entry: what it wraps
        put("wrapped", type(value).__qualname__)
        _feed(digest, wrapped, seen)
        return
    if isinstance(value, types.FunctionType):
        code = value.__code__
        put("function", value.__module__, value.__qualname__, code.co_firstlineno, code.co_code)
        for part in (code.co_consts, value.__defaults__, value.__kwdefaults__):
            _feed(digest, part, seen)
        for cell in value.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:  # a cell not yet filled
                put("empty cell")
                continue
            _feed(digest, contents, seen)
        return
    if isinstance(value, types.CodeType):
        put("code", value.co_qualname, value.co_code)
        _feed(digest, value.co_consts, seen)
        return
    own = getattr(type(value), "program_key", None)
    if callable(own):  # an object that says what of it shapes a program (a loaded agent file)
        put("keyed", type(value).__module__, type(value).__qualname__)
        _feed(digest, value.program_key(), seen)
        return
    if hasattr(value, "model_dump_json"):  # a pydantic model (a training config)
        put("model", type(value).__qualname__, value.model_dump_json())
        return
    if dataclasses.is_dataclass(value):
        put("dataclass", type(value).__module__, type(value).__qualname__)
        for field in dataclasses.fields(value):
            _feed(digest, field.name, seen)
            _feed(digest, getattr(value, field.name), seen)
        return
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        put("object", type(value).__module__, type(value).__qualname__)
        _feed(digest, state, seen)
        return
    raise UnkeyedError(f"a {type(value).__qualname__}")


_REGISTERED: set[type] = set()

read: list[str] = []
"""The programs this process read back as a run before it traced them."""

skipped: dict[str, str] = {}
"""The programs this process traced as before, and why (a static argument of a kind
:func:`fingerprint` does not know, a program ``jax.export`` refused)."""


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _register(cls: type) -> None:
    """Make ``jax.export`` able to write and read trees with ``cls`` (a named tuple, or a node whose
    static data is a tuple of numbers and strings, as a registered dataclass's meta fields), under
    its module's and qualified name."""
    if cls in _REGISTERED:
        return
    from jax import export

    if hasattr(cls, "_fields") and issubclass(cls, tuple):
        export.register_namedtuple_serialization(cls, serialized_name=_name(cls))
    else:
        export.register_pytree_node_serialization(
            cls, serialized_name=_name(cls), serialize_auxdata=_aux_bytes, deserialize_auxdata=_aux_value
        )
    _REGISTERED.add(cls)


def _aux_bytes(aux: Any) -> bytes:
    if aux is not None and not (
        isinstance(aux, tuple) and all(isinstance(x, (str, int, float, bool, type(None))) for x in aux)
    ):
        raise TypeError(f"static tree data {aux!r} is not a tuple of numbers and strings")
    return json.dumps(aux).encode()


def _aux_value(data: bytes) -> Any:
    value = json.loads(bytes(data))
    return None if value is None else tuple(value)


def _register_tree(tree: Any) -> list[str]:
    names = []

    def walk(node: Any) -> None:
        data = node.node_data()
        if data is not None and data[0] not in (tuple, list, dict, type(None)):
            _register(data[0])
            names.append(_name(data[0]))
        for child in node.children():
            walk(child)

    walk(tree)
    return sorted(set(names))


def _imported(name: str) -> type | None:
    """The class ``module:qualname`` from a module already imported (never imported here), else None."""
    module_name, _, qualname = name.partition(":")
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return found if isinstance(found, type) else None


def _key(name: str, statics: Any, arguments: Any) -> str:
    leaves, tree = jax.tree_util.tree_flatten(arguments)
    shapes = [(tuple(np.shape(leaf)), str(getattr(leaf, "dtype", type(leaf).__name__))) for leaf in leaves]
    digest = hashlib.sha256(_environment())
    digest.update(name.encode() + b"\0" + fingerprint(statics) + repr((str(tree), shapes)).encode())
    return digest.hexdigest()[:40]


def program(folder: Path | None, name: str, jitted: Callable[..., Any], statics: Any, *arguments: Any) -> Any:
    """``jitted`` (a ``jax.jit`` function of ``arguments``, its static configuration ``statics``) as
    a jitted function that runs the program read from ``folder`` when a run before this one wrote
    it, else exported here and written there; ``jitted`` itself where there is no folder or the
    program cannot be keyed or exported. Called where the program is about to be compiled."""
    if folder is None:
        return jitted
    try:
        key = _key(name, statics, arguments)
    except (UnkeyedError, TypeError, ValueError, OSError) as why:  # a value without bytes (a key), a file unread
        skipped[name] = f"not keyed: {why}"
        return jitted
    from jax import export

    path = folder / FOLDER / f"{key}.jaxexport"
    kept = _read(path, arguments)
    if kept is not None:
        read.append(name)
        return _jitted(kept)
    try:
        made = export.export(jitted)(*arguments)
        trees = sorted(set(_register_tree(made.in_tree)) | set(_register_tree(made.out_tree)))
        data = bytes(made.serialize())
    except (ValueError, TypeError, NotImplementedError, ImportError, UnkeyedError) as why:
        skipped[name] = f"not exported: {type(why).__name__}: {why}"
        return jitted
    about = json.dumps({"trees": trees, "sha256": hashlib.sha256(data).hexdigest()})
    try:  # each file whole, renamed into place (a link there replaced); the description first
        path.parent.mkdir(mode=0o700, exist_ok=True)
        write_atomic(path.with_suffix(".json"), about)
        write_atomic(path, data)
    except (OSError, ValueError) as why:  # a folder in the way, a full disk: this run goes on without
        skipped[name] = f"not kept: {why}"
    return _jitted(made)


def _jitted(made: Any) -> Any:
    """An export's call, jitted with its arguments placed on the default device: left unplaced, the
    arguments of a first call (fresh arrays, uncommitted) and those of the next (the program's own
    outputs, committed) lower apart, and the training iteration compiled twice (12-19 s more)."""
    return jax.jit(made.call, in_shardings=jax.sharding.SingleDeviceSharding(jax.devices()[0]))


def _read(path: Path, arguments: tuple[Any, ...]) -> Any:
    """The program kept in ``path`` (a ``jax.export.Exported``), or None where there is none, its
    bytes are not those its description names (damaged, or half written by a run killed), a tree
    type it names is not a class of a module already imported, or it takes other arguments."""
    from jax import export

    try:
        about = json.loads(path.with_suffix(".json").read_text())
        data = path.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(about, dict) or about.get("sha256") != hashlib.sha256(data).hexdigest():
        return None
    trees = about.get("trees")
    classes = [_imported(n) if isinstance(n, str) else None for n in trees] if isinstance(trees, list) else [None]
    if any(cls is None for cls in classes):
        return None
    try:
        for cls in classes:
            _register(cls)
        kept = export.deserialize(bytearray(data))
    except Exception:  # a file that does not read is exported again, whatever the reason
        return None
    return kept if kept.in_tree == jax.tree_util.tree_structure((arguments, {})) else None


__all__ = ["FOLDER", "UnkeyedError", "fingerprint", "program", "read", "skipped"]
