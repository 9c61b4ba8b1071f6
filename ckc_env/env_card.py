"""Print the env card (the docstring of ``ckc_env.envs.aec``) as Markdown.

    python -m ckc_env.env_card > docs/env_card.md

The observation and state index tables in it are generated from the declared layouts, so the
card cannot drift from the encoder; ``tests/test_docs.py`` checks that docs/env_card.md is current.
"""

from __future__ import annotations

from .envs import aec as checkpoint_charlie


def env_card() -> str:
    return (checkpoint_charlie.__doc__ or "").strip() + "\n"


if __name__ == "__main__":
    print(env_card(), end="")
