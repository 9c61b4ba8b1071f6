"""Pictures of the table: what one seat, or an onlooker, may see, as an RGB image.

    from ckc_env.picture import draw
    frame = draw(env.unwrapped.game, seat=2)  # (720, 1280, 3) uint8: what player_2 may see
    frame = draw(env.unwrapped.game)          # the spectator's picture: public information only

This is ``render_mode="rgb_array"`` of the environments (``gymnasium.wrappers.RecordVideo``,
stable-baselines3's ``VecVideoRecorder``) and ``ckc-play --replay FILE --video out.mp4``.

No leaks: the picture reads the game only through a :class:`~ckc_env.engine.view.PlayerView`,
as the observation does: the seat's view, or seat -1 for the spectator, of which only the public
properties are read. It shows every row and discard pile (the last card drawn outlined in blue,
accused cats in red with their accuser), each seat's chips by colour, the public and face-up
clues, the supply, whose turn it is to draw, and, for a seat, its own clue, its chips' values and
its pending decision. Who else is deciding is not shown: the observation keeps the acting seat
among the hidden pieces. At a round's scoring every clue is revealed and the chief shown; the
next round's picture keeps the last round's result (its public record, ``engine.summary``).

A cat card shows its five features: a black hat, dark sunglasses, a trench coat (tan, belted) or
a sweater (blue), a newspaper under the arm, grey or orange fur; and its name (``HsTnG``: one
letter per feature, capital for hat / sunglasses / trench coat / newspaper / grey) and number.

Needs Pillow (the ``render`` extra); videos other than GIF also need imageio-ffmpeg (same extra).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

from .cli import need_extra

need_extra("render", "PIL")

from PIL import Image, ImageDraw, ImageFont  # noqa: E402 (after the check that names the extra)

from .config import COLOURS  # noqa: E402
from .engine.actions import DECISION_KINDS  # noqa: E402
from .engine.cards import FEATURES, INVESTIGATOR, cat_name, cats_in, chief_of, clue_name  # noqa: E402
from .engine.chips import ADLER, STASI  # noqa: E402
from .engine.state import GameState  # noqa: E402
from .engine.view import PlayerView  # noqa: E402
from .files import atomic_output, check_output  # noqa: E402

WIDTH, HEIGHT = 1280, 720
"""Every picture has this size, whatever the number of players (a video's frames must agree)."""
HEADER, SLOT, MARGIN, INFO = 60, 106, 8, 258  # header band, a seat's panel, margin, the panel's text column
CARD_W, CARD_H = 54, 80
VIDEO_SUFFIXES = (".mp4", ".gif")

FELT, PANEL, PANEL_OWN, INK, MUTED = (28, 58, 44), (244, 240, 231), (226, 236, 250), (30, 30, 30), (115, 115, 115)
WHITE, LIGHT = (255, 255, 255), (220, 230, 220)  # writing on the felt
CARD, DISCARD, RED, BLUE, AMBER = (255, 251, 240), (214, 214, 210), (205, 35, 35), (30, 105, 225), (240, 165, 20)
TILE, TILE_UP, TILE_OWN = (200, 200, 200), (250, 222, 120), (150, 195, 250)
CHIP = {"gold": ((214, 172, 40), INK), "white": ((252, 252, 252), INK), "black": ((30, 30, 30), (250, 250, 250))}
FUR = ((150, 150, 150), (236, 136, 44))  # grey, orange
COAT = ((196, 156, 104), (70, 115, 205))  # trench coat, sweater
DECISIONS = dict(
    zip(
        DECISION_KINDS,
        ("accuse or pass", "must accuse", "choose the clue face", "keep or swap a Cafe Adler chip"),
        strict=True,
    )
)


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font at ``size`` pixels (no font file needed)."""
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=4096)
def text_width(words: str, size: int) -> float:
    """How wide ``words`` are, in pixels."""
    return font(size).getlength(words)


@lru_cache(maxsize=4096)
def _lettering(words: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """``words`` as a coverage mask and its offset from the anchor point (drawn once: the same
    names and numbers come back in every frame, and text is most of a frame's drawing time)."""
    left, top, right, bottom = font(size).getbbox(words, anchor=anchor)
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(mask).text((-left, -top), words, fill=255, font=font(size), anchor=anchor)
    return mask, left, top


class Pen(ImageDraw.ImageDraw):
    """Pillow's drawing on one image, with cached lettering and pasted sprites."""

    def __init__(self, image: Image.Image) -> None:
        super().__init__(image)
        self.image = image

    def write(self, at: tuple[float, float], words: str, fill: tuple, size: int, anchor: str = "la") -> float:
        """Write ``words`` at ``at`` (Pillow's text anchors); returns where they end on the right
        (for the left-aligned default)."""
        mask, left, top = _lettering(words, size, anchor)
        self.image.paste(fill, (round(at[0] + left), round(at[1] + top)), mask)
        return at[0] + text_width(words, size)

    def sprite(self, image: Image.Image, at: tuple[float, float]) -> None:
        """Paste an RGBA picture with its transparency."""
        self.image.paste(image, (round(at[0]), round(at[1])), image)


# ---------------------------------------------------------------------- the picture
def draw(state: GameState, seat: int | None = None) -> np.ndarray:
    """What ``seat`` may see of the game (None: the spectator), as a (720, 1280, 3) uint8 image."""
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < state.n
    ):
        raise ValueError(f"seat must be None (the spectator) or 0 to {state.n - 1}, got {seat!r}")
    return draw_view(PlayerView(state, -1 if seat is None else int(seat)))


def draw_view(view: PlayerView) -> np.ndarray:
    """The picture of a view (seat -1: the spectator, of whom only public properties are read)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    pen = Pen(image)
    header(pen, view)
    for seat in range(view.num_players):
        seat_panel(pen, view, seat, HEADER + seat * SLOT)
    footer(pen, view, HEADER + view.num_players * SLOT)
    return np.array(image, dtype=np.uint8)


def header(pen: Pen, view: PlayerView) -> None:
    """The game's line (round, deck, variants, whose picture) and the public clues and supply."""
    config = view.config
    variants = [name for name, on in (("Stasi", config.stasi), ("Cafe Adler", config.cafe_adler)) if on]
    status = "game over" if view.game_over else f"round {view.round_index + 1} of {config.max_rounds}"
    left = view.investigators_left
    deck = f"deck {view.deck_size} cards" + (
        f" ({left} investigator{'' if left == 1 else 's'})" if config.investigator_cards else ""
    )
    line = "   ".join([f"{view.num_players} players", status, deck, *variants])
    pen.write((MARGIN + 4, 8), "Checkpoint Charlie", WHITE, 24)
    pen.write((MARGIN + 250, 14), line, LIGHT, 16)
    whose = "spectator's view: public information" if view.seat < 0 else f"player_{view.seat}'s view"
    pen.write((WIDTH - MARGIN - 4, 14), whose, WHITE, 16, anchor="ra")
    label = "bag clues (revealed):" if view.scoring and config.investigator_cards else "public clues:"
    x = pen.write((MARGIN + 4, 36), label, LIGHT, 15) + 8
    for clue in view.public_clues:
        x = tile(pen, (x, 34), clue_name(clue), TILE_UP) + 6
    if not view.public_clues:
        x = pen.write((x, 36), "none", LIGHT, 15)
    legend = "cats: HSTNG = hat, sunglasses, trench coat, newspaper, grey fur; lower case = none, sweater, orange"
    pen.write((max(x + 24, 330), 38), legend, LIGHT, 13)
    x = pen.write((WIDTH - MARGIN - 190, 36), "supply:", LIGHT, 15) + 6
    for colour, count in zip(COLOURS, view.supply_counts, strict=True):
        x = chip(pen, (x, 45), colour, str(count)) + 6


def seat_panel(pen: Pen, view: PlayerView, seat: int, top: int) -> None:
    """One seat: its name and marks, its clue as far as the view knows it, its chips, its row and
    discard pile."""
    own = seat == view.seat
    box = (MARGIN, top, WIDTH - MARGIN, top + SLOT - 6)
    deciding = own and view.to_act
    pen.rounded_rectangle(box, 8, fill=PANEL_OWN if own else PANEL, outline=AMBER if deciding else None, width=4)
    if seat == view.drawer and not view.scoring:
        pen.rounded_rectangle((MARGIN, top, MARGIN + 7, top + SLOT - 6), 3, fill=AMBER)
    if deciding:
        decision = "your decision: " + DECISIONS[DECISION_KINDS[view.decision_kind]]
        pen.write((WIDTH - MARGIN - 12, top + 6), decision, RED, 16, anchor="ra")
    x, y = MARGIN + 14, top + 6
    end = pen.write((x, y), f"player_{seat}" + (" (you)" if own else ""), INK, 18)
    if view.game_over and view.summaries:  # every chip is turned over: the totals are public
        result = view.summaries[-1]
        won = seat in result["winners"]
        pen.write(
            (end + 12, y + 2), f"total {result['totals'][seat]}" + (", wins" if won else ""), RED if won else INK, 16
        )
    pen.write((x, y + 24), ", ".join(seat_marks(view, seat)), MUTED, 13)
    tile(pen, (x, y + 44), *clue_shown(view, seat))
    chips_of(pen, view, seat, (x, top + SLOT - 28))
    cards_of(pen, view, seat, MARGIN + INFO, top)


def seat_marks(view: PlayerView, seat: int) -> list[str]:
    marks = []
    if seat == view.drawer and not view.scoring:
        marks.append("to draw")
    if seat == view.first_player and not view.scoring:
        marks.append("first player")
    if seat == view.stasi_card:
        marks.append("Stasi card")
    if seat != view.seat:  # the seat's own chips show their values, face-up or not
        face_up = zip(COLOURS, view.face_up_adler_counts(seat), strict=True)
        up = [f"{count} {colour}" for colour, count in face_up if count]
        if up:
            marks.append("Adler chips face up: " + ", ".join(up))
    return marks


def clue_shown(view: PlayerView, seat: int) -> tuple[str, tuple[int, int, int]]:
    """A seat's clue tile as the view sees it: face-up (Stasi, or revealed at scoring), its own,
    or hidden."""
    exposed = view.exposed_clues
    if seat in exposed:
        return f"clue: {clue_name(exposed[seat])} ({'revealed' if view.scoring else 'face-up'})", TILE_UP
    if seat == view.seat:
        if view.own_clue < 0:
            return f"tile: {FEATURES[view.own_tile][0]} (face to choose)", TILE_OWN
        return f"your clue: {clue_name(view.own_clue)}", TILE_OWN
    return "clue: ?", TILE


def chips_of(pen: Pen, view: PlayerView, seat: int, at: tuple[int, int]) -> None:
    """The seat's own chips one by one with their values, or another seat's chips counted by colour,
    said beside them: only a chip's holder knows its value (face-up Cafe Adler chips: the seat's marks)."""
    x, y = at[0], at[1] + 11
    if seat == view.seat:
        pool = view.pool
        for chip_id, points in sorted(zip(view.own_chips, view.own_chip_values, strict=True)):
            mark = {STASI: "S", ADLER: "A"}.get(pool.kind[chip_id], "")
            x = chip(pen, (x, y), COLOURS[pool.colour[chip_id]], f"{points}{mark}") + 3
        if not view.own_chips:
            x = pen.write((x, y - 8), "no chips", MUTED, 14)
        x = pen.write((x + 6, y - 8), f"= {view.own_points} point{'' if view.own_points in (1, -1) else 's'}", INK, 14)
    else:
        for colour, count in zip(COLOURS, view.colour_counts(seat), strict=True):
            x = chip(pen, (x, y), colour, str(count), faded=count == 0) + 3
        pen.write((x + 6, y - 8), "by colour", MUTED, 13)  # a chip's value is its holder's to know


def cards_of(pen: Pen, view: PlayerView, seat: int, left: int, top: int) -> None:
    """The seat's row of suspects, then its discard pile (grey cards), shrunk to fit if need be."""
    row, discards = cats_in(view.rows[seat]), cats_in(view.discards[seat])
    accusers = {cat: who for who, cat in view.accusations}
    room = WIDTH - MARGIN - 10 - left - 24
    width = min(CARD_W, room // max(1, len(row) + len(discards)) - 4)
    y = top + 19
    pen.write((left, top + 3), "row of suspects", MUTED, 12)
    x = left
    for cat in row:
        card(pen, (x, y), width, cat, accuser=accusers.get(cat, -1), last=cat == view.last_card)
        x += width + 4
    x = max(x + 20, left + 120) if row else x + 110
    x = min(x, WIDTH - MARGIN - 10 - len(discards) * (width + 4))
    pen.write((x, top + 3), "discards", MUTED, 12)
    for cat in discards:
        card(pen, (x, y), width, cat, discarded=True, last=cat == view.last_card)
        x += width + 4


def footer(pen: Pen, view: PlayerView, top: int) -> None:
    """This round's accusations and last card; the result of the round being scored, or of the last
    round played (its public record)."""
    pen.rounded_rectangle((MARGIN, top, WIDTH - MARGIN, HEIGHT - MARGIN), 8, fill=PANEL)
    x, y = MARGIN + 14, top + 8
    lines = [f"{k}. player_{seat} accused {cat} {cat_name(cat)}" for k, (seat, cat) in enumerate(view.accusations, 1)]
    if view.last_card >= 0 and not view.scoring:
        card_text = (
            "an investigator card" if view.last_card == INVESTIGATOR else f"{view.last_card} {cat_name(view.last_card)}"
        )
        lines.append(f"last card: {card_text}, drawn by player_{view.last_drawer}")
    pen.write((x, y), "Accusations this round", INK, 16)
    for k, line in enumerate(lines or ["none yet"]):
        pen.write((x, y + 21 + 16 * k), line, INK if line != "none yet" else MUTED, 14)
    result = round_result(view)
    if result is not None:
        title, chief, lines = result
        x = MARGIN + 390
        pen.write((x, y), title, INK, 16)
        card(pen, (x, y + 22), CARD_W, chief)
        wrapped = [part for line in lines for part in wrap(line, WIDTH - MARGIN - 14 - (x + CARD_W + 10), 14)]
        for k, line in enumerate(wrapped[: (HEIGHT - MARGIN - y - 24) // 16]):
            pen.write((x + CARD_W + 10, y + 21 + 16 * k), line, INK, 14)


def round_result(view: PlayerView) -> tuple[str, int, list[str]] | None:
    """(title, chief, lines) of the round being scored (its clues are revealed) or else of the last
    round played; None before the first round's end."""
    if view.summaries and (view.game_over or not view.scoring):
        summary = view.summaries[-1]
        chief = summary["chief"]
        where = "" if summary["chief_drawn"] else ", still in the deck"
        catcher = [a["seat"] for a in summary["accusations"] if a["cat"] == chief]
        clues = [f"player_{s} {clue_name(c)}" for s, c in enumerate(summary["clues"])]
        bag = [clue_name(c) for c in summary["public_clues"] + summary["bag_clues"]]
        chips = [
            f"player_{a['seat']} {a['colour'] if a['received'] else 'nothing (' + a['colour'] + ' ran out)'}"
            + ("" if "cat" in a else " (no accusation)")
            for a in summary["accusations"] + summary["non_accusers"]
        ]
        lines = [
            f"chief spy {chief} {cat_name(chief)}: "
            + (f"caught by player_{catcher[0]}" if catcher else f"not caught{where}"),
            "clues: " + ", ".join(clues) + (f"; bag: {', '.join(bag)}" if bag else ""),
            "chips: " + ", ".join(chips),
        ]
        if summary["game_over"]:
            winners = " and ".join(f"player_{s}" for s in summary["winners"])
            lines.append(f"game over: {winners} {'wins' if len(summary['winners']) == 1 else 'share the win'}")
        return f"Round {summary['round']} result", chief, lines
    if view.scoring:  # the clues are revealed; the summary comes once the swaps are done
        clues = [*view.exposed_clues.values(), *view.public_clues]
        chief = chief_of(clues)
        catcher = [seat for seat, cat in view.accusations if cat == chief]
        drawn = any((row >> chief) & 1 for row in view.rows)  # a chief drawn lies in its drawer's row
        caught = (
            f"caught by player_{catcher[0]}" if catcher else "not caught" + ("" if drawn else ", still in the deck")
        )
        return (
            f"Round {view.round_index + 1} scoring",
            chief,
            [f"chief spy {chief} {cat_name(chief)}: {caught}", "clues: " + ", ".join(clue_name(c) for c in clues)],
        )
    return None


# ---------------------------------------------------------------------- the pieces
def wrap(line: str, room: float, size: int) -> list[str]:
    """A line broken at spaces into lines at most ``room`` pixels wide."""
    out, current = [], ""
    for word in line.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size) > room:
            out.append(current)
            candidate = "   " + word
        current = candidate
    return [*out, current]


def tile(pen: Pen, at: tuple[float, float], words: str, fill: tuple) -> float:
    """A clue tile with ``words`` on it; returns its right edge."""
    right = at[0] + text_width(words, 14) + 14
    pen.rounded_rectangle((at[0], at[1], right, at[1] + 22), 5, fill=fill, outline=INK)
    pen.write((at[0] + 7, at[1] + 4), words, INK, 14)
    return right


def chip(pen: Pen, at: tuple[float, float], colour: str, label: str, faded: bool = False) -> float:
    """A round chip of ``colour`` with ``label`` on it, from ``at`` (its left edge, its centre's
    height); returns its right edge."""
    fill, ink = CHIP[colour]
    r = 11 if len(label) < 3 else 13
    cx, cy = at[0] + r, at[1]
    pen.ellipse(
        (cx - r, cy - r, cx + r, cy + r), fill=PANEL if faded else fill, outline=MUTED if faded else INK, width=2
    )
    pen.write((cx, cy), label, MUTED if faded else ink, 13, anchor="mm")
    return cx + r


def card(
    pen: Pen,
    at: tuple[float, float],
    width: int,
    cat: int,
    discarded: bool = False,
    accuser: int = -1,
    last: bool = False,
) -> None:
    """A cat card at ``at`` (its top left corner): see :func:`card_image`."""
    pen.sprite(card_image(width, cat, discarded, accuser, last), (at[0] - BLEED, at[1] - BLEED))


BLEED = 5
"""Room around a card's sprite for the accuser's mark."""


@lru_cache(maxsize=2048)
def card_image(width: int, cat: int, discarded: bool = False, accuser: int = -1, last: bool = False) -> Image.Image:
    """A cat card, drawn once (RGBA, ``BLEED`` pixels of room around it): its number, the cat with
    its five features, its name. Accused: a red frame and the accuser's seat; the last card drawn:
    a blue frame."""
    image = Image.new("RGBA", (width + 2 * BLEED, CARD_H + 2 * BLEED), (0, 0, 0, 0))
    pen = Pen(image)
    x = y = BLEED
    has = [bool((cat >> f) & 1) for f in range(5)]  # value A of each feature
    frame, thick = (RED, 3) if accuser >= 0 else (BLUE, 3) if last else (INK, 1)
    pen.rounded_rectangle(
        (x, y, x + width, y + CARD_H), 5, fill=DISCARD if discarded else CARD, outline=frame, width=thick
    )
    u = CARD_H / 68  # the drawing's unit: the card is 68 high (and 46 wide, when not shrunk to fit)
    k = u * min(1.0, width / CARD_W)
    cx, hy = x + width / 2, y + 28 * u

    def at_(dx: float, dy: float) -> tuple[float, float]:  # a point of the drawing, from the head's centre
        return cx + dx * k, hy + dy * u

    # body: trench coat (tan, belted) or sweater (blue); the newspaper under the arm
    pen.polygon([at_(-7, 6), at_(7, 6), at_(11, 23), at_(-11, 23)], fill=COAT[not has[2]], outline=INK)
    if has[2]:
        pen.line((*at_(-9, 16), *at_(9, 16)), fill=INK, width=2)
    if has[3]:
        pen.rectangle((*at_(4, 11), *at_(15, 21)), fill=WHITE, outline=INK)
        for dy in (14, 17):
            pen.line((*at_(6, dy), *at_(13, dy)), fill=MUTED)
    # head and ears in the fur's colour; eyes or sunglasses; a hat
    fur = FUR[not has[4]]
    for side in (-1, 1):
        pen.polygon([at_(side * 9, -2), at_(side * 8, -14), at_(side * 2, -8)], fill=fur, outline=INK)
    pen.ellipse((*at_(-9, -9), *at_(9, 9)), fill=fur, outline=INK)
    if has[1]:
        pen.rectangle((*at_(-8, -3), *at_(8, -1.5)), fill=INK)
        for side in (-1, 1):
            pen.ellipse((*at_(side * 4 - 3.5, -4.5), *at_(side * 4 + 3.5, 1.5)), fill=INK)
    else:
        for side in (-1, 1):
            pen.ellipse((*at_(side * 4 - 1.5, -3), *at_(side * 4 + 1.5, 0)), fill=INK)
    if has[0]:
        pen.rectangle((*at_(-5.5, -17), *at_(5.5, -8)), fill=INK)
        pen.rectangle((*at_(-10.5, -9), *at_(10.5, -7)), fill=INK)
    pen.write((x + 3, y + 2), str(cat), MUTED, 11)
    pen.write((cx, y + CARD_H - 3), cat_name(cat), INK, 13 if width >= 44 else 9, anchor="md")
    if accuser >= 0:
        pen.rounded_rectangle((x + width - 18, y - 3, x + width + 4, y + 11), 4, fill=RED)
        pen.write((x + width - 7, y + 4), f"P{accuser}", WHITE, 11, anchor="mm")
    return image


# ---------------------------------------------------------------------- videos
def save_video(frames: Iterable[np.ndarray], path: str | Path, fps: float = 2) -> Path:
    """Write frames as a video, streamed: ``.gif`` with Pillow (repeated frames merge into one
    longer frame), ``.mp4`` (H.264) with imageio-ffmpeg, which brings its own ffmpeg. The video is
    written under a temporary name beside ``path`` and renamed over it once whole
    (:func:`ckc_env.files.atomic_output`): a failure leaves the old file, and a link at ``path`` is
    replaced, never written through."""
    path = check_video(path)
    frames = iter(frames)
    first = next(frames, None)
    if first is None:
        raise ValueError(f"no frames to write to {path}")
    suffix = path.suffix.lower()
    with atomic_output(path, suffix) as temporary:
        if suffix == ".gif":
            images = (Image.fromarray(frame) for frame in frames)
            duration = max(20, round(1000 / fps))
            Image.fromarray(first).save(
                temporary, format="GIF", save_all=True, append_images=images, duration=duration, loop=0
            )
        else:
            import imageio_ffmpeg

            height, width = first.shape[:2]
            with _ffmpeg_without_preexec():
                writer = imageio_ffmpeg.write_frames(str(temporary), (width, height), fps=fps, ffmpeg_log_level="error")
                writer.send(None)
            try:
                for frame in _chain(first, frames):
                    writer.send(np.ascontiguousarray(frame))
            finally:
                writer.close()
    return path


@contextmanager
def _ffmpeg_without_preexec() -> Iterator[None]:
    """imageio-ffmpeg starts ffmpeg with a Python function run between fork and exec (to keep Ctrl+C
    from ffmpeg), which is not safe in a process whose JAX or torch threads are running: its own
    switch (``IMAGEIO_FFMPEG_NO_PREVENT_SIGINT``, its issue 58) starts it without one."""
    name = "IMAGEIO_FFMPEG_NO_PREVENT_SIGINT"
    before = os.environ.get(name)
    os.environ[name] = "1"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def check_video(path: str | Path) -> Path:
    """A video's path checked before any frame is drawn (:func:`ckc_env.files.check_output`): it ends
    in ``.mp4`` or ``.gif`` and can be written."""
    path = check_output(path, "cannot write a video to", VIDEO_SUFFIXES)
    if path.suffix.lower() == ".mp4":
        need_extra("render", "imageio_ffmpeg")
    return path


def _chain(first: np.ndarray, rest: Iterable[np.ndarray]) -> Iterable[np.ndarray]:
    yield first
    yield from rest


def frames_of(states: Iterable[GameState], seat: int | None = None, total: int | None = None) -> Iterable[np.ndarray]:
    """The picture of each state as it comes (states advanced in place are drawn before they move);
    with ``total``, the number of states, a progress bar along the bottom edge of each (a video's)."""
    for k, state in enumerate(states):
        frame = draw(state, seat)
        if total is not None:
            progress_bar(frame, k / max(total - 1, 1))
        yield frame


def progress_bar(frame: np.ndarray, done: float) -> np.ndarray:
    """Mark ``done`` (0 to 1) of the way through a video in the frame's bottom margin, in place."""
    end = MARGIN + round((WIDTH - 2 * MARGIN) * min(max(done, 0.0), 1.0))
    frame[HEIGHT - MARGIN + 2 : HEIGHT - 2, MARGIN:end] = AMBER
    return frame


__all__ = [
    "HEIGHT",
    "VIDEO_SUFFIXES",
    "WIDTH",
    "check_video",
    "draw",
    "draw_view",
    "frames_of",
    "progress_bar",
    "save_video",
]
