"""The environments' render modes: a readable table-top text of the public state (nothing hidden
is shown; ``"ansi"`` returns it, ``"human"`` prints it) and pictures (``"rgb_array"``: what a seat,
or the spectator, may see, drawn by :mod:`ckc_env.picture`; Pillow, the ``render`` extra)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .cli import need_extra
from .config import COLOURS
from .engine.actions import DECISION_KINDS
from .engine.cards import card_name, cat_name, cats_in, clue_name
from .engine.state import SCORING, GameState
from .engine.view import PlayerView
from .files import short

RENDER_MODES = ("human", "ansi", "rgb_array")
RENDER_FPS = 2
"""Frames per second of a recorded video (``metadata["render_fps"]``): one frame per step."""


class UnsupportedRenderModeError(ValueError, TypeError):
    """A render mode the environments do not have (or ``"rgb_array"`` without Pillow). A ValueError,
    as for every bad argument, and a TypeError, on which stable-baselines3's ``make_vec_env``
    retries without its default ``render_mode="rgb_array"``."""


def check_render_mode(render_mode: str | None) -> str | None:
    """None, ``"ansi"``, ``"human"`` or ``"rgb_array"``; anything else, or ``"rgb_array"`` without
    Pillow (naming the ``render`` extra), raises :class:`UnsupportedRenderModeError` (on which
    stable-baselines3's ``make_vec_env`` retries without a render mode)."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise UnsupportedRenderModeError(
            f"invalid render_mode={short(render_mode)}: accepted values are None, 'ansi', 'human', 'rgb_array'"
        )
    if render_mode == "rgb_array":
        try:
            need_extra("render", "PIL")
        except ValueError as exc:
            raise UnsupportedRenderModeError(f"render_mode='rgb_array' draws with Pillow: {exc}") from None
    return render_mode


def check_render_seat(render_seat: Any, num_players: int, also: tuple[str, ...] = ()) -> Any:
    """The seat whose view ``"rgb_array"`` draws: None (the spectator: public information only),
    a seat 0..num_players-1, or one of the words in ``also``; anything else raises ValueError."""
    words = [repr(word) for word in also]
    if render_seat is None or (isinstance(render_seat, str) and render_seat in also):
        return render_seat
    if (
        isinstance(render_seat, (int, np.integer))
        and not isinstance(render_seat, bool)
        and 0 <= render_seat < num_players
    ):
        return int(render_seat)
    raise ValueError(
        f"invalid render_seat={short(render_seat)}: accepted values are None (the spectator), "
        + ", ".join([*words, f"a seat 0 to {num_players - 1}"])
    )


def render(game: GameState, render_mode: str | None, seat: int | None = None) -> str | np.ndarray | None:
    """What ``render()`` returns in a render mode: the text (``"ansi"``), the picture of what
    ``seat`` may see (``"rgb_array"``; None: the spectator), or None after printing the text
    (``"human"``) or warning that there is no mode."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode: use render_mode='ansi', 'human' or 'rgb_array'")
        return None
    if render_mode == "rgb_array":
        from .picture import draw

        return draw(game, seat)
    text = render_text(game)
    if render_mode == "human":
        print(text, end="\n\n")
        return None
    return text


def render_text(game: GameState) -> str:
    """The table as any onlooker sees it: rows, discards, public clues, accusations, chips, deck."""
    view = PlayerView(game, -1)  # an onlooker: only public properties are read below
    n = game.n
    lines = []
    status = "game over" if game.game_over else f"round {game.round_index + 1}"
    lines.append(
        f"Checkpoint Charlie: {n} players, {status}, first player {game.first_player}, "
        f"deck {view.deck_size} cards ({view.investigators_left} investigator)"
    )
    public = [clue_name(c) for c in view.public_clues]
    lines.append(f"public clues: {', '.join(public) if public else '-'}")
    exposed = view.exposed_clues
    if exposed:
        lines.append("face-up clues: " + ", ".join(f"player_{s}: {clue_name(c)}" for s, c in sorted(exposed.items())))
    if game.last_card >= 0:
        lines.append(f"last card: {card_name(game.last_card)} drawn by player_{game.last_drawer}")
    lines.append("cats: one letter per feature, capital = hat/sunglasses/trench coat/newspaper/grey (HSTNG)")
    for seat in range(n):
        tags = []
        if seat == game.drawer and not game.game_over:
            tags.append("to draw")
        if seat == game.current_seat:
            tags.append(f"deciding: {DECISION_KINDS[game.pending_kind]}")
        if seat == game.stasi_card:
            tags.append("Stasi card")
        if seat == game.stasi_exposed and game.phase < SCORING:
            tags.append("clue face-up")
        colours = view.colour_counts(seat)
        face_up = view.face_up_adler_counts(seat)
        chips = " ".join(f"{COLOURS[c]} {colours[c]}" for c in range(3))
        if any(face_up):
            chips += " (face-up Adler: " + " ".join(f"{COLOURS[c]} {face_up[c]}" for c in range(3) if face_up[c]) + ")"
        accused = game.accused_by[seat]
        lines.append(f"player_{seat}{' [' + ', '.join(tags) + ']' if tags else ''}  chips: {chips}")
        row = " ".join(
            f"{c:2d}:{cat_name(c)}" + ("*" if (game.accused_cats >> c) & 1 else "") for c in cats_in(game.rows[seat])
        )
        lines.append(f"    row      {row or '-'}")
        discards = " ".join(f"{c:2d}:{cat_name(c)}" for c in cats_in(game.discards[seat]))
        lines.append(f"    discards {discards or '-'}")
        if accused >= 0:
            lines.append(f"    accused  {accused}:{cat_name(accused)}")
    if game.accusations:
        lines.append(
            "accusations in order: " + ", ".join(f"player_{s} -> {c}:{cat_name(c)}" for s, c in game.accusations)
        )
    lines.append("supply: " + ", ".join(f"{COLOURS[c]} {n_}" for c, n_ in enumerate(view.supply_counts)))
    if game.final is not None:
        totals = ", ".join(f"player_{s}: {t}" for s, t in enumerate(game.final["totals"]))
        lines.append(f"final totals: {totals}; winners: {', '.join(f'player_{s}' for s in game.final['winners'])}")
    return "\n".join(lines)
