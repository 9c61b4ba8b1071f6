"""Policy inference: ppo_5p_distilled's safe file in NumPy against its stable-baselines3 policy in torch.

Both compute the action logits of the same observations (uniform within the layout's bounds): one
row at a time, as a player decides in a tournament, and in batches, as a batched engine would ask.
Loading is timed too (``agent_file.load_agent`` against ``MaskablePPO.load``). One thread each, as
tournament workers run; round-robin repeats, medians, and same-run ratios.

    python benchmarks/bench_policy.py                     # checkpoints/ppo_5p_distilled, 5 repeats
    python benchmarks/bench_policy.py --repeats 9 --batch 4096
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads its BLAS
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def rows_per_second(forward: Callable[[np.ndarray], object], rows: np.ndarray, batch: int) -> float:
    start = time.perf_counter()
    if batch == 1:
        for row in rows:
            forward(row)
    else:
        for first in range(0, len(rows), batch):
            forward(rows[first : first + batch])
    return len(rows) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from ckc_env.players.agent_file import load_agent

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", default=str(ROOT / "checkpoints/ppo_5p_distilled"), help="a run folder")
    parser.add_argument("--rows", type=int, default=2000, help="rows per single-row measurement")
    parser.add_argument("--batch", type=int, default=4096, help="rows per batched call")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    for name in ("rows", "batch", "repeats"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name} must be a positive integer, got {getattr(args, name)}")
    torch.set_num_threads(1)
    folder = Path(args.agent)

    loads: dict[str, list[float]] = {"numpy": [], "torch": []}
    for _ in range(args.repeats):
        start = time.perf_counter()
        network = load_agent(folder)
        loads["numpy"].append(time.perf_counter() - start)
        start = time.perf_counter()
        model = MaskablePPO.load(folder / "best_model.zip", device="cpu")  # the project's own file
        loads["torch"].append(time.perf_counter() - start)
    policy = model.policy

    def torch_logits(observations: np.ndarray) -> np.ndarray:
        """PolicyAgent's forward pass before the agent files (SB3's modules called directly)."""
        with torch.no_grad():
            obs = torch.as_tensor(observations).reshape(-1, observations.shape[-1])
            features = policy.extract_features(obs, policy.pi_features_extractor)
            return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()

    low, high = network.layout.bounds()
    rng = np.random.default_rng(0)
    single = rng.uniform(low, high, (args.rows, len(low))).astype(np.float32)
    batched = rng.uniform(low, high, (4 * args.batch, len(low))).astype(np.float32)
    assert np.abs(network.logits(batched[:256]) - torch_logits(batched[:256])).max() < 1e-4

    rates: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.repeats):
        for batch, rows in ((1, single), (args.batch, batched)):
            rates.setdefault(("numpy", batch), []).append(rows_per_second(network.logits, rows, batch))
            rates.setdefault(("torch", batch), []).append(rows_per_second(torch_logits, rows, batch))

    print(f"{folder}: {network.observation_size} inputs, layers {[layer.outputs for layer in network.card.policy]}")
    print(f"load            numpy {statistics.median(loads['numpy']) * 1e3:8.1f} ms   torch (SB3) "
          f"{statistics.median(loads['torch']) * 1e3:8.1f} ms")  # fmt: skip
    for batch in (1, args.batch):
        ours, theirs = rates[("numpy", batch)], rates[("torch", batch)]
        ratio = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
        print(
            f"batch {batch:5d}      numpy {statistics.median(ours):10.0f} rows/s   torch {statistics.median(theirs):10.0f}"
            f" rows/s   numpy / torch {ratio:.2f}"
        )


if __name__ == "__main__":
    main()
