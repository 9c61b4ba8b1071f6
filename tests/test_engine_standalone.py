"""The rules engine stands alone: ``import ckc_env.engine`` and a whole game need NumPy only."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

GAME = """
import sys

class NoOptionalPackages:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"gymnasium", "pettingzoo", "yaml", "torch", "tqdm", "stable_baselines3", "sb3_contrib"}:
            raise ImportError(f"{name} is not installed")

sys.meta_path.insert(0, NoOptionalPackages())
import ckc_env.engine as engine
from ckc_env.config import GameConfig

state = engine.init(GameConfig(num_players=4, stasi=True, cafe_adler=True), seed=3)
while not state.game_over:
    engine.step(state, engine.legal_actions(state)[-1])
print(state.final["winners"], sorted(name for name in sys.modules if name.split(".")[0] == "gymnasium"))
"""


def test_engine_plays_a_game_without_gymnasium_pettingzoo_or_yaml():
    done = subprocess.run([sys.executable, "-c", GAME], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("[]")  # no gymnasium module was loaded
