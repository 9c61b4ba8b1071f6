"""A readable table-top text of the public state (nothing hidden is shown)."""

from __future__ import annotations

from .config import COLOURS
from .engine.actions import DECISION_KINDS
from .engine.cards import card_name, cat_name, cats_in, clue_name
from .engine.state import SCORING, GameState
from .engine.view import PlayerView
from .files import short

RENDER_MODES = ("human", "ansi")


class UnsupportedRenderModeError(ValueError, TypeError):
    """A render mode the environments do not have. A ValueError, as for every bad argument, and
    a TypeError, on which stable-baselines3's ``make_vec_env`` retries without its default
    ``render_mode="rgb_array"``."""


def check_render_mode(render_mode: str | None) -> str | None:
    """None, ``"ansi"`` or ``"human"``; anything else raises :class:`UnsupportedRenderModeError`."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise UnsupportedRenderModeError(
            f"invalid render_mode={short(render_mode)}: accepted values are None, 'ansi', 'human'"
        )
    return render_mode


def render(game: GameState, render_mode: str | None) -> str | None:
    """What ``render()`` returns in a render mode: the text (``"ansi"``), or None after printing
    it (``"human"``) or warning that there is no mode."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("render() called without a render_mode: use render_mode='ansi' or 'human'")
        return None
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
