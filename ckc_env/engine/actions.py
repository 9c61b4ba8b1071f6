"""The action table: one discrete space for every decision of the game.

| id | name | legal when |
|---|---|---|
| 0 | ``pass`` | accusation window, the player may still accuse |
| 1 + c (1..32) | ``accuse cat c`` | window or forced accusation: cat c lies in a row and nobody accused it |
| 33 | ``clue face A`` | ``clue_face="choose"``: show value A of the own tile's feature |
| 34 | ``clue face B`` | ``clue_face="choose"``: show value B |
| 35 | ``keep`` | Cafe Adler: keep the hidden Cafe Adler chip |
| 36 + k - 1 (36..39) | ``swap with seat +k`` | Cafe Adler: swap with the player k seats clockwise (k = 1..4) |

Seats in actions are relative to the acting player, as in the observation.
"""

from __future__ import annotations

from .cards import N_CATS, cat_name

PASS = 0
ACCUSE = 1
CLUE_FACE_A = ACCUSE + N_CATS  # 33
CLUE_FACE_B = CLUE_FACE_A + 1  # 34
KEEP = CLUE_FACE_B + 1  # 35
SWAP = KEEP + 1  # 36: swap with the next seat clockwise
N_ACTIONS = SWAP + 4  # 40

# Decision kinds: what the acting player is asked.
WINDOW, FORCED_ACCUSATION, CLUE_FACE, CAFE_ADLER = range(4)
DECISION_KINDS = ("window", "forced_accusation", "clue_face", "cafe_adler")


def accuse(cat: int) -> int:
    return ACCUSE + cat


def swap(offset: int) -> int:
    """Swap with the player ``offset`` seats clockwise (1..4)."""
    return SWAP + offset - 1


def action_to_string(action: int) -> str:
    if action == PASS:
        return "pass"
    if ACCUSE <= action < ACCUSE + N_CATS:
        cat = action - ACCUSE
        return f"accuse cat {cat} ({cat_name(cat)})"
    if action == CLUE_FACE_A:
        return "clue face A"
    if action == CLUE_FACE_B:
        return "clue face B"
    if action == KEEP:
        return "keep"
    if SWAP <= action < N_ACTIONS:
        return f"swap with seat +{action - SWAP + 1}"
    raise ValueError(f"unknown action {action!r}: actions are integers 0..{N_ACTIONS - 1}")
