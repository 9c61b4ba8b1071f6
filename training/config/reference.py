"""The config reference (docs/config.md), written from the schemas: every key of ``ckc-train``'s
and ``ckc-rllib-train``'s configs with its default, its accepted values and what it does.

    python -m ckc_env.training.config.reference > docs/config.md

A test holds docs/config.md to what this prints, so the page cannot drift from the code.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from .fields import Section, accepted_of
from .learner import PPO, Policy
from .rllib import RLlibConfig
from .schema import TrainConfig

HEAD = """# Training configs: every key

The schema of `ckc-train`'s configs (`configs/train/*.yaml`) and of `ckc-rllib-train`'s
(`configs/rllib/*.yaml`), declared once in `training/config/` (pydantic models): the YAML is
validated against it, the defaults come from it and this page is written from it
(`python -m ckc_env.training.config.reference > docs/config.md`; a test holds the page to it).
Every key is optional. An unknown key, a value of the wrong type or out of range is refused with
its name and the accepted values, before anything is built (exit status 2 on the command line).
"""


def reference() -> str:
    """The whole page."""
    from . import rllib

    return (
        "\n".join(
            [
                HEAD,
                "## ckc-train (`configs/train/*.yaml`)\n",
                table(TrainConfig, expand={"ppo": PPO, "policy": Policy}),
                "\n## ckc-rllib-train (`configs/rllib/*.yaml`)\n",
                table(RLlibConfig, expand={"env": rllib.Env, "ppo": rllib.PPO, "model": rllib.Model}, none="RLlib's"),
            ]
        )
        + "\n"
    )


def table(
    model: type[BaseModel], expand: dict[str, type[BaseModel]] | None = None, none: str = "null", prefix: str = ""
) -> str:
    """A Markdown table of a model's keys, each section's keys below its own (``eval.games``)."""
    rows = ["| key | default | accepted | what |", "|---|---|---|---|"] if not prefix else []
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        what = _markdown(info.description or "")
        section = _section(info.annotation)
        if section is not None:
            default = "null" if info.default is None else "its keys' defaults"
            rows.append(f"| `{key}` | {default} | a section | {what or _first_line(section)} |")
            rows.append(table(section, None, none, f"{key}."))
            continue
        accepted = accepted_of(info)
        default = info.get_default(call_default_factory=True)
        shown = (none if prefix else "null") if default is None else f"`{json.dumps(default)}`"
        text = (accepted.text if accepted else "").replace("|", "\\|")
        rows.append(f"| `{key}` | {shown} | {text} | {what} |")
        if name in (expand or {}):
            rows.append(table(expand[name], None, none, f"{key}."))
    return "\n".join(rows)


def _first_line(model: type[BaseModel]) -> str:
    return _markdown((model.__doc__ or "").split("\n\n")[0])


def _markdown(text: str) -> str:
    """A docstring as one Markdown cell: reStructuredText's double backquotes and roles made plain."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", " ".join(text.split()))
    return text.replace("``", "`").replace("|", "\\|")


def _section(annotation: Any) -> type[BaseModel] | None:
    import typing

    for kind in (annotation, *typing.get_args(annotation)):
        if isinstance(kind, type) and issubclass(kind, Section):
            return kind
    return None


if __name__ == "__main__":
    print(reference(), end="")
