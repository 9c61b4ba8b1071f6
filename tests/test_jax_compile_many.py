"""Many compilations in one process, as a notebook or a test suite makes them: the process stays
far from the kernel's limit on memory mappings (ckc_env/jax/compiled.py).

XLA's CPU compiler (jaxlib 0.10) maps three regions for every kernel of a compiled program and
unmaps them only when the program is freed; a program of this package takes 50 to 6,600 mappings,
and past ``vm.max_map_count`` (65,530 by default) LLVM aborts the whole process. About twenty of the
package's programs held at once did, in CI. Its entry points now keep a few programs each and free
the rest: this test compiles 36 distinct programs through them, one after another, and checks
that every one was a compilation of its own (it added mappings), that the process holds no more
than the entry points keep, that ``compiled.free`` gives every mapping back, and that the count
stays far below the limit.
"""

import gc
import statistics
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

MAPS = Path("/proc/self/maps")
if not MAPS.exists():
    pytest.skip("no /proc/self/maps here (not Linux)", allow_module_level=True)

from jax import monitoring  # noqa: E402

from ckc_env import batch  # noqa: E402
from ckc_env.config import GameConfig  # noqa: E402
from ckc_env.jax import compiled, observation  # noqa: E402
from ckc_env.jax.state import from_batch  # noqa: E402
from ckc_env.observation import ENV_VERSION, LAYOUTS  # noqa: E402

pytestmark = pytest.mark.slow  # about a minute: CI runs it with the other long checks

BACKEND_COMPILE = "/jax/core/compile/backend_compile_duration"
VARIANTS = [{}, {"stasi": True}, {"cafe_adler": True}]


def mappings() -> int:
    with MAPS.open() as f:
        return sum(1 for _ in f)


def limit() -> int:
    path = Path("/proc/sys/vm/max_map_count")
    return int(path.read_text()) if path.exists() else 65530


def programs():
    """36 distinct programs of three entry points: a state's and a critic's encoding and the
    observation (with and without the belief features), for three player counts and three
    variants (each its own static ``Rules``); the games are dealt by the NumPy engine, so nothing
    else compiles."""
    for variant in VARIANTS:
        for n in (3, 4, 5):
            rules, states = from_batch(batch.init(GameConfig(num_players=n, **variant), seeds=range(8)))
            yield lambda r=rules, s=states: observation.encode_state_batch(r, s)
            yield lambda r=rules, s=states: observation.encode_critic_state_batch(r, s)
            for beliefs in (False, True):
                layout = LAYOUTS[ENV_VERSION][beliefs]
                yield lambda r=rules, s=states, layout=layout: observation.observe_batch(r, s, layout=layout)


def test_compiling_many_programs_in_one_process_stays_far_from_the_mapping_limit():
    compiles = []

    def count(event: str, seconds: float, **_: object) -> None:
        if event == BACKEND_COMPILE:
            compiles.append(seconds)

    compiled.free()
    gc.collect()
    start = mappings()
    monitoring.register_event_duration_secs_listener(count)
    made, grown, peak = 0, [], start
    try:
        for run in programs():
            before, seen = mappings(), len(compiles)
            jax.block_until_ready(run())
            assert len(compiles) > seen, "a cache hit, not a compilation"
            grown.append(mappings() - before)
            made += 1
            peak = max(peak, mappings())
            assert compiled.held() <= 3 * compiled.KEEP  # three entry points, a few programs each
    finally:
        monitoring.unregister_event_duration_listener(count)
    assert made >= 30  # each a compilation of its own
    first = grown[:8]  # before any entry point had more than it keeps: nothing freed yet
    assert min(first) >= 20, first  # each program mapped its kernels
    kept_all = statistics.median(first) * made  # about what the process would hold if it kept every one
    assert peak - start < kept_all / 2, (start, peak, kept_all)  # most were freed as the next ones came
    compiled.free()
    gc.collect()
    assert mappings() - start <= 100  # and freeing the rest gives their mappings back
    assert peak < limit() // 4, (start, peak, limit())
