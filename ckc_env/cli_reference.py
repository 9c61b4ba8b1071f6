"""The command-line reference of the documentation site (``docs/cli.md``), written from the
commands' own argument parsers: every command's ``--help`` (and each ``ckc-plot`` kind's), as the
terminal prints it 100 columns wide. ``python -m ckc_env.cli_reference > docs/cli.md``;
``tests/test_site.py`` checks that the page is current."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
from collections.abc import Callable
from importlib.metadata import entry_points

WIDTH = "100"
HEADER = """# Command-line reference

Every command's `--help`, written from its argument parser (`python -m ckc_env.cli_reference >
docs/cli.md`; a test checks that this page is current). Bad input ends a command with exit status 2
and a message naming the problem and the accepted values, before any work.
"""


def commands() -> dict[str, Callable[..., object]]:
    """The project's console scripts (``ckc-*``), by name, loaded from the installed metadata."""
    found = {e.name: e for e in entry_points(group="console_scripts") if e.name.startswith("ckc-")}
    return {name: found[name].load() for name in sorted(found)}


def help_text(main: Callable[..., object], argv: list[str]) -> str:
    """What ``main(argv)`` prints before argparse ends it (``--help`` exits 0)."""
    out = io.StringIO()
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before
    return out.getvalue().rstrip() + "\n"


def _entry(target: Callable[..., object]) -> Callable[..., object]:
    """The function that takes ``argv``: an entry point that takes none (``command()``) calls its
    module's ``main``."""
    if inspect.signature(target).parameters:
        return target
    return sys.modules[target.__module__].main


def reference() -> str:
    parts = [HEADER]
    for name, target in commands().items():
        main = _entry(target)
        text = help_text(main, ["--help"])
        parts.append(f"\n## {name}\n\n```text\n{text}```\n")
        kinds = re.search(r"\{([\w,-]+)\} \.\.\.", text.split("\n\n")[0])  # subcommands, not choices
        for kind in kinds.group(1).split(",") if kinds else ():
            parts.append(f"\n### {name} {kind}\n\n```text\n{help_text(main, [kind, '--help'])}```\n")
    return "".join(parts)


if __name__ == "__main__":
    print(reference(), end="")
