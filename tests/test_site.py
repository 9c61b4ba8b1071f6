"""The documentation site says what the code does: every page is in the site's navigation, the
command-line reference is the parsers' own help, the getting-started commands are the README's,
every Python snippet of the README and the site runs as it is printed, and every command line its
shell snippets print is taken by its command's parser."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").glob("*.md"))
SNIPPET = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
FAST = {"README.md:48", "docs/openspiel.md:7", "docs/play.md:56"}
"""The snippets of the default run (a few seconds each); the others (training, compiling) are slow."""


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's Python tags (the slug function) read as plain values."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def nav_pages(entries) -> list[str]:
    found = []
    for entry in entries:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            found += nav_pages(value) if isinstance(value, list) else [value]
    return found


def test_every_page_is_in_the_sites_navigation():
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)  # a SafeLoader
    listed = nav_pages(config["nav"])
    assert sorted(listed) == PAGES, "add the page to mkdocs.yml's nav (or remove it from the nav)"
    assert config["strict"] is True


def test_the_command_line_reference_is_the_parsers_help():
    from ckc_env.cli_reference import reference

    assert (ROOT / "docs" / "cli.md").read_text() == reference(), "run: python -m ckc_env.cli_reference > docs/cli.md"


def test_getting_started_opens_with_the_readmes_two_commands():
    def commands(path: str) -> list[str]:
        return re.findall(r"^python3 -m venv .*$", (ROOT / path).read_text(), flags=re.M)

    assert commands("docs/getting-started.md")[:2] == commands("README.md")[:2]


def snippets() -> list:
    found, seen = [], set()
    for doc in ["README.md", *(f"docs/{page}" for page in PAGES)]:
        text = (ROOT / doc).read_text()
        for match in SNIPPET.finditer(text):
            if match.group(1) in seen:  # printed on two pages (the README's and the site's): run once
                continue
            seen.add(match.group(1))
            where = f"{doc}:{text[: match.start()].count(chr(10)) + 1}"
            marks = () if where in FAST else pytest.mark.slow
            found.append(pytest.param(match.group(1), id=where, marks=marks))
    return found


@pytest.mark.parametrize("code", snippets())
def test_a_snippet_runs_as_printed(code, tmp_path):
    """In a folder of its own (the files it writes stay there) that sees the shipped agents and
    result files; a snippet for a library this environment lacks is skipped (CI runs it where the
    library's extra is installed)."""
    imported = re.findall(r"^(?:from|import) (\w+)", code, flags=re.M)
    missing = [name for name in imported if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"needs {missing} (its extra)")
    for name in ("checkpoints", "docs"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]


class _ParsedError(Exception):
    """Raised once a command's arguments are parsed: the command does no work in these tests."""


def command_lines() -> list:
    """Every ``ckc-*`` command of the README's and the site's shell snippets (continuations joined,
    ``&&`` chains split, ``VAR=value`` prefixes and comments dropped), with where it is printed."""
    import shlex

    found = []
    for doc in ["README.md", *(f"docs/{page}" for page in PAGES)]:
        text = (ROOT / doc).read_text()
        for match in re.finditer(r"^```bash\n(.*?)^```", text, re.S | re.M):
            start = text[: match.start()].count("\n") + 2
            for k, line in enumerate(match.group(1).replace("\\\n", " \n").splitlines()):
                for part in re.split(r"\s&&\s", line):
                    words = shlex.split(part, comments=True)
                    while words and re.match(r"^[A-Z_]+=", words[0]):
                        words = words[1:]
                    if words and words[0].startswith("ckc-") and not any("$" in w for w in words):
                        found.append(pytest.param(words, id=f"{doc}:{start + k}:{words[0]}"))
    return found


@pytest.mark.parametrize("words", command_lines())
def test_a_documented_command_line_is_accepted_by_its_parser(words, monkeypatch):
    """The command exists and its parser takes the line as printed (every option, choice and
    range); nothing runs: the test stops the command once its arguments are parsed."""
    import argparse

    from ckc_env.cli_reference import _entry, commands

    known = commands()
    assert words[0] in known, f"{words[0]} is not a command: the commands are {sorted(known)}"
    parse = argparse.ArgumentParser.parse_args

    def parsed(self, args=None, namespace=None):
        parse(self, args, namespace)
        raise _ParsedError

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parsed)
    with pytest.raises(_ParsedError):
        _entry(known[words[0]])(words[1:])
