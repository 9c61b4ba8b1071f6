"""The whole state of one game, declared once.

Every field of a game in progress is declared here with what it means. The rules modules
(``round_setup``, ``suspicion``, ``scoring``, ``summary``) and the state machine (``game``) read and
write these fields and nothing else; views, observations and agents only read them.

Conventions: seats are absolute (0..n-1; -1 = nobody); cats are 0..31 and investigator cards 32;
clues are ``2 * feature + side`` (0..9); a set of cats is a 32-bit mask (bit c = cat c); chips are
ids into the game's :class:`~ckc_env.engine.chips.ChipPool`. The batched engine keeps the same
fields as arrays with a leading batch axis.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..config import GameConfig
from .chance import ChanceSource, Stream, StreamChance
from .chips import ChipPool
from .options import ResetOptions

# Phases of a round, in order; from SCORING on, the round's clues are revealed (RULES.md 5).
CHOOSING_FACES, DRAWING, IN_WINDOW, FORCED, SCORING, SWAPPING, GAME_OVER = range(7)
PHASES = ("choosing_faces", "drawing", "in_window", "forced", "scoring", "swapping", "game_over")
NOBODY = -1


@dataclass(slots=True, eq=False)
class GameState:
    """One game of Checkpoint Charlie: everything the rules need, public and hidden alike."""

    # --- the game's set-up (fixed from reset on)
    config: GameConfig
    n: int  # players (config.num_players)
    pool: ChipPool  # every chip of the game: colour, printed value, kind (RULES.md 1, 7, 8)
    stream: Stream  # the source of randomness (RULES.md 9): the game's counter-based stream (``chance``)
    options: ResetOptions  # parts of the deal fixed by reset options
    chance: ChanceSource | None = None  # what answers the chance questions: the stream unless another source is given

    # --- progress
    round_index: int = 0  # 0-based
    phase: int = GAME_OVER
    game_over: bool = False
    first_player: int = 0  # of this round (RULES.md 2, 3.3)
    next_first_player: int = 0  # of the next round: whoever caught the chief, else the same

    # --- clues (RULES.md 3.1, 4, 7)
    tiles: list[int] = field(default_factory=list)  # the feature of each seat's tile
    clues: list[int] = field(default_factory=list)  # each seat's clue (-1 while its face is to be chosen)
    bag: list[int] = field(default_factory=list)  # clues of the tiles left in the bag, in reveal order (hidden)
    public_clues: list[int] = field(default_factory=list)  # bag clues revealed by investigator cards so far
    stasi_exposed: int = NOBODY  # seat whose clue lies face-up this round (it took the Stasi chip last round)

    # --- cards (RULES.md 3.2, 4)
    deck: list[int] = field(default_factory=list)  # top first
    deck_pos: int = 0  # cards drawn so far this round
    drawer: int = 0  # whose turn it is to draw (the last card's drawer until its window closes)
    last_card: int = -1
    last_drawer: int = NOBODY
    rows: list[int] = field(default_factory=list)  # cats in each seat's row of suspects
    discards: list[int] = field(default_factory=list)  # cats on each seat's discard pile
    row_cats: int = 0  # every cat in a row (the union of ``rows``)
    card_order: list[tuple[int, int]] = field(default_factory=list)  # (drawer, card) of each card drawn, in order

    # --- accusations (RULES.md 4)
    accusations: list[tuple[int, int]] = field(default_factory=list)  # (seat, cat) in the order made
    accused_by: list[int] = field(default_factory=list)  # the cat each seat accused this round (-1: none)
    accused_at: list[int] = field(default_factory=list)  # cards drawn this round when each seat accused (0: none)
    accused_cats: int = 0
    round_over: bool = False  # all players but one have accused

    # --- the pending decision
    pending_kind: int = -1  # an ``actions`` decision kind, -1 when nobody is asked
    pending_seat: int = NOBODY
    pending_chip: int = -1  # the Cafe Adler chip being decided about
    queue: list[int] = field(default_factory=list)  # seats to ask in this phase, in order
    queue_pos: int = 0
    window_order: list[int] = field(default_factory=list)  # the open window's order (``reopen_windows``)
    window_passed: int = 0  # seats (bit s) that passed in the open window since the last accusation
    window_owed: int = 0  # seats owed another decision by an accusation made after they passed
    adler_offered: set[tuple[int, int]] = field(default_factory=set)  # (seat, chip) asked this scoring phase

    # --- chips (RULES.md 1, 2, 5, 7, 8)
    supply: list[list[int]] = field(default_factory=list)  # per colour, face-down; the last id is taken next
    holdings: list[list[int]] = field(default_factory=list)  # each seat's chips
    chip_table: list[list[int]] = field(default_factory=list)  # what the table sees of each seat's
    # chips: by colour (gold, white, black), then its face-up Cafe Adler chips by colour
    face_up: set[int] = field(default_factory=set)  # Cafe Adler chips received in a swap (never swapped again)
    stasi_taker: int = NOBODY  # who took the Stasi chip in this round's hand-out (exposed next round)

    # --- this round's scoring
    round_chief: int = -1
    served: list[tuple[int, int, int, int]] = field(default_factory=list)  # (seat, cat or -1, colour, chip or -1)
    swaps: list[tuple[int, int, int]] = field(default_factory=list)  # (seat, other, colour) of each Adler swap

    # --- what the game reports
    rewards: list[float] = field(default_factory=list)  # chip points won since the last ``pop_rewards``
    summaries: list[dict[str, Any]] = field(default_factory=list)  # the public record of each finished round
    final: dict[str, Any] | None = None  # totals, gold, winners and reasons once the game is over

    def __post_init__(self) -> None:
        if self.chance is None:
            self.chance = StreamChance(self.stream)

    def copy(self) -> GameState:
        """An independent copy (the configuration, chip pool and reset options, which never change,
        are shared): for searches and front-ends that try an action and may go back."""
        stream = Stream(self.stream.key)
        stream.counter = self.stream.counter
        chance = StreamChance(stream) if isinstance(self.chance, StreamChance) else self.chance
        out = GameState(
            config=self.config, n=self.n, pool=self.pool, stream=stream, options=self.options, chance=chance
        )
        for name in _VALUES:
            setattr(out, name, getattr(self, name))
        for name in _LISTS:
            setattr(out, name, list(getattr(self, name)))
        for name in _NESTED:
            setattr(out, name, [list(inner) for inner in getattr(self, name)])
        out.adler_offered = set(self.adler_offered)
        out.face_up = set(self.face_up)
        return out

    @property
    def current_seat(self) -> int:
        """The seat that has to decide (-1 when the game is over)."""
        return self.pending_seat if self.pending_kind >= 0 else NOBODY

    @property
    def stasi_card(self) -> int:
        """The seat holding the Stasi card (RULES.md 7): the exposed seat during the suspicion phase;
        at scoring the card goes back to the middle, and from the hand-out on the Stasi chip's taker
        holds it (exposed next round)."""
        return self.stasi_exposed if self.phase < SCORING else self.stasi_taker


_VALUES = (
    "round_index", "phase", "game_over", "first_player", "next_first_player", "stasi_exposed", "deck_pos", "drawer",
    "last_card", "last_drawer", "row_cats", "accused_cats", "round_over", "pending_kind", "pending_seat",
    "pending_chip", "queue_pos", "window_passed", "window_owed", "stasi_taker", "round_chief", "final",
)  # fmt: skip
"""Fields that are numbers, or objects the engine replaces but never changes in place (``final``)."""
_LISTS = (
    "tiles", "clues", "bag", "public_clues", "deck", "rows", "discards", "card_order", "accusations", "accused_by",
    "accused_at", "queue", "window_order", "served", "swaps", "rewards", "summaries",
)  # fmt: skip
"""Lists of numbers or of tuples and dicts that are never changed once in them."""
_NESTED = ("supply", "holdings", "chip_table")
"""Lists of lists."""
