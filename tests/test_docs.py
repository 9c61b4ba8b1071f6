"""The docs say what the code does: the env card is current and complete, the README's commands exist."""

import re
from pathlib import Path

import pytest

import ckc_env
from ckc_env import GameConfig
from ckc_env.env_card import env_card
from ckc_env.observation import OBSERVATION, STATE
from ckc_env.players.agent_file import read_card

ROOT = Path(__file__).resolve().parents[1]


def test_docs_env_card_is_current():
    assert (ROOT / "docs" / "env_card.md").read_text() == env_card(), (
        "run: python -m ckc_env.env_card > docs/env_card.md"
    )


def test_env_card_is_the_module_docstring_with_generated_tables():
    card = ckc_env.envs.aec.__doc__
    assert OBSERVATION.markdown_table() in card
    assert STATE.markdown_table() in card
    assert f"({OBSERVATION.size},)" in card and f"({STATE.size},)" in card
    for section in ("Arguments", "Action space", "Observation space", "State", "Rewards", "Starting state"):
        assert f"## {section}" in card
    for section in ("Episode end", "Infos", "Illegal actions", "Rule decisions", "Version history"):
        assert f"## {section}" in card


def test_env_card_lists_every_argument():
    arguments = ckc_env.envs.aec.__doc__.split("## Arguments")[1].split("## Action space")[0]
    for name in [*GameConfig.fields(), "reward", "render_mode", "summary_infos"]:
        assert f"| `{name}` |" in arguments, name


def test_docs_rules_is_the_canonical_rules():
    """docs/RULES.md is a copy of the canonical rules (checked where the canonical file is at hand)."""
    canonical = ROOT.parent / "shared" / "RULES.md"
    if not canonical.is_file():
        pytest.skip("the canonical RULES.md (../shared/RULES.md) is not beside this checkout")
    assert (ROOT / "docs" / "RULES.md").read_text() == canonical.read_text(), "copy ../shared/RULES.md to docs/"


def test_every_option_of_the_rules_is_a_config_field():
    """Each [option] of RULES.md maps to a GameConfig field with the stated default."""
    rules = (ROOT / "docs" / "RULES.md").read_text()
    # The introduction mentions [option] once; six clauses carry it. A new one must be added here
    # and to GameConfig.
    assert rules.count("[option]") == 1 + 6
    defaults = GameConfig()
    assert defaults.chip_pool["gold"] == (3, 3, 4, 4, 5)  # 1: the pool is configurable
    assert defaults.first_player == "random"  # 2: random or fixed
    assert defaults.clue_face == "random"  # 3.1: chosen by the player as an action
    assert defaults.window_order == "random"  # 4: random, clockwise_from_drawer, clockwise_after_drawer
    assert defaults.reopen_windows is False  # 4: reopen_windows, default off
    assert defaults.non_accuser_white == "chief_in_deck"  # 5: chief_uncaught
    card = ckc_env.envs.aec.__doc__.split("## Rule decisions")[1]
    for field in ("chip_pool", "first_player", "clue_face", "window_order", "reopen_windows", "non_accuser_white"):
        assert f"`{field}`" in card, field


def test_every_decision_of_the_rules_is_documented():
    rules = (ROOT / "docs" / "RULES.md").read_text()
    card = ckc_env.envs.aec.__doc__.split("## Rule decisions")[1]
    # The introduction; then sections 1 (pool), 3.1 (clue face), 4 (forced order, windows),
    # 5 (bag tile), 6 (colour used up), 7 (order of a scoring phase), 8 (Adler values).
    assert rules.count("[decision]") == 1 + 8
    for phrase in (
        "default chip pool",
        "clue face is tossed",
        "accusation windows",
        "forced accusations go clockwise from the player after",
        "a tile still in the bag is tossed",
        "judged before the Stasi chip goes back",
        "order within a scoring phase",
        "Cafe Adler chip is worth",
    ):
        assert phrase in card, phrase


def test_readme_opens_with_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^python3 -m venv .*$", readme, flags=re.M)
    assert len(commands) >= 2
    assert "ckc-evaluate" in commands[0]
    assert "pytest" in commands[1]
    assert readme.index(commands[0]) < 400


def test_the_checkpoints_the_readme_names_are_shipped():
    readme = "".join((ROOT / doc).read_text() for doc in ("README.md", "docs/agents.md", "docs/training.md"))
    named = set(re.findall(r"checkpoints/([\w.-]+)", readme)) - {"README.md"}
    assert named
    for name in named:
        folder = ROOT / "checkpoints" / name
        assert (folder / "best_model.json").is_file() or (folder / "final_model.json").is_file(), name
        read_card(folder)  # the safe agent file the folder plays as: card and weights agree
        for record in ("config.yaml", "command.txt", "evaluations.json"):
            assert (folder / record).is_file(), f"{name}/{record}"


def test_the_config_reference_is_written_from_the_schema():
    """docs/config.md is what ``python -m ckc_env.training.config.reference`` prints: every key of the
    training configs, its default and accepted values, from the one schema."""
    pytest.importorskip("pydantic")
    from ckc_env.training.config.reference import reference

    assert (ROOT / "docs" / "config.md").read_text() == reference()
