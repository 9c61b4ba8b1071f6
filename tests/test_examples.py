"""The scripts in examples/ without their extra: the extra's name and the command that installs
it, exit status 2, no traceback (tests/test_libraries.py runs them with their extras)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# Hides a module as if it were not installed: None in sys.modules makes `import name` raise
# ModuleNotFoundError and importlib.util.find_spec(name) return None; then runs the script as
# `python examples/<script>` would.
RUN_WITHOUT = """
import runpy, sys
sys.modules[sys.argv[1]] = None
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

CASES = [
    ("openspiel_ismcts.py", "openspiel", "pyspiel"),
    ("rllib_ppo.py", "rllib", "ray"),
    ("tianshou_random.py", "tianshou", "tianshou"),
    ("torchrl_rollout.py", "torchrl", "torchrl"),
]


def test_every_example_is_checked_here():
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(script for script, _, _ in CASES)


@pytest.mark.parametrize(("script", "extra", "module"), CASES, ids=[c[0] for c in CASES])
def test_an_example_without_its_extra_names_it_and_exits_2(script, extra, module):
    done = subprocess.run(
        [sys.executable, "-c", RUN_WITHOUT, module, str(EXAMPLES / script)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert f"{script}: this needs the {extra} extra ({module}" in done.stderr
    assert f'pip install -e ".[{extra}]"' in done.stderr
    assert done.stdout == ""
