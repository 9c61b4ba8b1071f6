"""GameConfig: defaults, validation with clear messages, YAML presets."""

import pickle
from pathlib import Path

import pytest

from ckc_env import GameConfig

ROOT = Path(__file__).resolve().parents[1]
PRESETS = sorted((ROOT / "configs" / "rules").glob("*.yaml"))


def test_presets_exist_and_load():
    assert {p.stem for p in PRESETS} == {"base", "stasi", "adler", "both"}
    loaded = {p.stem: GameConfig.from_yaml(p, num_players=4) for p in PRESETS}
    assert loaded["base"] == GameConfig(num_players=4)
    assert loaded["stasi"] == GameConfig(num_players=4, stasi=True)
    assert loaded["adler"] == GameConfig(num_players=4, cafe_adler=True)
    assert loaded["both"] == GameConfig(num_players=4, stasi=True, cafe_adler=True)


def test_config_is_frozen_hashable_and_pickles():
    config = GameConfig(stasi=True)
    with pytest.raises(AttributeError):
        config.stasi = False  # type: ignore[misc]
    assert hash(config) == hash(GameConfig(stasi=True))
    assert pickle.loads(pickle.dumps(config)) == config
    assert GameConfig.from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ({"num_players": 6}, ["num_players", "3 to 5"]),
        ({"num_players": "5"}, ["num_players", "3 to 5"]),
        ({"players": 5}, ["players", "num_players"]),
        ({"stasi": "yes"}, ["stasi", "true or false"]),
        ({"cafe_adler": 1}, ["cafe_adler", "true or false"]),
        ({"window_order": "clockwise"}, ["window_order", "clockwise_after_drawer"]),
        ({"clue_face": "A"}, ["clue_face", "'choose'"]),
        ({"non_accuser_white": "always"}, ["non_accuser_white", "chief_uncaught"]),
        ({"first_player": 5}, ["first_player", "0 to 4"]),
        ({"first_player": "first"}, ["first_player", "'random'"]),
        ({"max_rounds": 6}, ["max_rounds", "1 to 5"]),
        ({"target_points": 0}, ["target_points", "1 to 50"]),
        ({"chip_pool": {"gold": [3]}}, ["chip_pool", "'gold', 'white', 'black'"]),
        ({"chip_pool": {"gold": [6], "white": [1], "black": [0]}}, ["chip_pool.gold", "3 to 5"]),
        ({"chip_pool": {"gold": [3], "white": [3], "black": [0]}}, ["chip_pool.white", "1 to 2"]),
        ({"chip_pool": {"gold": [3], "white": [1], "black": [0]}, "stasi": True}, ["chip_pool.black", "-1"]),
        ({"chip_pool": {"gold": [4], "white": [1, 1], "black": [-1]}, "cafe_adler": True}, ["chip_pool", "gold 3"]),
        ({"chip_pool": {"gold": [3] * 21, "white": [1], "black": [0]}}, ["chip_pool.gold", "1 to 20"]),
    ],
)
def test_bad_values_name_the_field_and_the_accepted_values(data, names):
    with pytest.raises(ValueError) as info:
        GameConfig.from_dict(data)
    for name in names:
        assert name in str(info.value)


def test_yaml_errors_name_the_file(tmp_path):
    malformed = tmp_path / "bad.yaml"
    malformed.write_text("stasi: [true\n")
    with pytest.raises(ValueError, match=r"malformed YAML in .*bad\.yaml"):
        GameConfig.from_yaml(malformed)
    not_a_mapping = tmp_path / "list.yaml"
    not_a_mapping.write_text("- stasi\n")
    with pytest.raises(ValueError, match="must hold a mapping"):
        GameConfig.from_yaml(not_a_mapping)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("stasi: true\nvariant: adler\n")
    with pytest.raises(ValueError, match=r"unknown game option\(s\) \['variant'\]"):
        GameConfig.from_yaml(unknown)
    with pytest.raises(ValueError, match="cannot read config file"):
        GameConfig.from_yaml(tmp_path / "missing.yaml")
