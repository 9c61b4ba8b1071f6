"""Which file a player spec loads: decided once, on the file that will actually be read.

A checkpoint path is resolved once, links followed (``Path.resolve``), and the loader decides by
an allowlist on the resolved file, never on the name alone:

| the spec names | the resolved file must be | loaded as | trust |
|---|---|---|---|
| ``NAME.json`` | a regular ``.json`` file | an agent card, with the ``.safetensors`` weights it names beside it (``ckc_env.players.agent_file``): JSON and raw tensors, nothing runs | no |
| ``NAME.safetensors`` | a regular ``.safetensors`` file, named by the card ``NAME.json`` beside it | that card | no |
| ``NAME.zip`` | a regular ``.zip`` file (a zip archive) | a stable-baselines3 model (``MaskablePPO.load`` unpickles it) | yes |
| a run folder | its ``best_model.json``, else ``final_model.json``, else ``best_model.zip``, else ``final_model.zip``, each under the rules above | as that file | as that file |
| an RLlib checkpoint folder | a folder with RLlib's ``module_state.pkl`` and ``class_and_ctor_args.pkl`` | an RLlib module (unpickled) | yes |

Anything else is refused by name (:class:`~ckc_env.files.InputError`), and so is a name whose
resolved target is of another kind than the name says: ``agent.safetensors -> weights.bin``,
``agent.json -> model.zip`` or ``best_model.json`` linking to a folder. A file's first bytes must
be of its kind too (a zip archive renamed ``agent.json`` is named as such). The weights a card
names are resolved by the same rule. Validation and loading both start from the
:class:`AgentSource` this module returns, so they read the same files, and nothing reaches an
unpickler but a ``zip`` or ``rllib`` source with trust, checked again where the unpickler is called.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..files import InputError, printable

RUN_FOLDER_MODELS = ("best_model", "final_model")
"""A run folder plays as its best model, else its final one."""
RLLIB_MODULE = Path("learner_group", "learner", "rl_module", "shared")
"""Where an RLlib algorithm checkpoint of ``ckc-rllib-train`` keeps the shared learning module."""
RLLIB_FILES = ("module_state.pkl", "class_and_ctor_args.pkl")

TRUST_ENV = "CKC_TRUST_CHECKPOINTS"
"""Set to 1 to trust every pickle-based checkpoint a process loads (as ``trust_checkpoint=True``)."""

SUFFIX_KINDS = {".json": "card", ".safetensors": "weights", ".zip": "zip"}
"""The kind a file name says, by its suffix."""
MAGIC = {"zip": (b"PK\x03\x04", b"PK\x05\x06"), "pickle": (b"\x80",)}
ACCEPTED = (
    "an agent card (.json) with its .safetensors beside it, a training run folder, "
    "or with trust a stable-baselines3 .zip or an RLlib checkpoint"
)


@dataclass(frozen=True)
class AgentSource:
    """What a checkpoint spec loads: ``kind`` ``"card"``, ``"zip"`` or ``"rllib"``, and ``path``,
    the resolved card, zip or RLlib module folder; ``weights``, for a spec that names a
    ``.safetensors`` file, that file resolved (its card must name it)."""

    named: str
    kind: str
    path: Path
    weights: Path | None = None

    @property
    def needs_trust(self) -> bool:
        """Whether loading it unpickles (a stable-baselines3 zip or an RLlib checkpoint)."""
        return self.kind != "card"


# ---------------------------------------------------------------------------------------------- trust
def trusted(trust_checkpoint: bool = False) -> bool:
    """Whether files that need unpickling may be loaded: ``trust_checkpoint`` or ``CKC_TRUST_CHECKPOINTS=1``."""
    value = os.environ.get(TRUST_ENV, "").strip().lower()
    if value not in ("", "0", "false", "no", "1", "true", "yes"):
        raise ValueError(f"{TRUST_ENV}={os.environ[TRUST_ENV]!r}: accepted values are 1 (trust) or 0 (do not)")
    return bool(trust_checkpoint) or value in ("1", "true", "yes")


def untrusted_error(source: AgentSource | str | Path) -> InputError:
    """The refusal for a pickle-based file: what, why, and the ways on."""
    if isinstance(source, AgentSource) and source.kind == "rllib":
        return InputError(
            f"refusing to load the RLlib checkpoint {_shown(source.named)} without trust: RLlib stores a module's "
            "class and state as pickle files that run code when loaded, so it is loaded only when you say you "
            "trust it. A ckc-rllib-train run folder also holds the module as a safe agent file (best_model.json, "
            "final_model.json), which plays without ray and without trust: name the run folder instead. Or trust "
            f"it: trust_checkpoint=True in Python, --trust-checkpoint on the command line, or {TRUST_ENV}=1."
        )
    path = Path(source.named if isinstance(source, AgentSource) else source)
    return InputError(
        f"refusing to load {_shown(path)} without trust: a stable-baselines3 .zip stores cloudpickle blobs that run "
        "code when the file is loaded (stable-baselines3 issue 2281), so it is loaded only when you say you trust "
        f"it. Export it once to the safe format: `ckc-export {_shown(path)} --trust-checkpoint` writes "
        f"{_shown(path.stem)}.json and {_shown(path.stem)}.safetensors beside it, which load without running "
        f"anything. Or trust it: trust_checkpoint=True in Python, --trust-checkpoint on the command line, or "
        f"{TRUST_ENV}=1."
    )


def require_trust(source: AgentSource, trust_checkpoint: bool) -> None:
    """Raise the refusal unless ``source`` loads without unpickling or is trusted."""
    if source.needs_trust and not trusted(trust_checkpoint):
        raise untrusted_error(source)


# ---------------------------------------------------------------------------------------------- the rule
def locate(path: str | Path) -> AgentSource:
    """The file a checkpoint path loads, by the rule of the module docstring (links resolved once)."""
    named = str(path)
    given = Path(path)
    real = _resolve(given, "checkpoint")
    if real.is_dir():
        if given.suffix in SUFFIX_KINDS:
            raise InputError(f"{_shown(given)} is a folder, not the {given.suffix} file its name says")
        return _in_folder(named, real)
    said = SUFFIX_KINDS.get(given.suffix)
    if said is None:
        raise InputError(f"{_shown(given)} is not an agent file: give {ACCEPTED}")
    _same_kind(given, real, said)
    if said == "weights":
        return AgentSource(named, "card", card_beside(given, real), weights=real)
    return AgentSource(named, said, real)


def card_beside(named: Path, weights: Path) -> Path:
    """The card a ``.safetensors`` name stands for: ``NAME.json`` beside the name (resolved)."""
    card = named.with_suffix(".json")
    if not os.path.lexists(card):
        raise InputError(
            f"no agent card beside {_shown(named)}: a safe agent is NAME.json beside NAME.safetensors "
            f"(looked for {_shown(card)})"
        )
    real = _resolve(card, "agent card")
    _same_kind(card, real, "card")
    return real


def weights_beside(card: Path, file: str) -> Path:
    """The weights file a card names, beside the (resolved) card, itself resolved and checked."""
    named = card.parent / file
    if not os.path.lexists(named):
        raise InputError(f"agent card {_shown(card)} names weights {_shown(file)}, which is not beside it")
    real = _resolve(named, "weights")
    _same_kind(named, real, "weights")
    return real


def rllib_module_dir(path: str | Path) -> Path | None:
    """The shared module's folder of an RLlib checkpoint (an algorithm checkpoint, its module
    folder, or a run folder's ``checkpoint``), found from the files alone; None if there is none."""
    path = Path(path)
    for candidate in (path / "checkpoint" / RLLIB_MODULE, path / RLLIB_MODULE, path):
        if all((candidate / name).is_file() for name in RLLIB_FILES):
            return candidate
    return None


def _in_folder(named: str, folder: Path) -> AgentSource:
    for suffix in (".json", ".zip"):
        for model in RUN_FOLDER_MODELS:
            entry = folder / f"{model}{suffix}"
            if os.path.lexists(entry):  # a dangling or odd link is refused, not skipped
                real = _resolve(entry, "checkpoint")
                _same_kind(entry, real, SUFFIX_KINDS[suffix])
                return AgentSource(named, SUFFIX_KINDS[suffix], real)
    module = rllib_module_dir(folder)
    if module is not None:
        return AgentSource(named, "rllib", module.resolve())
    raise InputError(
        f"folder {_shown(named)} holds no agent: a run folder holds best_model.json or final_model.json (or, "
        f"with trust, their .zip), an RLlib checkpoint holds {' and '.join(RLLIB_FILES)}"
    )


def _resolve(path: Path, what: str) -> Path:
    try:
        return path.resolve(strict=True)
    except FileNotFoundError:
        if path.is_symlink():
            target = _shown(os.readlink(path))
            raise InputError(f"{what} {_shown(path)} is a link to {target}, which does not exist") from None
        raise InputError(f"no {what} at {_shown(path)}: give {ACCEPTED}") from None
    except (OSError, RuntimeError) as exc:  # link loops, permissions
        raise InputError(f"cannot resolve {what} {_shown(path)}: {exc}") from None


def _same_kind(named: Path, real: Path, said: str) -> None:
    """The resolved file is a regular file of the kind its name says, by suffix and first bytes."""
    shown = _shown(named) if named == real else f"{_shown(named)} (a link to {_shown(real)})"
    if not real.is_file():
        raise InputError(f"{shown} is not a regular file")
    found = SUFFIX_KINDS.get(real.suffix)
    if found != said:
        target = found or f"{_shown(real.suffix) or 'suffixless'} file"
        raise InputError(
            f"{shown} is a {said} by its name but a {target} by its target: "
            "a file is loaded as what it is, so a link or a renamed file must keep its kind"
        )
    try:
        with real.open("rb") as handle:
            head = handle.read(8)
    except OSError as exc:
        raise InputError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if said == "zip":
        if not head.startswith(MAGIC["zip"]):
            raise InputError(f"{shown} is not a zip archive (a stable-baselines3 model is one)")
        return
    foreign = ("zip", "pickle") if said == "card" else ("zip",)  # safetensors open with a length: any byte
    for kind in foreign:
        if head.startswith(MAGIC[kind]):
            raise InputError(f"{shown} holds a {kind} file, not the {said} its name says")


def _shown(path: str | Path) -> str:
    return printable(str(path))
