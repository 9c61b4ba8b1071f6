"""``ckc-serve``: play against the agents and watch replays in a browser (the ``web`` extra).

    ckc-serve                                                  # http://127.0.0.1:8765
    ckc-serve --agents checkpoints/ppo_all_counts_mixed_34p    # its agent files seated too
    ckc-serve --replays replays/                               # ckc-play's replays, step by step

It binds to 127.0.0.1 (this machine alone) unless ``--host`` says otherwise. The page seats the
registered players and the agent files given here, and shows the replay files loaded here: it never
sends a file path. Every file is checked before the server starts (exit status 2 on bad input).
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from pathlib import Path

from .. import cli

MAX_REPLAY_FILES = 200


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ckc-serve", description=cli.plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to bind (default 127.0.0.1: this machine)")
    parser.add_argument("--port", type=cli.integer(0, 65535), default=8765, help="0..65535 (default 8765; 0: any free)")
    parser.add_argument("--agents", nargs="*", default=[], metavar="AGENT", help="agent files a game may seat")
    parser.add_argument(
        "--replays",
        nargs="*",
        default=[],
        metavar="PATH",
        help=f"replay files, or folders of them (at most {MAX_REPLAY_FILES})",
    )
    parser.add_argument("--trust-checkpoint", action="store_true", help="let stable-baselines3 .zip agents load")
    return parser


def replay_files(paths: list[str]) -> list[Path]:
    """The replay files named, a folder's ``*.json`` in name order (ValueError for a missing path)."""
    found: list[Path] = []
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found += sorted(path.glob("*.json"))
        elif path.is_file():
            found.append(path)
        else:
            raise ValueError(f"--replays {cli.printable(text)}: no such file or folder")
    if len(found) > MAX_REPLAY_FILES:
        raise ValueError(f"--replays names {len(found)} files: at most {MAX_REPLAY_FILES}")
    return found


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cli.need_extra("web", "PIL")
        from .server import serve
        from .tables import Tables

        tables = Tables(args.agents, replay_files(args.replays), args.trust_checkpoint)
        server = serve(tables, args.host, args.port)
    except (ValueError, OSError) as exc:
        cli.fail(parser, exc)
    host, port = server.server_address[:2]
    try:
        local = ipaddress.ip_address(host).is_loopback
    except ValueError:
        local = False
    if not local:
        print(f"ckc-serve: serving on {host}, reachable from other machines", file=sys.stderr)
    print(f"ckc-serve: http://{host}:{port}/ (Ctrl+C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
