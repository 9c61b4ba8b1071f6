import sys
from pathlib import Path

# Test helpers (tests/playthrough.py, tests/reference_rules.py) import as plain modules.
sys.path.insert(0, str(Path(__file__).parent))
