import os
import sys
from pathlib import Path

import pytest

# Test helpers (tests/playthrough.py, tests/reference_rules.py) import as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
# Videos written by gymnasium's and stable-baselines3's recorders start ffmpeg through imageio-ffmpeg,
# which runs a Python function between fork and exec unless told not to (its issue 58): never in a
# process whose JAX threads run (ckc_env.picture.save_video does the same for its own videos).
os.environ.setdefault("IMAGEIO_FFMPEG_NO_PREVENT_SIGINT", "1")
# The commands turn JAX's persistent compile cache on (ckc_env.jax.compiled.prepare); the tests write
# nothing to the user's cache folder unless asked to (CI names one in its scratch folder, shared by
# its test processes).
os.environ.setdefault("CKC_COMPILE_CACHE", "off")

FORKS_AFTER_JAX: list[int] = []


def _record_fork() -> None:
    if "jax" in sys.modules:
        FORKS_AFTER_JAX.append(os.getpid())


os.register_at_fork(before=_record_fork)


@pytest.fixture(autouse=True)
def _no_fork_after_jax():
    """No process is forked once JAX is loaded (its threads would be copied mid-work: JAX warns that
    this will likely deadlock): workers start from a forkserver or are spawned, and a test that
    forks fails here."""
    yield
    if FORKS_AFTER_JAX:
        FORKS_AFTER_JAX.clear()
        pytest.fail("a process was forked after JAX was loaded (use a forkserver or spawn context)")


@pytest.fixture
def rllib_checkpoint(tmp_path: Path) -> str:
    """An RLlib checkpoint's files (empty: never read), the one kind of player with no batched form."""
    from ckc_env.players import loading

    module = tmp_path / "rllib" / "checkpoint" / loading.RLLIB_MODULE
    module.mkdir(parents=True)
    for name in loading.RLLIB_FILES:
        (module / name).write_bytes(b"")
    return str(tmp_path / "rllib")


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    """Where a hostile file's payload would leave its mark if it ran (the tests assert it never does)."""
    return tmp_path / "payload_ran"
