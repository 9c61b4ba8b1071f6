"""A person at the table: a player that shows its seat's view in the terminal and reads a choice.

``HumanAgent`` is an :class:`~ckc_env.agents.base.Agent` like the scripted ones, so a person sits
at any seat of a game driven by ``ckc-play`` (:mod:`ckc_env.terminal.play`). It reads the game only through
its seat's :class:`~ckc_env.engine.view.PlayerView`, so it shows exactly what that seat may know:
its own clue, the rows and discard piles, the accusations, every seat's chips by colour and its
own chips' values, the public and face-up clues, whose turn it is and the legal targets. Between
two of its decisions it tells what happened at the table (cards drawn, accusations), and at each
round's end the driver calls :meth:`HumanAgent.show_round` with the round's public summary.

Choices are typed: a cat by name (``HsTnG``: one letter per feature in the order H S T N G,
capital for hat / sunglasses / trench coat / newspaper / grey fur, lower case for the other value)
or by number (0-31), ``pass``, ``keep``, ``swap 3`` (with player 3), ``a`` / ``b`` for a clue face,
``table``, ``help``, ``quit``. A typo or an illegal choice gets a message saying why and the
choices that are legal, and the question again. Text typed at the pause between two rounds
(:meth:`HumanAgent.pause`) is not dropped: it answers the next question, as if typed there.

Rendering uses rich; input comes from a callable (``Console.input`` by default), so a test can
script a whole game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..agents.base import Agent
from ..config import COLOURS, GameConfig
from ..engine.actions import (
    ACCUSE,
    CAFE_ADLER,
    CLUE_FACE,
    CLUE_FACE_A,
    CLUE_FACE_B,
    FORCED_ACCUSATION,
    KEEP,
    PASS,
    SWAP,
    WINDOW,
)
from ..engine.cards import FEATURE_LETTERS, FEATURES, INVESTIGATOR, N_CATS, cat_name, cats_in, clue_name
from ..engine.chips import ADLER
from ..engine.state import CHOOSING_FACES, DRAWING, IN_WINDOW
from ..engine.view import PlayerView
from ..files import printable

COLOUR_STYLE = {"gold": "bold yellow", "white": "bold white", "black": "bold bright_black"}
QUIT = ("q", "quit", "exit")
HELP = f"""[bold]How to answer[/]
  a cat by name    five letters in the order {" ".join(FEATURE_LETTERS)}: capital for {", ".join(f[1] for f in FEATURES)};
                   lower case for {", ".join(f[2] for f in FEATURES)}. Example: HsTnG = hat, no sunglasses,
                   trench coat, no newspaper, grey fur
  a cat by number  0 to 31 (shown before each name, e.g. 21:HsTnG)
  pass  (or p)     do not accuse now (in an accusation window)
  keep / swap N    Cafe Adler: keep your hidden chip, or swap it blind with player N
  a / b            choose your clue face (value A or B of your tile's feature)
  table (or t)     show the table again;  help (or ?) this text;  quit  leave the game
[bold]The game[/] (RULES.md): the chief spy is the cat with all five clue values (every player's clue and
the clues left in the bag). Accuse a cat in any row: the chief earns gold, an assistant (4 clue
values) white, anyone else black. The round ends when all but one player have accused or the deck
is empty; 10 points, a colour used up or the fifth round ends the game.
[bold]Variants[/] Stasi: one black chip is the Stasi chip. Who takes it gets the Stasi card: in the next
round their clue lies face up for everyone; taken at the game's last scoring, the chip stays with
them, -2 points. Cafe Adler: four hidden chips (gold, white, white, black); holding one, at a
scoring phase you may keep it or swap it blind for a random chip of its colour from another player.
[bold]Chips[/] your own chips show their values; the others' chips show only their colours."""


def shown(text: str) -> str:
    """A name or text from a file or the command line, for rich: markup and control characters escaped."""
    return escape(printable(text))


class PlayerQuitError(Exception):
    """The person asked to leave the game."""


class HumanAgent(Agent):
    """A person at the table, reading ``ask(prompt)`` and writing to a rich ``console``."""

    name = "human"

    def __init__(
        self, console: Console | None = None, ask: Callable[[str], str] | None = None, seed: int | None = None
    ) -> None:
        super().__init__(seed)
        self.console = console or Console(highlight=False)
        self.ask = ask or self.console.input
        self.labels: list[str] = []
        self.final_chips: list[list[int]] | None = None  # every seat's chip values, once the game is over
        self.typed_ahead: list[str] = []  # text typed at a pause: the answers to the next questions

    def reset(self, seat: int, config: GameConfig) -> None:
        super().reset(seat, config)
        self._round = -1
        self._scored = 0  # the round whose hand-out was shown before the Cafe Adler decisions
        self._cards_seen = 0
        self._accusations_seen = 0
        self._adler_held = [0, 0, 0]  # hidden Cafe Adler chips by colour, as last announced
        self.typed_ahead = []

    # ------------------------------------------------------------------ deciding
    def act(self, view: PlayerView, observation: Any = None) -> int:
        self.show_news(view)
        self.show_table(view)
        legal = view.legal_actions()
        while True:
            prompt = f"[bold]player_{self.seat}[/] {_question(view)} > "
            if self.typed_ahead:  # typed at the pause before this question: shown as its answer
                text = self.typed_ahead.pop(0)
                self.console.print(f"{prompt}{escape(text)} [dim](typed at the pause)[/]")
            else:
                text = self.ask(prompt).strip()
            if text.lower() in QUIT:
                raise PlayerQuitError
            if text.lower() in ("?", "h", "help"):
                self.console.print(HELP)
                continue
            if text.lower() in ("t", "table"):
                self.show_table(view)
                continue
            choice = parse_choice(text, view)
            if isinstance(choice, str):
                self.console.print(f"[red]{escape(choice)}[/]")
                self.console.print(f"legal now: {legal_text(view)}  (help: ?)")
                continue
            if choice not in legal:  # parse_choice explains the usual cases; this is the safety net
                self.console.print(f"[red]{escape(repr(text))} is not legal now[/]; legal now: {legal_text(view)}")
                continue
            return choice

    def pause(self, prompt: str = "[dim]Enter: next round[/] ") -> None:
        """Wait for Enter (the round's end stays on screen). Text typed here is kept: ``quit`` leaves
        the game, anything else answers the next question (a person who types the answer before
        the question loses nothing)."""
        text = self.ask(prompt).strip()
        if text.lower() in QUIT:
            raise PlayerQuitError
        if text:
            self.typed_ahead.append(text)

    # ------------------------------------------------------------------ showing
    def show_news(self, view: PlayerView) -> None:
        """Cards drawn and accusations made since this seat's last decision, in the order they happened."""
        if view.round_index != self._round:
            self._round, self._cards_seen, self._accusations_seen = view.round_index, 0, 0
            self.console.rule(f"round {view.round_index + 1}")
            self.console.print(
                f"You are [bold]player_{self.seat}[/]. Your clue: [bold cyan]{_own_clue(view)}[/]. "
                f"First player: player_{view.first_player}."
            )
        for line in news(view, self._cards_seen, self._accusations_seen, self.seat):
            self.console.print(line)
        self._cards_seen = len(view.card_order)
        self._accusations_seen = len(view.accusations)

    def show_table(self, view: PlayerView) -> None:
        self.console.print(seat_table(view, self.seat, self.labels))
        self.console.print(_situation(view))

    def show_scoring(self, summary: dict[str, Any], view: PlayerView) -> None:
        """The scoring of a round before this seat's Cafe Adler decisions: what the hand-out revealed
        (the round's record so far), so the decision is taken knowing it."""
        self.show_round(summary, view, before_swaps=True)

    def show_round(self, summary: dict[str, Any], view: PlayerView, before_swaps: bool = False) -> None:
        """The end of a round: what happened since the last decision (from the round's record: the
        game has moved on to the next round), then everything the scoring reveals. A round whose
        scoring was shown before the Cafe Adler decisions shows only what followed it."""
        if self._scored == summary["round"]:  # the hand-out was shown before the Cafe Adler decisions
            self.console.print(round_end_text(summary, view, self.seat, self.labels, self.final_chips))
            self.show_adler_chips(view)
            self._round = summary["round"] - 1
            return
        if self._round != summary["round"] - 1:  # a round without a decision of this seat
            self._cards_seen = self._accusations_seen = 0
            self.console.rule(f"round {summary['round']}")
            self.console.print(
                f"You are [bold]player_{self.seat}[/]. Your clue: [bold cyan]{clue_name(summary['clues'][self.seat])}[/]."
            )
        accusations = [(r["seat"], r["cat"], r["cards_drawn"]) for r in summary["accusations"]]
        for line in _events(
            summary["cards"], summary["public_clues"], accusations, self._cards_seen, self._accusations_seen, self.seat
        ):
            self.console.print(line)
        if before_swaps:
            self._scored = summary["round"]
            self.console.print(scoring_text(summary, self.seat))
            self.show_adler_chips(view)
            self._cards_seen, self._accusations_seen = len(summary["cards"]), len(summary["accusations"])
            return
        self.console.print(round_text(summary, view, self.seat, self.labels, self.final_chips))
        self.show_adler_chips(view)
        self._round = summary["round"] - 1  # the next decision opens the next round

    def show_adler_chips(self, view: PlayerView) -> None:
        """Announce each hidden Cafe Adler chip this seat has received since the last announcement
        (RULES.md 8): its holder alone knows it, and may swap it at this or any later scoring, so
        the person learns of it when it arrives, not only when a swap becomes possible."""
        held = view.own_hidden_adler_counts()
        for line in adler_text(view, self._adler_held, held):
            self.console.print(line)
        self._adler_held = held


# ---------------------------------------------------------------------- reading a choice
def parse_choice(text: str, view: PlayerView) -> int | str:
    """The action a typed answer means, or a message saying why it cannot be taken now."""
    kind = view.decision_kind
    words = text.replace(":", " ").split()
    if not words:
        return "type a choice (help: ?)"
    head = words[0].lower()
    if kind == CLUE_FACE:
        feature = FEATURES[view.own_tile]
        answers = {"a": CLUE_FACE_A, feature[1].lower(): CLUE_FACE_A, "b": CLUE_FACE_B, feature[2].lower(): CLUE_FACE_B}
        if text.strip().lower() in answers:
            return answers[text.strip().lower()]
        return f"choose your clue face: a ({feature[1]}) or b ({feature[2]})"
    if kind == CAFE_ADLER:
        if head == "keep":
            return KEEP
        if head == "swap" and len(words) == 2:
            other = words[1].removeprefix("player_")
            if other.isdigit() and 0 <= int(other) < view.num_players and int(other) != view.seat:
                return SWAP + (int(other) - view.seat) % view.num_players - 1
            return f"swap with whom? give a player number other than yours (0 to {view.num_players - 1})"
        return "answer keep, or swap N to swap your hidden Cafe Adler chip with player N"
    if head in ("p", "pass"):
        if kind == FORCED_ACCUSATION:
            return "you cannot pass now: the deck is empty and you must accuse"
        return PASS
    if head == "accuse" and len(words) == 2:
        words = words[1:]
    if len(words) != 1:
        return f"{text!r} is not a choice: give one cat (name or number), or pass"
    cat = cat_from_text(words[0])
    if isinstance(cat, str):
        return cat
    return _accusable(cat, view)


def cat_from_text(text: str) -> int | str:
    """A cat from its number (0-31) or its five-letter name (``HsTnG``), or a message."""
    if text.lstrip("-").isdigit():
        number = int(text)
        return number if 0 <= number < N_CATS else f"there is no cat {number}: cats are numbered 0 to {N_CATS - 1}"
    if len(text) == len(FEATURE_LETTERS) and all(c.upper() == f for c, f in zip(text, FEATURE_LETTERS, strict=True)):
        return sum(1 << i for i, c in enumerate(text) if c.isupper())
    return (
        f"{text!r} is not a cat: a cat is a number from 0 to 31 or five letters in the order "
        f"{FEATURE_LETTERS}, capital for value A, lower case for value B (e.g. HsTnG); help: ?"
    )


def _accusable(cat: int, view: PlayerView) -> int | str:
    name = f"cat {cat} ({cat_name(cat)})"
    if (view.targets >> cat) & 1:
        return ACCUSE + cat
    accused = [seat for seat, accused_cat in view.accusations if accused_cat == cat]
    if accused:
        return f"{name} was already accused by player_{accused[0]}: each cat can be accused once a round"
    discarded = [seat for seat, pile in enumerate(view.discards) if (pile >> cat) & 1]
    if discarded:
        return f"{name} lies on player_{discarded[0]}'s discard pile: only cats in a row can be accused"
    return f"{name} is in no row (not drawn yet): only cats in a row can be accused"


def legal_text(view: PlayerView) -> str:
    """The legal choices, as a person types them."""
    out = []
    for action in view.legal_actions():
        if action == PASS:
            out.append("pass")
        elif ACCUSE <= action < ACCUSE + N_CATS:
            out.append(f"{action - ACCUSE}:{cat_name(action - ACCUSE)}")
        elif action in (CLUE_FACE_A, CLUE_FACE_B):
            feature = FEATURES[view.own_tile]
            out.append(f"a ({feature[1]})" if action == CLUE_FACE_A else f"b ({feature[2]})")
        elif action == KEEP:
            out.append("keep")
        else:
            out.append(f"swap {(view.seat + action - SWAP + 1) % view.num_players}")
    return ", ".join(out)


# ---------------------------------------------------------------------- what the seat sees
def seat_table(view: PlayerView, seat: int, labels: list[str] | None = None) -> Table:
    """The table as ``seat`` sees it: one line per player (clue if known, chips, row, discards, accusation)."""
    round_text_ = "game over" if view.game_over else f"round {view.round_index + 1}"
    public = ", ".join(clue_name(c) for c in view.public_clues) or "none"
    table = Table(
        title=f"{round_text_} - deck {view.deck_size} cards ({view.investigators_left} investigator) - "
        f"public clues: {public} - {supply_text(view.supply_counts)}",
        title_justify="left",
        show_lines=False,
    )
    for column in ("player", "clue", "chips", "row (accused*)", "discards", "accused"):
        table.add_column(column, overflow="fold")
    exposed = view.exposed_clues
    drawing = next_drawer(view)
    for s in range(view.num_players):
        name = f"player_{s}" + (f" ({shown(labels[s])})" if labels and s != seat else "")
        tags = []
        if s == drawing:
            tags.append("draws next")
        if s == view.stasi_card:
            tags.append("Stasi card")
        if s == seat:
            name = f"[bold]{name} (you)[/]"
            clue = f"[bold cyan]{_own_clue(view)}[/]"
        else:
            clue = clue_name(exposed[s]) + " (face up)" if s in exposed else "?"
        chips = _chips_text(view, s, own=s == seat)
        accused = view.accused_by[s]
        table.add_row(
            name + (f" ({', '.join(tags)})" if tags else ""),
            clue,
            chips,
            _cats_text(view.rows[s], view.accused_cats),
            _cats_text(view.discards[s], 0),
            f"{accused}:{cat_name(accused)}" if accused >= 0 else "",
        )
    return table


def next_drawer(view: PlayerView) -> int | None:
    """The player who draws the next card (if the round goes on), or None when no card is to be
    drawn: the deck is empty, or the round is being scored. After an investigator card its drawer
    draws again (RULES.md 4); before the round's first card, the first player draws."""
    if view.phase not in (CHOOSING_FACES, DRAWING, IN_WINDOW) or view.deck_size == 0:
        return None
    if view.last_drawer < 0 or view.last_card == INVESTIGATOR:
        return view.drawer
    return (view.drawer + 1) % view.num_players


def points_text(points: int) -> str:
    """``1 point``, ``-1 point``, ``0 points``, ``7 points``."""
    return f"{points} point" + ("" if abs(points) == 1 else "s")


def adler_text(view: PlayerView, before: list[int], now: list[int]) -> list[str]:
    """A line for each hidden Cafe Adler chip of this seat that ``now`` (by colour) counts and
    ``before`` did not."""
    pool = view.pool
    lines = []
    for colour, (old, new) in enumerate(zip(before, now, strict=True)):
        if new <= old:
            continue
        value = next(pool.points[c] for c in view.own_chips if pool.kind[c] == ADLER and pool.colour[c] == colour)
        name = COLOURS[colour]
        chips = "a hidden Cafe Adler chip" if new - old == 1 else f"{new - old} hidden Cafe Adler chips"
        line = f"[bold]You took {chips}[/] ([{COLOUR_STYLE[name]}]{name}[/], worth {value:+d}; only you know it)"
        if not view.game_over:
            line += (
                f": at the end of this round's scoring or of any later one, you may swap it blind for a {name} "
                f"chip of another player (offered whenever another player holds a {name} chip that can be taken)"
            )
        lines.append(line)
    return lines


def supply_text(counts: list[int]) -> str:
    """The chips left face-down of each colour (public at the table: a colour about to run out
    decides games)."""
    left = ", ".join(f"[{COLOUR_STYLE[c]}]{c} {counts[i]}[/]" for i, c in enumerate(COLOURS))
    return f"supply: {left}"


def _chips_text(view: PlayerView, seat: int, own: bool) -> str:
    counts = view.colour_counts(seat)
    parts = [f"[{COLOUR_STYLE[c]}]{c[0].upper()}{counts[i]}[/]" for i, c in enumerate(COLOURS)]
    text = " ".join(parts)
    face_up = view.face_up_adler_counts(seat)
    if any(face_up):
        text += " (face-up Adler " + " ".join(f"{COLOURS[c]} {face_up[c]}" for c in range(3) if face_up[c]) + ")"
    if own and view.own_chips:
        values = view.own_chip_values
        colours = [COLOURS[view.pool.colour[chip]] for chip in view.own_chips]
        text += " = " + " ".join(f"[{COLOUR_STYLE[c]}]{v:+d}[/]" for c, v in zip(colours, values, strict=True))
        text += f" = {view.own_points} pts"
        hidden = view.own_hidden_adler_counts()
        if any(hidden):  # only this seat knows them (RULES.md 8)
            kinds = ", ".join(COLOURS[c] + (f" x{hidden[c]}" if hidden[c] > 1 else "") for c in range(3) if hidden[c])
            text += f" (hidden Cafe Adler: {kinds})"
    return text


def _cats_text(mask: int, accused: int) -> str:
    return " ".join(f"{c}:{cat_name(c)}" + ("*" if (accused >> c) & 1 else "") for c in cats_in(mask)) or "-"


def _own_clue(view: PlayerView) -> str:
    if view.own_clue < 0:
        feature = FEATURES[view.own_tile]
        return f"tile {feature[0]} (face to choose: {feature[1]} or {feature[2]})"
    return clue_name(view.own_clue)


def _question(view: PlayerView) -> str:
    kind = view.decision_kind
    if kind == WINDOW:
        return "accuse a cat or pass"
    if kind == FORCED_ACCUSATION:
        return "accuse a cat (you must)"
    if kind == CLUE_FACE:
        return "clue face a or b"
    return "keep or swap N"


def _situation(view: PlayerView) -> str:
    kind = view.decision_kind
    if kind == WINDOW:
        if view.last_card == INVESTIGATOR:
            drew = (
                f"player_{view.last_drawer} drew an investigator card (public clue {clue_name(view.public_clues[-1])})"
            )
        else:
            drew = f"player_{view.last_drawer} drew {view.last_card}:{cat_name(view.last_card)}"
        head = f"Accusation window: {drew}. You may accuse one cat in a row, or pass."
    elif kind == FORCED_ACCUSATION:
        head = "The deck is empty: you have not accused, so you must accuse now."
    elif kind == CLUE_FACE:
        head = "Choose which face of your clue tile is up: that value is your clue this round."
    else:
        colour = COLOURS[view.decision_chip_colour]
        head = f"Cafe Adler: keep your hidden {colour} Cafe Adler chip, or swap it blind for a {colour} chip of another player."
    return f"{head}\n[bold]legal:[/] {legal_text(view)}"


def news(view: PlayerView, cards_seen: int, accusations_seen: int, seat: int) -> list[str]:
    """What happened this round since ``cards_seen`` cards and ``accusations_seen`` accusations."""
    cards = [
        (
            drawer,
            card,
            "public_clues" if card == INVESTIGATOR else "row" if (view.rows[drawer] >> card) & 1 else "discard",
        )
        for drawer, card in view.card_order
    ]
    accusations = [(accuser, cat, view.accused_at[accuser]) for accuser, cat in view.accusations]
    return _events(cards, view.public_clues, accusations, cards_seen, accusations_seen, seat)


def _events(
    cards: list[tuple[int, int, str]],
    public_clues: list[int],
    accusations: list[tuple[int, int, int]],
    cards_seen: int,
    accusations_seen: int,
    seat: int,
) -> list[str]:
    """Draws (``(drawer, card, where it went)``) and accusations (``(seat, cat, cards drawn when
    made)``) past the ones already seen, in the order they happened."""
    events: list[tuple[int, int, str]] = []
    investigators = 0
    for k, (drawer, card, where) in enumerate(cards):
        who = "you" if drawer == seat else f"player_{drawer}"
        if card == INVESTIGATOR:
            clue = public_clues[investigators] if investigators < len(public_clues) else None
            investigators += 1
            if k >= cards_seen:
                shown = clue_name(clue) if clue is not None else "?"
                events.append((k + 1, 0, f"{who} drew an investigator card: public clue [bold]{shown}[/]"))
        elif k >= cards_seen:
            place = "row" if where == "row" else "discard pile"
            events.append((k + 1, 0, f"{who} drew {card}:{cat_name(card)} -> {place}"))
    for order, (accuser, cat, at) in enumerate(accusations):
        if order >= accusations_seen:
            who = "you" if accuser == seat else f"player_{accuser}"
            events.append((at, 1, f"[bold magenta]{who} accused {cat}:{cat_name(cat)}[/]"))
    return [text for _, _, text in sorted(events, key=lambda e: (e[0], e[1]))]


REASONS = {
    "points": "a player reached the target points",
    "colour_used_up": "a chip colour was used up",
    "last_round": "the last round was played",
}
"""The game-end reasons (RULES.md 6) in words."""


def scoring_text(summary: dict[str, Any], seat: int) -> str:
    """What a round's scoring reveals: every clue, the chief, and who took which chip colour."""
    lines = [f"[bold]End of round {summary['round']}: the clues are revealed[/]"]
    clues = ", ".join(f"{_who(s, seat)} {clue_name(c)}" for s, c in enumerate(summary["clues"]))
    bag = summary["public_clues"] + summary["bag_clues"]
    lines.append(f"  clues: {clues}" + (f"; bag: {', '.join(clue_name(c) for c in bag)}" if bag else ""))
    chief = summary["chief"]
    where = "drawn" if summary["chief_drawn"] else "still in the deck"
    lines.append(f"  the chief spy: [bold]{chief}:{cat_name(chief)}[/] ({where})")
    assistants = set(summary["assistants"])
    for record in summary["accusations"]:
        cat = record["cat"]
        role = "the chief" if cat == chief else "an assistant" if cat in assistants else "an innocent"
        got = record["colour"] if record["received"] else f"nothing ({record['colour']} ran out)"
        lines.append(f"  {_who(record['seat'], seat)} accused {cat}:{cat_name(cat)}, {role}: {got}")
    for record in summary["non_accusers"]:
        got = record["colour"] if record["received"] else f"nothing ({record['colour']} ran out)"
        lines.append(f"  {_who(record['seat'], seat)} did not accuse: {got}")
    if summary.get("stasi_taken_by") is not None:
        lines.append(f"  {_who(summary['stasi_taken_by'], seat)} took the Stasi chip")
    return "\n".join(lines)


def round_end_text(
    summary: dict[str, Any],
    view: PlayerView,
    seat: int,
    labels: list[str] | None = None,
    final_chips: list[list[int]] | None = None,
) -> str:
    """What follows the hand-out: the Cafe Adler swaps, the chips by colour and the supply after the
    round, this seat's chips' values, and at the game's end the final table."""
    lines = []
    for swap in summary["swaps"]:
        lines.append(
            f"  {_who(swap['seat'], seat)} swapped a {swap['colour']} Cafe Adler chip with {_who(swap['with'], seat)}"
        )
    colours = "; ".join(
        f"{_who(s, seat)} " + " ".join(f"{COLOURS[c][0].upper()}{n}" for c, n in enumerate(counts))
        for s, counts in enumerate(summary["chip_colours"])
    )
    lines.append(f"  chips by colour: {colours}")
    lines.append(f"  {supply_text(summary['supply'])}")
    values = " ".join(f"{v:+d}" for v in view.own_chip_values)
    lines.append(f"  your chips: {values or 'none'} = {points_text(view.own_points)}")
    if summary["game_over"]:
        lines.append(final_text(summary, labels, final_chips, seat))
    return "\n".join(lines)


def round_text(
    summary: dict[str, Any],
    view: PlayerView,
    seat: int,
    labels: list[str] | None = None,
    final_chips: list[list[int]] | None = None,
) -> str:
    """A round's end as the seat learns it: every clue, the chief, who took which chip colour, the
    swaps, its own chips' values (and at the game's end every chip's value and the final table)."""
    return scoring_text(summary, seat) + "\n" + round_end_text(summary, view, seat, labels, final_chips)


def final_text(
    summary: dict[str, Any],
    labels: list[str] | None = None,
    final_chips: list[list[int]] | None = None,
    seat: int = -1,
) -> str:
    """The final table: every chip turned over (each player's values, when known), points and gold
    chips, the winners by name, and why the game ended, in words."""
    order = np.argsort([-(t * 100 + g) for t, g in zip(summary["totals"], summary["gold"], strict=True)], kind="stable")
    reasons = "; ".join(REASONS.get(r, r) for r in summary["reasons"])
    lines = [f"[bold]Game over[/]: {reasons}. Every chip is turned over:"]
    for s in order:
        name = _who(s, seat, labels)
        chips = ""
        if final_chips is not None:
            chips = " ".join(f"{v:+d}" for v in final_chips[s]) or "no chips"
            chips = f"{chips} = "
        mark = "  [bold green]wins[/]" if s in summary["winners"] else ""
        lines.append(f"  {name}: {chips}{points_text(summary['totals'][s])}, {summary['gold'][s]} gold{mark}")
    winners = [_who(s, seat, labels) for s in summary["winners"]]
    verb = "wins" if len(winners) == 1 else "share the win"
    lines.append(f"  {' and '.join(winners)} {verb}" + (" (tied on points and gold)" if len(winners) > 1 else ""))
    return "\n".join(lines)


def _who(s: int, seat: int, labels: list[str] | None = None) -> str:
    """A seat as the person reads it: "player_2 (you)", or with the player's name."""
    if s == seat:
        return f"player_{s} (you)"
    return f"player_{s}" + (f" ({shown(labels[s])})" if labels else "")
