"""Draw results: ``ckc-plot`` (matplotlib, the ``plot`` extra), over :mod:`ckc_env.evaluation.plots`.

    ckc-plot results docs/results/ladder_3p.json docs/results/ladder_4p.json --out docs/ladder.png
    ckc-plot run checkpoints/ppo_5p_distilled --out docs/ppo_5p_distilled.png   # a run's evaluations over time
    ckc-plot runs RUN1 RUN2 --labels "CPU, SB3" "H200, JAX" --fair 0.2 --out runs.png   # runs side by side
    ckc-plot best-response runs/best_response/*/best_response.json --out best_response.png

(``ckc-plot`` is ``python -m ckc_env.evaluation.commands.plot``.)
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from ckc_env import cli

from ..plots import _history, _load, check_plot, plot_best_responses, plot_results, plot_run, plot_runs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="ckc-plot",
        description=cli.plain(__doc__.split("\n\n")[0]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    kinds = parser.add_subparsers(dest="kind", required=True)
    results = kinds.add_parser("results", help="win rates with intervals from ckc-evaluate --out files")
    results.add_argument("files", nargs="+", metavar="JSON", help="PREFIX.json files written by ckc-evaluate --out")
    results.add_argument("--out", required=True, help="the picture to write (.png, .svg, .pdf)")
    run = kinds.add_parser("run", help="a training run's evaluations over time")
    run.add_argument("run_dir", metavar="RUN", help="a run folder (with evaluations.json)")
    run.add_argument("--out", required=True, help="the picture to write (.png, .svg, .pdf)")
    run.add_argument(
        "--reference",
        nargs="+",
        default=[],
        metavar="JSON",
        help="lineup results (ckc-evaluate --out) whose first player's win rate is drawn as a line",
    )
    run.add_argument("--wall-time", action="store_true", help="a second panel: the curves by wall-clock minutes")
    runs = kinds.add_parser("runs", help="several runs' first evaluation table side by side, by steps and time")
    runs.add_argument("histories", nargs="+", metavar="RUN", help="run folders or evaluations.json files")
    runs.add_argument("--labels", nargs="+", required=True, help="one label per run")
    runs.add_argument("--fair", type=float, default=None, help="a seat's fair share, drawn dashed (e.g. 0.2)")
    runs.add_argument("--out", required=True, help="the picture to write (.png, .svg, .pdf)")
    best = kinds.add_parser("best-response", help="best responses' learning curves (ckc-best-response)")
    best.add_argument("files", nargs="+", metavar="JSON", help="best_response.json files")
    best.add_argument("--out", required=True, help="the picture to write (.png, .svg, .pdf)")
    args = parser.parse_args(argv)
    try:
        check_plot(args.out, "--out")
        if args.kind == "best-response":
            path = plot_best_responses([_load(f) for f in args.files], args.out)
        elif args.kind == "results":
            path = plot_results([_load(f) for f in args.files], args.out)
        elif args.kind == "runs":
            if len(args.labels) != len(args.histories):
                raise ValueError(f"--labels: {len(args.labels)} labels for {len(args.histories)} runs (one each)")
            histories = [(label, _history(h)) for label, h in zip(args.labels, args.histories, strict=True)]
            path = plot_runs(histories, args.out, args.fair)
        else:
            references = [_load(f) for f in args.reference]
            if any(not isinstance(r, dict) or "lineup" not in r for r in references):
                raise ValueError("--reference takes lineup results (ckc-evaluate --lineup ... --out PREFIX)")
            path = plot_run(args.run_dir, args.out, references, wall_time=args.wall_time)
    except ValueError as exc:
        cli.fail(parser, exc)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:  # a JSON file of another shape
        what = {
            "results": lambda: ", ".join(args.files),
            "best-response": lambda: ", ".join(args.files),
            "runs": lambda: ", ".join(args.histories),
        }.get(args.kind, lambda: f"{args.run_dir}/evaluations.json")()
        cli.fail(parser, f"{what}: not the shape ckc-evaluate and ckc-train write ({type(exc).__name__}: {exc})")
    cli.say(f"wrote {path}")


if __name__ == "__main__":
    main()
