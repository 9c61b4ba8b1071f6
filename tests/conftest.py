import sys
from pathlib import Path

import pytest

# Test helpers (tests/playthrough.py, tests/reference_rules.py) import as plain modules.
sys.path.insert(0, str(Path(__file__).parent))


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
