"""The programs kept traced in the compile cache (ckc_env.jax.exported): keyed by everything that
shapes them, read back only under their own key, traced as before where they cannot be kept."""

import hashlib
import json
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")
import jax.numpy as jnp  # noqa: E402

from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.jax import exported, game  # noqa: E402
from ckc_env.jax.state import rules_of  # noqa: E402


@dataclass(frozen=True)
class Scale:
    factor: float
    table: np.ndarray


def scaled(x, scale):
    return x * scale.factor + jnp.asarray(scale.table).sum()


def test_fingerprints_follow_what_builds_the_program():
    one = Scale(2.0, np.arange(3))
    assert exported.fingerprint(one) == exported.fingerprint(Scale(2.0, np.arange(3)))
    assert exported.fingerprint(one) != exported.fingerprint(Scale(3.0, np.arange(3)))
    assert exported.fingerprint(one) != exported.fingerprint(Scale(2.0, np.arange(3) + 1))
    rules = rules_of(GameConfig())
    assert exported.fingerprint(rules) == exported.fingerprint(rules_of(GameConfig()))
    assert exported.fingerprint(rules) != exported.fingerprint(rules_of(GameConfig(stasi=True)))
    assert exported.fingerprint(partial(scaled, scale=one)) != exported.fingerprint(
        partial(scaled, scale=Scale(3.0, np.arange(3)))
    )
    a, b = [1], [2]  # an object met again is fed as the one it is
    assert exported.fingerprint((a, b, a)) != exported.fingerprint((a, b, b))
    assert exported.fingerprint((a, a)) != exported.fingerprint((a, [1]))
    with pytest.raises(exported.UnkeyedError):
        exported.fingerprint(object.__new__(type("Opaque", (), {"__slots__": ()})))


def run(folder, factor=2.0, shape=(4,)):
    scale = Scale(factor, np.arange(3))
    jitted = jax.jit(lambda x: scaled(x, scale))
    x = jnp.ones(shape)
    program = exported.program(folder, "test.scaled", jitted, scale, x)
    return program, np.asarray(program(x))


def test_a_program_is_read_back_under_its_own_key_alone(tmp_path):
    exported.read.clear()
    _, first = run(tmp_path)
    files = sorted((tmp_path / exported.FOLDER).glob("*.jaxexport"))
    assert len(files) == 1 and exported.read == []
    _, again = run(tmp_path)
    assert exported.read == ["test.scaled"] and np.array_equal(first, again)
    _, other = run(tmp_path, factor=3.0)  # another static: another key, exported anew
    _, wider = run(tmp_path, shape=(5,))  # other shapes: likewise
    assert exported.read == ["test.scaled"] and len(list((tmp_path / exported.FOLDER).glob("*.jaxexport"))) == 3
    assert np.allclose(other, 3.0 + 3.0) and wider.shape == (5,)


def test_a_damaged_or_strange_file_is_not_trusted(tmp_path):
    exported.read.clear()
    _, first = run(tmp_path)
    (program_file,) = (tmp_path / exported.FOLDER).glob("*.jaxexport")
    program_file.write_bytes(b"not a program")
    _, again = run(tmp_path)  # unreadable: exported again, the same values
    assert exported.read == [] and np.array_equal(first, again)
    about = program_file.with_suffix(".json")
    trees = json.loads(about.read_text())
    assert trees["sha256"] == hashlib.sha256(program_file.read_bytes()).hexdigest()
    modules = set(sys.modules)
    trees["trees"] = ["no_such_module_of_ours:Thing"]  # a class is never imported by name
    about.write_text(json.dumps(trees))
    _, third = run(tmp_path)
    assert exported.read == [] and np.array_equal(first, third) and "no_such_module_of_ours" not in sys.modules
    assert "no_such_module_of_ours" not in set(sys.modules) - modules
    assert exported._imported("os:system") is None  # a function, not a class: refused


def test_what_cannot_be_keyed_is_traced_as_before(tmp_path):
    exported.skipped.clear()
    opaque = object.__new__(type("Opaque", (), {"__slots__": ()}))
    jitted = jax.jit(lambda x: x + 1)
    assert exported.program(tmp_path, "test.opaque", jitted, opaque, jnp.ones(2)) is jitted
    assert exported.skipped["test.opaque"].startswith("not keyed: a Opaque")
    assert exported.program(None, "test.none", jitted, (), jnp.ones(2)) is jitted
    assert not (tmp_path / exported.FOLDER).exists()


def test_the_games_step_read_back_plays_the_same_games(tmp_path):
    """A program with the package's own trees (State, its Record and Options) round trips."""
    rules = rules_of(GameConfig())
    keys = jax.random.bits(jax.random.key(3), (8, 2), jnp.uint32)
    state = game.init(rules, keys)
    actions = jnp.argmax(game.legal_action_mask(rules, state), axis=-1).astype(jnp.int32)
    step = jax.jit(partial(game.step.fun, rules))
    exported.read.clear()
    first = exported.program(tmp_path, "test.step", step, rules, state, actions)(state, actions)
    second = exported.program(tmp_path, "test.step", step, rules, state, actions)(state, actions)
    assert exported.read == ["test.step"]
    direct = step(state, actions)
    for a, b, c in zip(
        jax.tree_util.tree_leaves(first),
        jax.tree_util.tree_leaves(second),
        jax.tree_util.tree_leaves(direct),
        strict=True,
    ):
        assert np.array_equal(a, b) and np.array_equal(a, c)
    assert type(second) is type(direct)


def test_an_agent_file_is_keyed_by_its_network_not_its_path(tmp_path):
    import shutil

    from ckc_env.jax import policy

    source = Path(__file__).resolve().parents[1] / "checkpoints" / "ppo_5p_scratch"
    for name in ("best_model.json", "best_model.safetensors"):
        shutil.copy(source / name, tmp_path / name)
    here = policy.load(source / "best_model.json")
    there = policy.load(tmp_path / "best_model.json")
    final = policy.load(source / "final_model.json")
    assert exported.fingerprint(here) == exported.fingerprint(there)
    assert exported.fingerprint(here) != exported.fingerprint(final)


def test_a_folder_in_the_way_leaves_the_run_going(tmp_path):
    exported.skipped.clear()
    _, first = run(tmp_path)
    (program_file,) = (tmp_path / exported.FOLDER).glob("*.jaxexport")
    program_file.unlink()
    program_file.mkdir()  # where the program would be written: refused, the program still runs
    _, again = run(tmp_path)
    assert np.array_equal(first, again) and exported.skipped["test.scaled"].startswith("not kept:")
    assert program_file.is_dir() and not any(program_file.iterdir())


@pytest.mark.parametrize("kept", [False, True])
def test_a_program_fed_its_own_outputs_compiles_once(tmp_path, kept):
    """As the trainer calls its iteration: first with fresh arrays, then with what it returned. A
    program read back (or just exported) compiles once for both, as a plain jit does."""
    compiles: list[str] = []
    listener = lambda event, seconds, **_: compiles.append(event)  # noqa: E731
    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        exported.read.clear()
        factor = 5.0 if kept else 7.0  # a static of its own: no earlier test's program is reused
        jitted = jax.jit(lambda x, y: (scaled(x, Scale(factor, np.arange(3))), y + 1))
        x, y = jnp.ones(4), jnp.zeros(2, jnp.int32)
        if kept:  # a run before this one exported it
            exported.program(tmp_path, "test.fed", jitted, Scale(factor, np.arange(3)), x, y)
        program = exported.program(tmp_path, "test.fed", jitted, Scale(factor, np.arange(3)), x, y)
        assert exported.read == (["test.fed"] if kept else [])
        compiles.clear()
        for _ in range(3):
            x, y = program(x, y)
        assert compiles.count("/jax/core/compile/backend_compile_duration") == 1
        assert np.array_equal(y, [3, 3])
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
