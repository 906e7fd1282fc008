"""The UECda game, as the contest's reference server tndhms referees it (UECDA.md §6).

Pure and immutable like the 2011 engine: applying a submission returns a new
state and what it turned out to be; randomness (seats, the deal, the ranks of
a 20-pass draw) comes only from the generator passed in. Every rule that
differs from the 2011 game is a switch of :class:`~.rules.Rules`.

**Players, seats.** tndhms numbers players 0–4 (the order they connected) and
seats them anew now and then; play goes from seat to seat. A state indexes
hands by player and keeps ``next_of``, the player after each player.

**Submissions are cells.** A bot submits an 8×15 table: a ``1`` for each card,
a ``2`` in the cell the joker stands for (UECDA.md §3). What the server does
with it depends on the cells, not only on the cards: the joker's cell gives
its suit to the lock and its number to an 8-cut, and malformed tables (two
``2`` cells, say) are rejected as passes. So a submission is read here as
tndhms reads it (:func:`analyze`): two bit masks of cells, ``ones`` and
``twos``, the cell of row ``r`` and column ``c`` being bit ``c * 5 + r``
(column-major, so a column is five adjacent bits). Rows 0–3 are ♠ ♥ ♦ ♣, row 4
only holds the joker; columns 1–13 are 3 … K A 2, columns 0 and 14 are joker-only
cells below the 3 and above the 2.

A judged submission is a :class:`Move`: tndhms's four figures of a play (its
lowest column, its size, its suit bits, its kind) and the cards it takes from
the hand. Bots and tests that hold cards rather than tables build moves with
:func:`analyze` or :func:`move_of_text`, or take them from :mod:`.uecda_legal`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from .cards import MARK, NUMBER, index_of_number
from .rules import TRICK_END_TNDHMS, UECDA, Rules

PLAYERS = 5
JOKER = 53  # the one joker of the 53-card deck; bit 53 of a hand
JOKER_BIT = 1 << JOKER
DECK = tuple(range(1, 54))
DECK_MASK = sum(1 << c for c in DECK)
DIAMOND_3 = 29  # card_id(3, 3): who holds it after the exchange leads the game
SPADE_3 = 3  # card_id(1, 3): the only answer to a lone joker

PASS, SINGLE, GROUP, STAIR, JOKER_SINGLE = 0, 1, 2, 3, 4
EIGHT_COLUMN = 6  # the column of the 8s
SIX_COLUMN = 4  # the 6s: with ``six_reverse`` they reverse the order of play
JACK_COLUMN = 9  # the jacks: with ``eleven_back`` they reverse strength for the trick


def cell(row: int, col: int) -> int:
    """Bit index of a table cell (column-major: a column is five adjacent bits)."""
    return col * 5 + row


def card_of(row: int, col: int) -> int:
    """The card id in a real card's cell (rows 0–3, columns 1–13)."""
    return row * 13 + (col + 1) % 13 + 1


#: The real card of each cell, 0 for the joker-only cells (columns 0 and 14, row 4).
CARD_OF_CELL = tuple(
    card_of(c % 5, c // 5) if c % 5 < 4 and 1 <= c // 5 <= 13 else 0 for c in range(75)
)
#: The cell of each card id (the joker's own cell is [4][1], where a hand holds it).
CELL_OF_CARD = tuple(
    0
    if cid == 0
    else cell(4, 1)
    if cid == JOKER
    else cell(MARK[cid] - 1, index_of_number(NUMBER[cid]) + 1)
    for cid in range(54)
)
#: Cells where a ``1`` is an error: columns 0 and 14 and row 4 (tndhms ``count_card_num``).
BAD_ONE_CELLS = sum(1 << c for c in range(75) if not CARD_OF_CELL[c])

#: The strongest first, as tndhms takes cards for the exchange: the joker, then
#: column 13 (the 2s) ♠ ♥ ♦ ♣, column 12 (the aces) ♠ ♥ ♦ ♣, and so on.
STRONG_ORDER = (JOKER, *(card_of(r, c) for c in range(13, 0, -1) for r in range(4)))


def column_of(cid: int) -> int:
    return CELL_OF_CARD[cid] // 5


class Move:
    """A submission as tndhms reads it, and the cards it takes from the hand.

    ``low``, ``size``, ``suit`` and ``kind`` are tndhms's ``status_of_submitted_card``:
    the lowest column, the number of cells, the suit bits (bit ``r`` for row
    ``r``) and the kind. ``lock_suit`` is the suit the lock compares (without the
    joker's row when the joker does not stand in). ``real_columns`` has bit ``c`` set when a real
    card of column ``c`` is in the move (the numbers it holds when the joker does not
    stand in). ``cards`` is the card mask (bit 53 for the joker); ``error`` is set
    for a malformed table, which is judged a pass.
    """

    __slots__ = (
        "ones",
        "twos",
        "low",
        "size",
        "suit",
        "kind",
        "cards",
        "error",
        "real_suit",
        "real_columns",
    )

    def __init__(
        self,
        ones: int,
        twos: int,
        low: int,
        size: int,
        suit: int,
        kind: int,
        cards: int,
        error: bool,
        real_suit: int,
        real_columns: int,
    ):
        self.ones = ones
        self.twos = twos
        self.low = low
        self.size = size
        self.suit = suit
        self.kind = kind
        self.cards = cards
        self.error = error
        self.real_suit = real_suit
        self.real_columns = real_columns

    def spans(self, column: int) -> bool:
        """tndhms ``check_special_card(column)``: a stair over the column, or a single or
        a group of its number (the joker standing in for whatever cell it is in)."""
        if self.kind == STAIR:
            return self.low <= column <= self.low + self.size - 1
        return self.low == column

    def holds(self, rules: Rules, column: int) -> bool:
        """The move holds a card of the column, for the rules that look at one (an 8, a 6, a
        J): the joker counts for its cell's number only when it stands in."""
        if rules.joker_stands_in:
            return self.spans(column)
        return bool(self.real_columns >> column & 1)

    def text(self) -> str:
        """The move as the FLAG_LOGGER log writes it (``S5H5``, ``KK`` …; ``""`` for a pass)."""
        return cells_text(self.ones, self.twos)

    def __repr__(self) -> str:
        return f"Move({self.text() or 'pass'})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and (self.ones, self.twos) == (other.ones, other.twos)

    def __hash__(self) -> int:
        return hash((self.ones, self.twos))


_SUIT_LETTERS = "SHDCJ"
_JOKER_LETTERS = "KLMNJ"
COLUMN_LETTERS = "x3456789TJQKA2x"


#: Each cell's place in the log's order (row by row; the bits go column by column).
_ROW_MAJOR = tuple(b % 5 * 15 + b // 5 for b in range(75))


@lru_cache(maxsize=4096)
def cells_text(ones: int, twos: int) -> str:
    """Cells in the log's notation, row by row as tndhms's logger writes them (only the
    cells set are visited, and made once per table: a server writes each submission's,
    and plays repeat)."""
    cells = []
    bits = ones | twos
    while bits:
        low = bits & -bits
        b = low.bit_length() - 1
        letters = _JOKER_LETTERS if twos & low else _SUIT_LETTERS
        cells.append((_ROW_MAJOR[b], letters[b % 5] + COLUMN_LETTERS[b // 5]))
        bits ^= low
    cells.sort()
    return "".join(text for _, text in cells)


def cards_text(mask: int) -> str:
    """A hand in the log's notation (the joker as ``J3``, its cell [4][1])."""
    ones = 0
    twos = 0
    for cid in DECK:
        if mask >> cid & 1:
            if cid == JOKER:
                twos |= 1 << cell(4, 1)
            else:
                ones |= 1 << CELL_OF_CARD[cid]
    return cells_text(ones, twos)


def analyze(ones: int, twos: int) -> Move:
    """Read a table as tndhms does (``count_card_num`` and ``analyze_card``).

    The lowest column holding anything decides where to look, and the first row
    holding something there: if that row also holds the next column the table
    is read as a stair along that row, otherwise as a group down that column.
    The table is an error (a pass) if a ``1`` sits in a joker-only cell, if it has
    two ``2`` cells or more, if a stair is shorter than 3, if row 4 is used but
    not by a five-card group, or if some cell lies outside the stair or group read.
    """
    cells = ones | twos
    if not cells:
        return Move(0, 0, 15, 0, 0, PASS, 0, False, 0, 0)
    n = cells.bit_count()
    error = bool(ones & BAD_ONE_CELLS) or twos.bit_count() >= 2
    first = (cells & -cells).bit_length() - 1
    low, row = divmod(first, 5)
    kind = SINGLE
    if n == 1:
        kind = JOKER_SINGLE if twos else SINGLE
    if low != 14 and cells >> cell(row, low + 1) & 1:
        size = 1
        c = low + 1
        while c <= 14 and cells >> cell(row, c) & 1:
            size += 1
            c += 1
        suit = 1 << row
        kind = STAIR
        error = error or size <= 2
    else:
        suit = cells >> (low * 5) & 31
        size = suit.bit_count()
        if kind == SINGLE and n > 1:
            kind = GROUP
    if suit >= 16 and suit != 31:
        error = True
    error = error or n != size
    cards = 0
    real_suit = 0
    real_columns = 0
    m = ones
    while m:
        b = m & -m
        cid = CARD_OF_CELL[b.bit_length() - 1]
        if cid:
            cards |= 1 << cid
            real_suit |= 1 << (MARK[cid] - 1)
            real_columns |= 1 << column_of(cid)
        m ^= b
    if twos:
        cards |= JOKER_BIT
    return Move(ones, twos, low, size, suit, kind, cards, error, real_suit, real_columns)


def move_of_text(text: str) -> Move:
    """A move from the log's notation (``S5H5``, ``KK``, ``""`` for a pass)."""
    ones, twos = parse_cells(text)
    return analyze(ones, twos)


class CellsFormatError(ValueError):
    """Text that is not a run of two-letter cells of the log's notation."""


def parse_cells(text: str) -> tuple[int, int]:
    """Read the log's cell notation into ``(ones, twos)``.

    The logger writes columns 0 and 14 both as ``x``; it writes a row's cells
    from column 0 up, so an ``x`` is column 0 when it comes first in its row and
    column 14 otherwise. It writes row 4 as ``J`` whatever the value: read as
    the joker (a ``1`` there is malformed anyway).
    """
    if len(text) % 2:
        raise CellsFormatError(f"odd number of letters in {text[:40]!r}")
    ones = twos = 0
    rows_seen = 0
    for i in range(0, len(text), 2):
        s, c = text[i], text[i + 1]
        if s in _SUIT_LETTERS[:4]:
            row, joker = _SUIT_LETTERS.index(s), False
        elif s in _JOKER_LETTERS:
            row, joker = _JOKER_LETTERS.index(s), True
        else:
            raise CellsFormatError(f"not a cell: {text[i : i + 2]!r}")
        if c == "x":
            col = 14 if rows_seen >> row & 1 else 0
        else:
            col = COLUMN_LETTERS.find(c, 1, 14)
            if col < 0:
                raise CellsFormatError(f"not a cell: {text[i : i + 2]!r}")
        rows_seen |= 1 << row
        if joker:
            twos |= 1 << cell(row, col)
        else:
            ones |= 1 << cell(row, col)
    return ones, twos


def cards_of_cells(ones: int, twos: int) -> int:
    """The cards of a table: its real cards, and the joker if any cell holds a ``2``. A
    ``1`` in a joker-only cell gives bit 0, never in a hand, and so do two ``2`` cells
    (tndhms counts them as an error, or as two cards): such a table is no hand's subset."""
    mask = (JOKER_BIT if twos else 0) | (1 if twos & (twos - 1) else 0)
    while ones:
        b = ones & -ones
        mask |= 1 << CARD_OF_CELL[b.bit_length() - 1]
        ones ^= b
    return mask


def parse_hand(text: str) -> int:
    """A hand in the log's notation as a card mask (``J3`` is the joker)."""
    ones, twos = parse_cells(text)
    if ones & BAD_ONE_CELLS or twos & ~(1 << cell(4, 1)):
        raise CellsFormatError(f"not a hand: {text[:60]!r}")
    return cards_of_cells(ones, twos)


# -- the game --

TURN, DRAW, OVER = "turn", "draw", "over"


class UecdaGame:
    """The position of one UECda game. Treat as immutable.

    ``phase`` is ``"turn"`` (``turn`` must submit), ``"draw"`` (20 passes in a
    row: the players still in await their random ranks, :func:`settle_draw`) or
    ``"over"``. ``ranks`` holds each player's rank, 1 best, 0 not yet.
    ``revolution`` is the order of strength the game is in, ``back`` an 11-back's
    reversal of it for the trick (:meth:`reversed_strength` is the two together);
    ``backwards`` says play goes to ``prev_of`` rather than ``next_of`` (a 6-reverse).
    """

    __slots__ = (
        "rules",
        "hands",
        "next_of",
        "phase",
        "turn",
        "stage",
        "revolution",
        "back",
        "backwards",
        "prev_of",
        "locked",
        "joker_single",
        "passed",
        "passes_in_row",
        "last_player",
        "ranks",
        "out",
        "turn_no",
    )

    rules: Rules
    hands: tuple[int, ...]
    next_of: tuple[int, ...]
    phase: str
    turn: int
    stage: Move | None
    revolution: bool
    back: bool
    backwards: bool
    prev_of: tuple[int, ...]
    locked: bool
    joker_single: bool
    passed: int
    passes_in_row: int
    last_player: int
    ranks: tuple[int, ...]
    out: int
    turn_no: int

    def copy(self) -> UecdaGame:
        """A copy to change (written out: every submission makes one)."""
        new = _new(UecdaGame)
        new.rules = self.rules
        new.hands = self.hands
        new.next_of = self.next_of
        new.phase = self.phase
        new.turn = self.turn
        new.stage = self.stage
        new.revolution = self.revolution
        new.back = self.back
        new.backwards = self.backwards
        new.prev_of = self.prev_of
        new.locked = self.locked
        new.joker_single = self.joker_single
        new.passed = self.passed
        new.passes_in_row = self.passes_in_row
        new.last_player = self.last_player
        new.ranks = self.ranks
        new.out = self.out
        new.turn_no = self.turn_no
        return new

    @property
    def reversed_strength(self) -> bool:
        """Lower beats higher in this trick: a revolution or an 11-back, not both
        (tndhms compares with ``(now_kakumei + now_11back) % 2``)."""
        return self.revolution != self.back

    def __repr__(self) -> str:
        return f"UecdaGame(phase={self.phase}, turn={self.turn}, stage={self.stage})"


_new = object.__new__


def play_order(seats: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Who plays after each player and who before, ``seats`` giving the player in each
    seat (play goes round the seats in order)."""
    players = len(seats)
    nxt = [0] * players
    for s, p in enumerate(seats):
        nxt[p] = seats[(s + 1) % players]
    return tuple(nxt), tuple(nxt.index(p) for p in range(players))


def new_game(rules: Rules, hands: Sequence[int], seats: Sequence[int]) -> UecdaGame:
    """A dealt and exchanged game: whoever holds the ♦3 leads (UECDA.md §6)."""
    lead = next(p for p, h in enumerate(hands) if h >> DIAMOND_3 & 1)
    return opening(rules, hands, *play_order(seats), lead)


def opening(
    rules: Rules,
    hands: Sequence[int],
    next_of: tuple[int, ...],
    prev_of: tuple[int, ...],
    lead: int,
) -> UecdaGame:
    """A game's first turn: ``lead`` to play, nothing played, no one out. A client's
    view of a game in play starts from it too (every field set, whatever it changes)."""
    g = _new(UecdaGame)
    g.rules = rules
    g.hands = tuple(hands)
    g.next_of = next_of
    g.prev_of = prev_of
    g.phase = TURN
    g.turn = lead
    g.stage = None
    g.revolution = False
    g.back = False
    g.backwards = False
    g.locked = False
    g.joker_single = False
    g.passed = 0
    g.passes_in_row = 0
    g.last_player = lead
    g.ranks = (0,) * len(hands)
    g.out = 0
    g.turn_no = 0
    return g


class NotYourTurn(ValueError):
    """A submission by a player who is not to move, or when no turn is open."""


class Outcome:
    """What one submission turned out to be."""

    __slots__ = (
        "player",
        "move",
        "accepted",
        "cleared",
        "rank",
        "eight_cut",
        "revolution",
        "spade3",
        "draw",
        "back",
        "locks",
    )

    def __init__(
        self,
        player: int,
        move: Move,
        accepted: bool,
        cleared: bool,
        rank: int,
        eight_cut: bool,
        revolution: bool,
        spade3: bool,
        draw: bool,
        back: bool,
        locks: bool,
    ):
        self.player = player
        self.move = move
        self.accepted = accepted  # False: a pass or a rejected submission (judged a pass)
        self.cleared = cleared  # the trick ended after this submission
        self.rank = rank  # the rank the player took by going out, 0 otherwise
        self.eight_cut = eight_cut
        self.revolution = revolution  # the order flipped
        self.spade3 = spade3  # a ♠3 returned a lone joker
        self.draw = draw  # the 20-pass draw began
        self.back = back  # the 11-back in force as the submission left it, before a clear
        self.locks = locks  # the play locked the trick to its suits (it was not locked before)


def beats(stage: Move, m: Move, revolution: bool) -> bool:
    """tndhms's ``compare_card_status`` on a field that is not empty: the same size,
    the same kind (a lone joker also follows a single), and stronger. Groups
    compare their column; singles and stairs must lie wholly above the field
    (wholly below it in a revolution)."""
    if stage.size != m.size:
        return False
    if m.kind == JOKER_SINGLE and stage.kind == SINGLE:
        return True
    if stage.kind != m.kind:
        return False
    if stage.kind == GROUP:
        return m.low < stage.low if revolution else m.low > stage.low
    if revolution:
        return m.low + stage.size <= stage.low
    return m.low >= stage.low + stage.size


def lock_suit(rules: Rules, m: Move) -> int:
    """The suits a lock compares: the joker's row too when it stands in."""
    return m.suit if rules.joker_stands_in else m.real_suit


def _rejects(g: UecdaGame, hand: int, m: Move) -> bool:
    """tndhms's include, analyze and compare checks (not the lock, not the joker)."""
    if m.error:
        return True
    if m.ones and (m.cards & ~JOKER_BIT) & ~hand:
        return True
    if m.twos and not hand & JOKER_BIT:
        return True
    return g.stage is not None and not beats(g.stage, m, g.reversed_strength)


def judge(g: UecdaGame, player: int, m: Move) -> tuple[bool, bool, bool, bool]:
    """Judge a submission of ``player`` in the order of tndhms's checks (``daihu.c``
    1183–1330), which decides what a lock or a lone joker does to a submission
    that breaks two rules.

    Returns ``(accepted, locked, joker_single, spade3)``: whether the cards are
    taken, and the lock and lone-joker flags after it.
    """
    rules = g.rules
    hand = g.hands[player]
    error = _rejects(g, hand, m)
    locked = g.locked
    if rules.lock and not error and m.kind != JOKER_SINGLE:
        stage = g.stage
        stage_suit = -1 if stage is None else lock_suit(rules, stage)
        if locked:
            error = lock_suit(rules, m) != stage_suit
        else:
            locked = lock_suit(rules, m) == stage_suit
    joker_single = g.joker_single
    spade3 = False
    if joker_single:
        if (
            rules.spade3_return
            and m.low == 1
            and m.size == 1
            and m.suit == 1
            and hand >> SPADE_3 & 1
        ):
            error = False
            joker_single = False
            spade3 = True
        else:
            error = True
    if not error and m.kind == JOKER_SINGLE:
        joker_single = True
        locked = False
    if not error and m.kind == STAIR and not rules.stairs:
        error = True  # after the lock has seen it, as tndhms checks it last
    return not error and m.size != 0, locked, joker_single, spade3


def turns_order(rules: Rules, m: Move) -> bool:
    """A play of ``m`` (no lone joker) turns the order of play round: the 6-reverse."""
    return rules.six_reverse and m.holds(rules, SIX_COLUMN)


def submit(g: UecdaGame, player: int, m: Move) -> tuple[UecdaGame, Outcome]:
    """Apply one submission of the player to move: a play, a pass or a rejected table."""
    if g.phase != TURN or player != g.turn:
        raise NotYourTurn(
            f"player {player} submitted; the game is {g.phase}, player {g.turn} to move"
        )
    rules = g.rules
    accepted, locked, joker_single, spade3 = judge(g, player, m)
    locks = accepted and locked and not g.locked
    new = g.copy()
    new.turn_no = g.turn_no + 1
    new.locked = locked
    new.joker_single = joker_single
    flash = spade3
    rank = 0
    eight_cut = False
    flipped = False
    if not accepted:
        new.passed = g.passed | (1 << player)
        new.passes_in_row = g.passes_in_row + 1
    else:
        new.stage = m
        hands = list(g.hands)
        hands[player] &= ~m.cards
        new.hands = tuple(hands)
        new.last_player = player
        new.passes_in_row = 0
        if not hands[player]:
            new.out = g.out + 1
            rank = new.out
            ranks = list(g.ranks)
            ranks[player] = rank
            new.ranks = tuple(ranks)
        if not joker_single:
            if rules.revolution and (
                m.kind == GROUP
                and m.size >= 4
                or rules.stair_revolution
                and m.kind == STAIR
                and m.size >= 5
            ):
                new.revolution = not g.revolution
                flipped = True
            cuts = rules.eight_cut and (m.kind != STAIR or rules.eight_cut_in_stairs)
            if cuts and m.holds(rules, EIGHT_COLUMN):
                flash = eight_cut = True
            if turns_order(rules, m):
                new.backwards = not g.backwards
            if rules.eleven_back and m.holds(rules, JACK_COLUMN):
                new.back = not g.back
    players = len(g.hands)
    out = new.out
    if rules.pass_draw and new.passes_in_row >= rules.pass_draw and out < players - 1:
        new.phase = DRAW
        return new, Outcome(
            player, m, accepted, False, rank, eight_cut, flipped, spade3, True, new.back, locks
        )
    if out >= players - 1:  # one player left: they take the last rank
        new.ranks = tuple(r or players for r in new.ranks)
        new.phase = OVER
        return new, Outcome(
            player, m, accepted, True, rank, eight_cut, flipped, spade3, False, new.back, locks
        )
    hands = new.hands
    if not flash:
        if rules.trick_end == TRICK_END_TNDHMS:
            flash = new.passed.bit_count() >= players - 1 - out
        else:
            holding = sum(1 << p for p, h in enumerate(hands) if h)
            flash = not holding & ~new.passed & ~(1 << new.last_player)
    back = new.back
    nxt = new.prev_of if new.backwards else new.next_of
    if flash:
        now = new.last_player
        while not hands[now]:
            now = nxt[now]
        new.turn = now
        new.last_player = now
        new.stage = None
        new.passed = 0
        new.locked = False
        new.joker_single = False
        new.back = False
    else:
        now = nxt[player]
        passed = new.passed
        while not hands[now] or passed >> now & 1:
            now = nxt[now]
        new.turn = now
    return new, Outcome(
        player, m, accepted, flash, rank, eight_cut, flipped, spade3, False, back, locks
    )


def draw_order(g: UecdaGame, rng: random.Random) -> list[int]:
    """The players still in, in a random order of rank (the 20-pass draw)."""
    left = [p for p, r in enumerate(g.ranks) if not r]
    rng.shuffle(left)
    return left


def settle_draw(g: UecdaGame, order: Sequence[int]) -> UecdaGame:
    """End a drawn game: ``order`` lists the players still in, best rank first."""
    if g.phase != DRAW:
        raise ValueError(f"the game is {g.phase}, not drawn")
    left = sorted(p for p, r in enumerate(g.ranks) if not r)
    if sorted(order) != left:
        raise ValueError(f"a draw ranks the players still in, {left}, not {list(order)}")
    ranks = list(g.ranks)
    for i, p in enumerate(order):
        ranks[p] = g.out + 1 + i
    new = g.copy()
    new.ranks = tuple(ranks)
    new.phase = OVER
    return new


# -- before the game: seats, the deal, the exchange --


def first_of_period(rules: Rules, game_no: int) -> bool:
    """Game ``game_no`` (from 1) starts a rank period: no exchange, ranks unknown."""
    return game_no == 1 or bool(rules.rank_period) and (game_no - 1) % rules.rank_period == 0


def exchanges(rules: Rules, game_no: int) -> bool:
    """Game ``game_no`` (from 1) begins with the exchange: ``exchange`` is on and the
    game does not start a rank period, as tndhms tests it (``n % FLASH_MIBUN_NUMBER !=
    1``: with a period of 1, every game exchanges, the first included)."""
    period = rules.rank_period
    return rules.exchange and (game_no % period != 1 if period else game_no != 1)


def reseats(rules: Rules, game_no: int) -> bool:
    """The seats are drawn anew before game ``game_no`` (tndhms: ``game % n == 1``)."""
    period = rules.seat_shuffle_period
    return bool(period) and game_no % period == 1 % period


def draw_seats(rng: random.Random, players: int = PLAYERS) -> tuple[int, ...]:
    seats = list(range(players))
    rng.shuffle(seats)
    return tuple(seats)


def deal(rng: random.Random, seats: Sequence[int], start_player: int) -> tuple[int, ...]:
    """Shuffle the 53 cards and deal them one at a time, seat by seat, from the
    seat of ``start_player``: that seat and the next two get 11 cards."""
    deck = list(DECK)
    rng.shuffle(deck)
    players = len(seats)
    start = list(seats).index(start_player)
    hands = [0] * players
    for i, cid in enumerate(deck):
        hands[seats[(start + i) % players]] |= 1 << cid
    return tuple(hands)


def deal_sizes(seats: Sequence[int], start_player: int) -> tuple[int, ...]:
    """How many cards each player is dealt when the deal starts at ``start_player``."""
    players = len(seats)
    start = list(seats).index(start_player)
    sizes = [0] * players
    for i in range(len(DECK)):
        sizes[seats[(start + i) % players]] += 1
    return tuple(sizes)


def strongest(hand: int, n: int) -> int:
    """The ``n`` strongest cards of a hand, in tndhms's exchange order (mask)."""
    out = 0
    for cid in STRONG_ORDER:
        if n == 0:
            break
        if hand >> cid & 1:
            out |= 1 << cid
            n -= 1
    return out


def stronger_than(cards: int) -> int:
    """Every card before the last of ``cards`` in the exchange order, ``cards`` aside:
    a player who gave ``cards`` as its strongest held none of them."""
    out = 0
    for cid in STRONG_ORDER:
        if cards >> cid & 1:
            cards &= ~(1 << cid)
            if not cards:
                return out
        else:
            out |= 1 << cid
    return out


def weakest(hand: int, n: int) -> int:
    """The ``n`` weakest cards (the reverse of the exchange order)."""
    out = 0
    for cid in reversed(STRONG_ORDER):
        if n == 0:
            break
        if hand >> cid & 1:
            out |= 1 << cid
            n -= 1
    return out


class Exchange:
    """Cards that moved before the game: ``giver`` to ``receiver``; ``chosen`` when the
    giver's own choice was taken (False: the automatic cards or tndhms's fallback);
    ``erased``: the card the choice made vanish (:func:`erased_by`), if any."""

    __slots__ = ("giver", "receiver", "cards", "chosen", "erased")

    def __init__(self, giver: int, receiver: int, cards: int, chosen: bool, erased: int = 0):
        self.giver = giver
        self.receiver = receiver
        self.cards = cards
        self.chosen = chosen
        self.erased = erased

    def __repr__(self) -> str:
        return f"Exchange({self.giver}->{self.receiver} {cards_text(self.cards)}{' chosen' if self.chosen else ''})"


def _move(
    hands: list[int], moves: list[Exchange], giver: int, receiver: int, cards: int, chosen: bool
) -> None:
    hands[giver] &= ~cards
    hands[receiver] |= cards
    moves.append(Exchange(giver, receiver, cards, chosen))


def tribute(hands: Sequence[int], ranks: Sequence[int]) -> tuple[tuple[int, ...], list[Exchange]]:
    """The exchange's automatic half: the daihinmin gives the daifugo its 2 strongest
    cards, the hinmin the fugo its strongest. The rich choose from what they then hold."""
    players = len(hands)
    who = {r: p for p, r in enumerate(ranks)}
    new = list(hands)
    moves: list[Exchange] = []
    _move(new, moves, who[players], who[1], strongest(new[who[players]], 2), False)
    _move(new, moves, who[players - 1], who[2], strongest(new[who[players - 1]], 1), False)
    return tuple(new), moves


def erased_by(ones: int, twos: int) -> int:
    """The card a rich player's choice makes vanish: tndhms moves a chosen joker by
    clearing the cell it was written in (``trans_work_card``), so a joker written in the
    cell of a real card the player holds takes that card out of the game too. The card
    of that cell (mask), 0 when the joker is in a joker-only cell or not chosen."""
    if not twos:
        return 0
    cid = CARD_OF_CELL[twos.bit_length() - 1]
    return 1 << cid if cid else 0


def exchange(
    rules: Rules,
    hands: Sequence[int],
    ranks: Sequence[int],
    daifugo_gives: int | None = None,
    fugo_gives: int | None = None,
    erased: tuple[int, int] = (0, 0),
) -> tuple[tuple[int, ...], list[Exchange]]:
    """The exchange of a game after the first of a rank period (``ranks``: 1 best).

    After the :func:`tribute`, the daifugo gives back 2 cards and the fugo 1. With
    ``exchange_by_choice`` those are the cards they chose, from the hand they now
    hold, if the choice is a subset of it of the right size; otherwise, as tndhms
    does, their strongest. Without it, their weakest. ``erased``: the cards the
    daifugo's and the fugo's choices would make vanish (:func:`erased_by`), gone from
    their hands when the choice is taken.
    """
    players = len(hands)
    who = {r: p for p, r in enumerate(ranks)}
    paid, moves = tribute(hands, ranks)
    new = list(paid)
    for rich, poor, n, choice, lost in (
        (who[1], who[players], 2, daifugo_gives, erased[0]),
        (who[2], who[players - 1], 1, fugo_gives, erased[1]),
    ):
        if not rules.exchange_by_choice:
            _move(new, moves, rich, poor, weakest(new[rich], n), False)
        elif choice is not None and choice.bit_count() == n and not choice & ~new[rich]:
            _move(new, moves, rich, poor, choice, True)
            lost &= new[rich]
            new[rich] &= ~lost
            moves[-1].erased = lost
        else:
            _move(new, moves, rich, poor, strongest(new[rich], n), False)
    return tuple(new), moves


# -- a match: games in a row, as tndhms runs them --


class UecdaMatch:
    """Where a match stands between games. Treat as immutable.

    ``games`` is the number of games played; ``seats`` the player in each seat
    of the last game; ``ranks`` each player's rank in the last game (1 best),
    None before the first; ``points`` each player's total (5 for a daifugo … 1).
    """

    __slots__ = ("rules", "games", "seats", "ranks", "points")

    def __init__(
        self,
        rules: Rules,
        games: int = 0,
        seats: tuple[int, ...] = tuple(range(PLAYERS)),
        ranks: tuple[int, ...] | None = None,
        points: tuple[int, ...] = (0,) * PLAYERS,
    ):
        self.rules = rules
        self.games = games
        self.seats = seats
        self.ranks = ranks
        self.points = points


class Deal:
    """The start of a game: its number (from 1), the seats, whose seat the deal
    started from, the hands as dealt, the ranks known (None: the first game of a rank
    period) and the ranks its exchange follows (None: no exchange). Those are the
    known ranks but in tndhms's games with ``FLASH_MIBUN_NUMBER`` 1, which hide them and
    still exchange by the last game's ranks (in game 1, by the players' numbers)."""

    __slots__ = ("game_no", "seats", "start", "dealt", "ranks", "exchange_ranks")

    def __init__(
        self,
        game_no: int,
        seats: tuple[int, ...],
        start: int,
        dealt: tuple[int, ...],
        ranks: tuple[int, ...] | None,
        exchange_ranks: tuple[int, ...] | None = None,
    ):
        self.game_no = game_no
        self.seats = seats
        self.start = start
        self.dealt = dealt
        self.ranks = ranks
        self.exchange_ranks = exchange_ranks


def exchange_ranks(
    rules: Rules, game_no: int, last: tuple[int, ...] | None, players: int = PLAYERS
) -> tuple[int, ...] | None:
    """The ranks game ``game_no``'s exchange follows, given the last game's (None before
    the first, when tndhms's ranks are the players' numbers), or None: no exchange."""
    if not exchanges(rules, game_no):
        return None
    return last if last is not None else tuple(range(1, players + 1))


def deal_game(match: UecdaMatch, rng: random.Random, ranks: tuple[int, ...] | None = None) -> Deal:
    """Seat (when the seat period says so) and deal the next game of a match. ``ranks``:
    those its exchange follows (and its deal starts from) in place of the game before's
    (duplicate deals: drawn from the seed, so that they are the same in every rotation)."""
    rules = match.rules
    game_no = match.games + 1
    seats = draw_seats(rng, len(match.seats)) if reseats(rules, game_no) else match.seats
    last = ranks or match.ranks
    ranks = None if first_of_period(rules, game_no) else last
    if ranks is None or not rules.deal_from_daifugo:
        start = rng.randrange(len(seats))
    else:
        start = ranks.index(1)
    given = exchange_ranks(rules, game_no, last, len(seats))
    return Deal(game_no, seats, start, deal(rng, seats, start), ranks, given)


def start_game(
    deal: Deal,
    rules: Rules,
    daifugo_gives: int | None = None,
    fugo_gives: int | None = None,
    erased: tuple[int, int] = (0, 0),
) -> tuple[UecdaGame, list[Exchange]]:
    """The game of a deal, after its exchange (the rich's choices, if any, and the cards
    they would erase: :func:`exchange`)."""
    if deal.exchange_ranks is None:
        return new_game(rules, deal.dealt, deal.seats), []
    hands, moves = exchange(
        rules, deal.dealt, deal.exchange_ranks, daifugo_gives, fugo_gives, erased
    )
    return new_game(rules, hands, deal.seats), moves


def points_for(rank: int, players: int = PLAYERS) -> int:
    """A game's points: 5 for the daifugo … 1 for the daihinmin (tndhms ``5 - mibun``)."""
    return UECDA.points_for(rank, players)


def finish_game(match: UecdaMatch, deal: Deal, game: UecdaGame) -> UecdaMatch:
    """The match after a game is over: its ranks and points kept."""
    if game.phase != OVER:
        raise ValueError(f"the game is {game.phase}, not over")
    points = tuple(p + points_for(r) for p, r in zip(match.points, game.ranks, strict=True))
    return UecdaMatch(match.rules, deal.game_no, deal.seats, game.ranks, points)
