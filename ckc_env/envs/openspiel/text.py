"""The game as text: what a player sees (OpenSpiel's observation string), what it has seen (the
information state string, perfect recall) and everything (``str(state)``, for debugging).

The observation string is the player's :class:`~ckc_env.engine.view.PlayerView`, one fact a line.
The information state string adds the public record of every finished round, the cards of this
round in the order drawn, every decision of the game (others' chosen clue faces hidden, each with
the round and cards drawn when it was made) and what the player saw of its own chips change hands.
Nothing hidden gets in: the view holds only what the player may know, the rest is public decisions
and the player's own chips. Nothing here needs OpenSpiel.
"""

from __future__ import annotations

import json

from ...config import COLOURS
from ...engine.actions import DECISION_KINDS
from ...engine.cards import FEATURES, card_name, cat_name, cats_in, clue_name
from ...engine.state import PHASES
from ...engine.view import PlayerView
from .course import Course


def _cats(mask: int) -> str:
    return " ".join(cat_name(c) for c in cats_in(mask)) or "-"


def observation_text(course: Course, player: int) -> str:
    """What ``player`` sees at the table now (its ``PlayerView``), one fact a line."""
    state = course.engine
    if state is None:
        return f"player {player}: the game is being set up"
    view = PlayerView(state, player)
    n = view.num_players
    status = "game over" if view.game_over else f"round {view.round_index + 1}, {PHASES[view.phase]}"
    lines = [f"player {player} of {n}, {status}, first player {view.first_player}, drawer {view.drawer}"]
    if state.current_seat >= 0:
        decision = ""
        if view.to_act:
            decision = f" ({DECISION_KINDS[view.decision_kind]}"
            if view.decision_chip_colour >= 0:
                decision += f", a {COLOURS[view.decision_chip_colour]} Cafe Adler chip"
            decision += ")"
        lines.append(f"to act: player {state.current_seat}{decision}")
    clue = clue_name(view.own_clue) if view.own_clue >= 0 else "face to choose"
    lines.append(f"own tile {FEATURES[view.own_tile][0]}, clue {clue}")
    lines.append(f"own chips {sorted(view.own_chip_values)}, points {view.own_points}")
    if view.config.cafe_adler:
        lines.append(f"own face-down Cafe Adler chips {view.own_hidden_adler_counts()}")
    lines.append("public clues: " + (" ".join(clue_name(c) for c in view.public_clues) or "-"))
    exposed = view.exposed_clues
    if exposed:
        lines.append("face-up clues: " + " ".join(f"{s}:{clue_name(c)}" for s, c in sorted(exposed.items())))
    if view.stasi_card >= 0:
        lines.append(f"Stasi card: player {view.stasi_card}")
    if view.last_card >= 0:
        lines.append(f"last card: {card_name(view.last_card)} by player {view.last_drawer}")
    lines.append(f"deck {view.deck_size} cards, {view.investigators_left} investigator(s); supply {view.supply_counts}")
    for s in range(n):
        accused = view.accused_by[s]
        accusation = f"{cat_name(accused)} after {view.accused_at[s]} cards" if accused >= 0 else "-"
        chips = view.chip_table[s]
        lines.append(
            f"player {s}: row {_cats(view.rows[s])} | discards {_cats(view.discards[s])} | accused {accusation} | "
            f"chips {chips[:3]} face-up Adler {chips[3:]}"
        )
    if view.accusations:
        lines.append("accusation order: " + " ".join(str(s) for s, _ in view.accusations))
    if state.final is not None:
        lines.append(f"final points {state.final['totals']}, winners {state.final['winners']}")
    return "\n".join(lines)


def information_text(course: Course, player: int) -> str:
    """The observation text, then everything ``player`` has seen so far (perfect recall)."""
    state = course.engine
    cards = ""
    if state is not None:
        cards = " ".join(f"{seat}:{card}" for seat, card in state.card_order)
        for summary in state.summaries[len(course.records) :]:  # each finished round's record, written once
            course.records.append(json.dumps(summary, sort_keys=True, separators=(",", ":")))
    decisions = " ".join(own if seat == player else public for seat, own, public in course.log)
    return "\n".join(
        [
            observation_text(course, player),
            "rounds: " + " ".join(course.records),
            "cards: " + cards,
            "decisions: " + decisions,
            "own chips: " + " ".join(course.private[player]),
        ]
    )


def full_text(course: Course) -> str:
    """Everything, hidden parts included (OpenSpiel's ``ToString``: for debugging and its tests)."""
    state = course.engine
    lines = []
    if state is not None:
        lines.append(
            f"round {state.round_index + 1}, {PHASES[state.phase]}, to act {state.current_seat}, "
            f"tiles {state.tiles}, clues {state.clues}, bag {state.bag}, public clues {state.public_clues}"
        )
        lines.append(f"deck {state.deck[state.deck_pos :]} (drawn {state.card_order})")
        lines.append(f"rows {state.rows}, discards {state.discards}, accusations {state.accusations}")
        lines.append(f"window {state.queue}@{state.queue_pos}, passed {state.window_passed}, owed {state.window_owed}")
        lines.append(f"holdings {state.holdings}, face-up {sorted(state.face_up)}, supply {state.supply}")
    else:
        lines.append("setting up")
    if course.question is not None:
        lines.append(f"chance: {course.question.kind} {course.partial} after {len(course.answers)} answer(s)")
    lines.append(f"returns {course.returns}, decisions {len(course.log)}")
    return "\n".join(lines)
