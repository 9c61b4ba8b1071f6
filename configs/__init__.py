"""The configs shipped with ckc-env: rule presets and training configs, installed as the package
``ckc_env.configs`` (this folder), so commands can name them from anywhere.

    from ckc_env.configs import preset
    GameConfig.from_yaml(preset("rules", "stasi"), num_players=4)
    ckc-evaluate --lineup bayes_v1 random random --rules stasi

| kind | presets |
|---|---|
| ``rules`` | ``base``, ``stasi``, ``adler``, ``both`` (every [option] of RULES.md at its default, the variants on or off) |
| ``train`` | ``quick`` (minutes), ``all_counts`` (the all-counts agent), ``full`` (the first shipped agent, 5 players), ``attempts/...`` (what was tried) |
| ``rllib`` | ``ckc-rllib-train`` configs: ``vs_random``, ``vs_bayes``, ``self_play``, ``smoke`` (one iteration, for CI) |
| ``pipelines`` | ``ckc-train-pipeline`` files: ``strongest`` (the strongest shipped agent from scratch, five chained runs) |

A name that is not a preset is taken as a path to a YAML file of one's own.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

KINDS = ("rules", "train", "rllib", "pipelines")


def names(kind: str) -> list[str]:
    """The presets of a kind (``"rules"``, ``"train"``, ``"rllib"`` or ``"pipelines"``), as names without ``.yaml``."""
    root = _folder(kind)
    return sorted(str(p.relative_to(root).with_suffix("")) for p in root.rglob("*.yaml"))


def preset(kind: str, name: str | Path) -> Path:
    """The file of a preset by name (``"stasi"``, ``"attempts/scratch"``), or ``name`` itself if it is a
    YAML file; a ValueError names the presets otherwise."""
    candidate = _folder(kind) / f"{name}.yaml"
    if isinstance(name, str) and not name.endswith(".yaml") and candidate.is_file():
        return candidate
    path = Path(name)
    if path.is_file():
        return path
    raise ValueError(
        f"no {kind} preset or file {str(name)!r}: presets are {names(kind)}, or give the path of a YAML file"
    )


def _folder(kind: str) -> Path:
    if kind not in KINDS:
        raise ValueError(f"unknown config kind {kind!r}: kinds are {list(KINDS)}")
    return Path(str(files(__name__))) / kind
