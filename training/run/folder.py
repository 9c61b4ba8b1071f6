"""A run folder: what makes a folder one, and how a command changes one without losing anything.

A folder is a run folder when it holds the marker :data:`MARKER` (``run.json``), written when the
run is created: its format and version, the trainer that made it (``ckc-train`` or
``ckc-rllib-train``) and the sha256 of its config (:func:`config_digest`; the keys of
:data:`EXTENDABLE` aside, which ``--total-timesteps``, ``--iterations`` and RLlib's scaling flags change). ``--force`` and
``--resume`` act on run folders only, so a folder of one's own that happens to hold a
``config.yaml`` is never deleted nor written into.

What each command may do to the disk, and when:

| command | checked first | then |
|---|---|---|
| a new run | the config, every player, ``init_from``'s agent file; the folder is free (or the next free name) | the folder is created with its marker |
| ``--force`` | as a new run, and the folder is a run folder with no link, FIFO or device inside, and no ``RUN.previous`` | the old run is renamed ``RUN.previous``; deleted once the new run has evaluated its first model, renamed back if the new run fails before |
| ``--resume`` | the folder's lock, the marker, the config against its digest, no link inside, a model to continue (:func:`resume_point`) | the temporary files a killed save left are swept, and the run goes on |

One writer per run folder: a command holds the folder's lock (:class:`ckc_env.files.FolderLock`,
``run.lock``) from before it reads anything it will write until it ends, and a second command on
the same folder (a ``--resume``, a ``--force``, a new run given the same ``--run-dir``) is refused
by name, naming the holder; a lock left by a killed command is taken over. Every file a run writes
goes through :func:`ckc_env.files.write_atomic` (a temporary file and a rename: a run killed
mid-save leaves the old file whole) and every file it removes through
:func:`ckc_env.files.remove_file`; both refuse a FIFO or device in the way, by name, and never
follow a link.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import shutil
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ckc_env.files import (
    JSON_BYTES,
    LOCK,
    FolderLock,
    InputError,
    kind_of,
    leftovers,
    parse_json,
    printable,
    read_bytes,
    read_json,
    write_atomic,
)

if TYPE_CHECKING:
    from ..config import TrainConfig

MARKER = "run.json"
FORMAT = "ckc-env run"
FORMAT_VERSION = 1
EXTENDABLE = ("total_timesteps", "iterations", "scaling")
"""Config keys a run may change on ``--resume`` by its flags (the length of the run, and for RLlib
how many processes sample it): left out of the digest."""
ADDED_TO_OPTIONAL = {"vector": {"loop": "learner"}}
"""Keys a later version added to an optional section (one whose default is null, so that the digest
keeps its every key), left out of the digest at their default: older runs keep their digests."""
PREVIOUS = ".previous"
"""The suffix of a run folder that ``--force`` moved aside until the new run has started."""


def config_digest(config: dict[str, Any], defaults: dict[str, Any]) -> str:
    """The sha256 of a resolved config (``to_dict()``): the values that differ from ``defaults`` (the
    config class's own), so a key a later version adds with its default keeps older runs' digests,
    and the extendable keys aside."""
    config = dict(config)
    for section, added in ADDED_TO_OPTIONAL.items():
        if isinstance(config.get(section), dict):
            config[section] = {k: v for k, v in config[section].items() if k not in added or v != added[k]}
    kept = {key: value for key, value in _sparse(config, defaults).items() if key not in EXTENDABLE}
    return hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()


def _sparse(value: Any, default: Any) -> Any:
    """The entries of a mapping that differ from the default's, section by section."""
    if not isinstance(value, dict) or not isinstance(default, dict):
        return value
    return {
        str(key): _sparse(item, default.get(key))
        for key, item in value.items()
        if key not in default or item != default[key]
    }


def marker(config: dict[str, Any], defaults: dict[str, Any], trainer: str) -> dict[str, Any]:
    """The content of a run's ``run.json``."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "trainer": trainer,
        "config_sha256": config_digest(config, defaults),
    }


# ---------------------------------------------------------------------------------------------- checks
def check_no_links(root: Path) -> None:
    """Refuse a run folder that holds anything but regular files and folders (a symbolic link,
    FIFO, socket or device): a run writes and deletes inside it and must not reach elsewhere."""
    for folder, names, files in os.walk(root, followlinks=False):
        for name in [*names, *files]:
            path = Path(folder) / name
            mode = path.lstat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise InputError(
                    f"{path} is {kind_of(mode)}, not a regular file or folder: a run folder holds only its own files "
                    "(a run writes and deletes there and never follows a link out of it); remove it, or copy in the "
                    "file it stands for"
                )


def check_root(path: Path, flag: str) -> None:
    """The run folder itself: not a link (the run would write wherever it points), a folder if it exists."""
    if path.is_symlink():
        raise InputError(
            f"{flag} {path} is a symbolic link: give the folder itself ({os.path.realpath(path)}), "
            "a run never writes through a link"
        )
    if path.exists() and not path.is_dir():
        raise InputError(f"{flag} {path} is {kind_of(path.lstat().st_mode)}, not a folder")


def read_marker(root: Path, flag: str, trainer: str) -> dict[str, Any]:
    """A run folder's marker, checked: refuses a folder without one, or one another trainer made."""
    path = root / MARKER
    if path.is_symlink() or (os.path.lexists(path) and not path.is_file()):
        raise InputError(f"run marker {path} is {kind_of(path.lstat().st_mode)}, not a regular file")
    if not os.path.lexists(path):
        raise InputError(
            f"{flag} {root}: not a run folder (it has no {MARKER}, which {trainer} writes when it creates a run); "
            f"{flag} acts on run folders only. To continue from an agent file there, start a new run with "
            f"init_from: {root}/final_model.json; to replace the folder, remove it yourself"
        )
    data = read_json(path, "run marker")
    fine = (
        isinstance(data, dict)
        and data.get("format") == FORMAT
        and data.get("format_version") == FORMAT_VERSION
        and isinstance(data.get("config_sha256"), str)
        and isinstance(data.get("trainer"), str)
    )
    if not fine:
        raise InputError(
            f"run marker {path} is not one {trainer} writes: a mapping with format {FORMAT!r}, format_version "
            f"{FORMAT_VERSION}, trainer and config_sha256"
        )
    if data["trainer"] != trainer:
        raise InputError(
            f"{flag} {root}: a run of {data['trainer']}, not of {trainer}: continue it with {data['trainer']}"
        )
    return data


def hold(root: Path, flag: str = "--resume") -> FolderLock:
    """An existing run folder's lock, taken (the folder itself checked first: not a link, a folder):
    the caller is its only writer until it releases the lock."""
    check_root(root, flag)
    if not root.is_dir():
        raise InputError(f"{flag} {printable(str(root))}: no such folder")
    return FolderLock(root, flag).acquire()


def open_run(root: Path, trainer: str) -> dict[str, Any]:
    """The checks of ``--resume`` before its config is read (its lock held: :func:`hold`): the
    folder, its marker, no link inside."""
    check_root(root, "--resume")
    if not root.is_dir():
        raise InputError(f"--resume {root}: no such folder")
    data = read_marker(root, "--resume", trainer)
    check_no_links(root)
    return data


def sweep(root: Path) -> list[Path]:
    """Remove the temporary files a command killed mid-save left in a run folder (its lock held,
    so no other command is writing them), and say so; the files removed."""
    found = leftovers(root)
    for path in found:
        path.unlink()
    if found:
        names = ", ".join(printable(str(p.relative_to(root))) for p in found[:10])
        more = f" and {len(found) - 10} more" if len(found) > 10 else ""
        print(f"{printable(str(root))}: removed {len(found)} unfinished file(s) a killed save left: {names}{more}")
    return found


def check_config(root: Path, data: dict[str, Any], config: dict[str, Any], defaults: dict[str, Any]) -> None:
    """The run's config.yaml is the one it was created with (the extendable keys aside)."""
    if data["config_sha256"] != config_digest(config, defaults):
        raise InputError(
            f"--resume {root}: its config.yaml is not the one the run was created with (its digest differs from "
            f"{MARKER}'s): a resumed run continues its own config. Put it back, or start a new run with this config "
            f"and init_from: {root}/final_model.json"
        )


# ---------------------------------------------------------------------------------------------- resuming
RESUMABLE = ("final_model.zip", "latest_model.zip")


DATA_BYTES = 64 << 20
"""The most a zip's ``data`` member (SB3's JSON of the model's attributes) may unpack to."""
COUNTERS = ("num_timesteps", "_n_updates", "_episode_num")
"""The counters a resumed model takes from its zip's ``data`` member."""


def zip_counters(path: Path) -> dict[str, int]:
    """The step and update counters a stable-baselines3 zip was saved with: plain JSON fields of its
    ``data`` member, read within bounds (nothing unpickled), each a count up to ``MAX_TIMESTEPS``."""
    import zipfile

    from ..config.limits import MAX_TIMESTEPS

    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("data")
            if info.file_size > DATA_BYTES:
                raise InputError(f"its data member unpacks to {info.file_size:,} bytes, more than {DATA_BYTES:,}")
            data = parse_json(archive.read("data"), f"{path}: its data member")
    except InputError as exc:
        raise InputError(f"cannot resume from {path}: {exc}") from None
    except (OSError, KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise InputError(f"cannot resume from {path}: {type(exc).__name__}: {exc}") from None
    counters = {}
    for key in COUNTERS:
        value = data.get(key) if isinstance(data, dict) else None
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIMESTEPS:
            raise InputError(
                f"cannot resume from {path}: its data member has {key}={_short(value)}, not a count from 0 to "
                f"{MAX_TIMESTEPS:,}"
            )
        counters[key] = value
    return counters


def card_timesteps(path: Path) -> int | None:
    """The step count an exported agent card records (None where it records none)."""
    data = read_json(path, "agent card", limit=1 << 20)
    training = data.get("training") if isinstance(data, dict) else None
    steps = training.get("timesteps") if isinstance(training, dict) else None
    return steps if isinstance(steps, int) and not isinstance(steps, bool) else None


def resume_point(root: Path, history: list[dict[str, Any]]) -> tuple[Path, int]:
    """The zip ``--resume`` continues (the one saved at the most steps) and its step count.

    Refused: a folder with no zip to continue (its exported agent is not a model to train on: start
    a new run from it), and a zip older than the run's exported final model or its last evaluation
    (resuming would write over them with a model that does not continue them)."""
    found = [root / name for name in RESUMABLE if os.path.lexists(root / name)]
    if not found:
        raise InputError(
            f"--resume {root}: no {' or '.join(RESUMABLE)} to resume (the exported agent is for playing, not a model "
            f"to continue); to continue from the exported agent, start a new run with init_from: {root}/final_model.json"
        )
    steps = {path: zip_counters(path)["num_timesteps"] for path in found}
    path = max(found, key=lambda p: steps[p])
    at = steps[path]
    final = root / "final_model.json"
    exported = card_timesteps(final) if final.is_file() else None
    if exported is not None and exported > at:
        raise InputError(
            f"--resume {root}: {path.name} is at step {at:,}, its exported final_model.json at {exported:,}: resuming "
            "would write over that agent with a model that does not continue it. Start a new run with "
            f"init_from: {final}"
        )
    if history and history[-1]["timesteps"] > at:
        raise InputError(
            f"--resume {root}: {path.name} is at step {at:,}, its evaluations.json goes to step "
            f"{history[-1]['timesteps']:,}: the zip those evaluations continue is missing. Start a new run with "
            f"init_from: {final}"
        )
    return path, at


# ---------------------------------------------------------------------------------------------- creating
@dataclass
class NewRun:
    """A run folder to create, planned before anything touches the disk: ``begin`` takes its lock and
    creates it (moving a run it replaces aside, that run's lock held), ``started`` deletes the
    replaced run, ``abandon`` undoes ``begin``, ``release`` lets the folder go when the command ends."""

    path: Path
    replaces: bool = False
    begun: bool = False
    settled: bool = False
    existed: bool = False
    lock: FolderLock | None = None
    replaced_lock: FolderLock | None = None

    @property
    def previous(self) -> Path:
        return self.path.with_name(self.path.name + PREVIOUS)

    def begin(self, config: dict[str, Any], defaults: dict[str, Any], trainer: str) -> None:
        """Create the folder with its marker (``defaults``: the config class's, for the digest)."""
        if self.replaces:  # the run replaced: its lock first, then the checks of plan_new again under it
            self.replaced_lock = FolderLock(self.path, "--force").acquire()
            try:
                read_marker(self.path, "--force", trainer)
                check_no_links(self.path)
                os.rename(self.path, self.previous)  # its lock file goes along, still held
            except BaseException:
                self.replaced_lock.release()
                self.replaced_lock = None
                raise
        self.existed = self.path.is_dir()  # an empty folder given by --run-dir stays a folder
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            self.lock = FolderLock(self.path, "the run folder").acquire()
            if _holds_files(self.path):
                raise InputError(
                    f"run folder {printable(str(self.path))} now holds a run another command began meanwhile: "
                    "give another --run-dir"
                )
        except InputError as exc:
            if self.lock is not None:
                self.lock.release()
                self.lock = None
            if self.replaces:
                try:
                    os.rename(self.previous, self.path)
                except OSError:
                    raise InputError(
                        f"{exc}; the run this command was to replace is kept at {printable(str(self.previous))}"
                    ) from None
                self.replaced_lock.release()
                self.replaced_lock = None
            raise
        self.begun = True
        write_atomic(self.path / MARKER, json.dumps(marker(config, defaults, trainer), indent=2) + "\n")

    def started(self) -> None:
        """The new run has evaluated its first model: the run it replaces goes, and the run stays
        whatever happens next (a run stopped later is resumed, not undone)."""
        if self.replaces and self.previous.is_dir() and not self.previous.is_symlink():
            shutil.rmtree(self.previous)
        if self.replaced_lock is not None:
            self.replaced_lock.release()
            self.replaced_lock = None
        self.settled = True

    def abandon(self) -> bool:
        """Undo :meth:`begin` of a run that failed before it started: its files go, and a run it
        replaced comes back. Whether anything was undone."""
        if not self.begun or self.settled:
            return False
        shutil.rmtree(self.path, ignore_errors=True)  # the new lock's file with it, still held
        if self.lock is not None:
            self.lock.release()
            self.lock = None
        if self.replaces and self.previous.is_dir():
            os.rename(self.previous, self.path)
        elif self.existed:
            self.path.mkdir(exist_ok=True)
        if self.replaced_lock is not None:  # its file is back in the run it locks: removed as it is let go
            self.replaced_lock.release()
            self.replaced_lock = None
        self.begun = False
        return True

    def release(self) -> None:
        """The command has ended: the folder's lock (and a replaced run's, if still held) let go."""
        for lock in (self.lock, self.replaced_lock):
            if lock is not None:
                lock.release()
        self.lock = self.replaced_lock = None


def plan_new(given: str | None, default: str, force: bool, trainer: str) -> NewRun:
    """The folder of a new run, checked and nothing changed yet; a run already there is never
    overwritten in part.

    A folder named by ``--run-dir`` that holds anything is refused (continue it with ``--resume``,
    or replace it with ``--force``); the default name moves on to the next free one
    (``runs/quick_seed0_2``, ...) unless ``--force`` replaces it. ``--force`` replaces run folders only
    (:data:`MARKER`), with nothing inside that a removal could reach through, and never a folder
    whose ``.previous`` from an earlier ``--force`` is still there."""
    if given is None and not force:
        path, k = Path(default), 1
        while _taken(path):
            k += 1
            path = Path(f"{default}_{k}")
        return NewRun(path)
    path = Path(given or default)
    flag = "--run-dir" if given is not None else "the run folder"
    check_root(path, flag)
    if not _holds_files(path):
        return NewRun(path)
    if not force:
        raise InputError(
            f"run folder {path} already holds a run: continue it with --resume {path}, replace it with --force, "
            "or give another --run-dir"
        )
    read_marker(path, "--force", trainer)
    check_no_links(path)
    previous = path.with_name(path.name + PREVIOUS)
    if os.path.lexists(previous):
        raise InputError(
            f"--force {path}: {previous} is still there (a run an earlier --force moved aside, kept because the new "
            "run did not start): restore it or remove it yourself first"
        )
    return NewRun(path, replaces=True)


def _holds_files(path: Path) -> bool:
    """Whether a folder holds anything (a lock file aside: a command that held it is gone, or
    holds it still, which taking the lock tells)."""
    return path.exists() and (not path.is_dir() or any(p.name != LOCK for p in path.iterdir()))


def _taken(path: Path) -> bool:
    return os.path.lexists(path) and (path.is_symlink() or _holds_files(path))


def _short(value: Any) -> str:
    from ckc_env.files import short

    return short(value)


# ---------------------------------------------------------------------------------------------- what a run records
def record_run(config: TrainConfig, run_dir: Path) -> None:
    """The run's resolved ``config.yaml`` and this command's line in ``command.txt``."""
    write_atomic(run_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False))
    append_line(run_dir / "command.txt", shlex.join([sys.executable, *sys.argv]))


def append_line(path: Path, line: str) -> None:
    """``line`` added to a run's text file (``command.txt``), the file rewritten whole."""
    before = read_bytes(path, "run file", JSON_BYTES) if os.path.lexists(path) else b""
    write_atomic(path, before + line.encode() + b"\n")


def trained_counts(config: TrainConfig) -> list[int]:
    """The player counts a model's weights were trained at, for its card: the run's, and with
    ``init_from`` its start's too (what it learned there is in the weights it starts from), so a
    fine-tuned agent may be fine-tuned again at any count of its lineage."""
    counts = set(config.player_counts)
    if config.init_from is not None:
        from ckc_env.players import agent_file

        with contextlib.suppress(InputError, OSError):  # a resumed run whose start has moved keeps the run's
            counts |= set(agent_file.read_card(agent_file.card_path(config.init_from)).players)
    return sorted(counts)


def training_record(config: TrainConfig) -> dict[str, Any]:
    """What an agent card records of the run that made it."""
    return {"seed": config.seed, "config": config.to_dict()}
