"""JAX's persistent compile cache as the commands use it (ckc_env.jax.compiled.prepare): its folder,
refused where others may write, and a second process reading what the first compiled, the program
as traced (ckc_env.jax.exported) as well as XLA's code."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")

from ckc_env.jax import compiled, exported

ROOT = Path(__file__).resolve().parents[1]

# A program of the package's kind (a compiled.entry), compiled and called in a fresh process with the
# cache in the folder given; JAX's 1 s floor for what is cached is lowered so that a small program is.
PROGRAM = """
import sys
import jax, jax.numpy as jnp
from ckc_env.jax import compiled, exported

@compiled.entry(static=("depth",), what="a chain of sines", first="a second")
def chain(x, depth):
    for i in range(depth):
        x = jnp.sin(x) * (i + 1.0) + jnp.cos(x * x)
    return x

folder = compiled.prepare()
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
print("folder", folder)
print("value", float(chain(jnp.ones(4), depth=40).sum()))
print("times", compiled.times)
print("read", exported.read, "skipped", exported.skipped)
"""


def run_program(cache: str) -> str:
    env = {**os.environ, compiled.CACHE_VARIABLE: cache, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_a_second_process_reads_the_program_the_first_compiled(tmp_path):
    folder = tmp_path / "cache"
    first = run_program(str(folder))
    assert f"folder {folder}" in first
    assert "compiling a chain of sines (the first time a second on a 2-core CPU, cache:" in first
    assert "a chain of sines: compiled in" in first and "'cache': 'miss'" in first
    assert (folder.stat().st_mode & 0o777) == 0o700 and any(folder.iterdir())
    assert "read [] skipped {}" in first and len(list((folder / exported.FOLDER).glob("*.jaxexport"))) == 1
    second = run_program(str(folder))
    assert "a chain of sines: read from the cache in" in second and "'cache': 'hit'" in second
    assert "read ['__main__.chain'] skipped {}" in second  # neither traced nor lowered again
    value = [line for line in first.splitlines() if line.startswith("value")]
    assert value == [line for line in second.splitlines() if line.startswith("value")]


def test_off_compiles_without_a_cache(tmp_path):
    out = run_program("off")
    assert "folder None" in out and "no compile cache" in out and "'cache': 'off'" in out


def test_the_folder_comes_from_the_variable_then_jax_then_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(compiled.CACHE_VARIABLE, str(tmp_path / "mine"))
    assert compiled.cache_folder() == tmp_path / "mine"
    monkeypatch.setenv(compiled.CACHE_VARIABLE, "OFF")
    assert compiled.cache_folder() is None
    monkeypatch.delenv(compiled.CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    import jax

    if not jax.config.jax_compilation_cache_dir:
        assert compiled.cache_folder() == tmp_path / "xdg" / "ckc-env" / "jax"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="file owners and modes are POSIX's")
def test_a_folder_others_may_write_to_is_refused_by_name(tmp_path, capsys, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv(compiled.CACHE_VARIABLE, str(shared))
    assert compiled._unsafe(shared) == f"others may write to {shared} (chmod go-w it)"
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "cannot be made" in compiled._unsafe(a_file) or "not a folder" in compiled._unsafe(a_file)
    assert compiled._unsafe(tmp_path / "new" / "cache") == ""
    assert (tmp_path / "new" / "cache").stat().st_mode & 0o777 == 0o700
