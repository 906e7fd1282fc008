"""What a player sees on its turn, under any rule book: one interface for every strategy.

A strategy is a function of one :class:`View` that answers one of ``view.moves``, or None
for a pass. The 2011 book's moves are :class:`~.plays.Play` objects and its card ids
are the 2011 wire's; UECda's are :class:`~.uecda.Move` objects on tndhms's ids. A
strategy that reads a move through the view (:meth:`View.cards`, :meth:`View.strength`,
:meth:`View.is_stair`, ``move.size``) and the book's card sets (:attr:`View.strongest`,
:attr:`Book.jokers`, :attr:`Book.twos`) plays both books unchanged, where its moves
exist. The 2011 client's wire and the UECda client's wire both build this view
(:func:`view_2011`, :func:`view_uecda`), and so do the arena and the server's house bots.

:meth:`Book.answer` turns what a strategy answered into what the book's referee takes,
and refuses anything else with a ``TypeError`` (a bot author's bug, reported by the
caller): the one check of an answer, wherever a strategy plays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import game as g
from . import uecda as u
from .cards import DECK_MASK, INDEX_MASK, JOKER_MASK
from .infoset import InfoSet
from .legal import legal_plays
from .plays import Kind, Play
from .rules import DAIHINMIN_2011_NAME, UECDA, UECDA_NAME, Rules
from .uecda_legal import leads, legal_moves
from .uecda_stock import stock_move
from .uecda_stock import strength as uecda_strength

#: A move of either book: a 2011 :class:`~.plays.Play` or a UECda :class:`~.uecda.Move`.
Move = Any
#: What a book's playouts fall back on when it has no policy of its own to keep
#: (:meth:`Book.policy_move`).
NO_POLICY: Any = object()


def _seat_counts(unseen: int, own: int, players: int = 5) -> list[int]:
    """A guess of the others' hand counts when nobody said them: as many as the seat
    holds, as far as the unseen cards go."""
    each = min(max(own, 1), unseen.bit_count() // (players - 1))
    return [own] + [each] * (players - 1)


def _with_counts(position: Any, hand: int, unseen: int, counts: list[int]) -> InfoSet:
    """Seat 0's information set in a position of blank hands where the others hold
    ``counts`` of the ``unseen`` cards."""
    return InfoSet(0, hand, position, tuple(counts), unseen, (0,) * len(counts))


class Book:
    """One rule book's moves and cards, as a strategy reads them."""

    name: str
    jokers: int  # the joker(s), as a card mask
    twos: int  # the four 2s
    threes: int  # the four 3s

    def cards(self, move: Move) -> int:
        raise NotImplementedError

    def strength(self, move: Move, revolution: bool) -> int:
        """Higher beats lower, under the order in force (comparable within a kind and size)."""
        raise NotImplementedError

    def is_stair(self, move: Move) -> bool:
        raise NotImplementedError

    def leads(self, hand: int, revolution: bool) -> Sequence[Move]:
        """Every move ``hand`` could lead (a strategy weighs the shape of a hand by them)."""
        raise NotImplementedError

    def guessed(self, view: View) -> InfoSet:
        """An information set from the view alone (seat 0, the others' counts guessed,
        every card not seen still in play): what a caller that keeps none gives."""
        raise NotImplementedError

    def policy_move(self, view: View) -> Move:
        """The move the book's playout policy would make, or :data:`NO_POLICY`."""
        return NO_POLICY

    def answer(self, view: View, answer: object) -> Any:
        """What the referee takes for ``answer``; ``TypeError`` if it is no move."""
        raise NotImplementedError


class Book2011(Book):
    """The 2011 platform's book: plays are :class:`~.plays.Play` readings, answered to the
    referee as card masks. It has no pass on a lead: with no legal lead (a lone joker,
    say) a player can only miss, and its whole hand is what it plays."""

    name = DAIHINMIN_2011_NAME
    jokers = JOKER_MASK
    twos = INDEX_MASK[12]
    threes = INDEX_MASK[0]

    def cards(self, move: Play) -> int:
        return move.mask

    def strength(self, move: Play, revolution: bool) -> int:
        return move.strength  # read under the order in force by legal_plays

    def is_stair(self, move: Play) -> bool:
        return move.kind == Kind.STAIR

    def leads(self, hand: int, revolution: bool) -> Sequence[Play]:
        return legal_plays(hand, None, revolution)

    def guessed(self, view: View) -> InfoSet:
        table = view.table
        unseen = DECK_MASK & ~view.hand & ~(table.mask if table else 0)
        counts = _seat_counts(unseen, view.hand.bit_count())
        position = g.GameState(
            game_no=1,
            hands=(0,) * len(counts),
            phase=g.TURN_OPEN,
            turn=0,
            table=table,
            revolution=view.revolution,
            last_player=-1 if table is None else 4,
        )
        return _with_counts(position, view.hand, unseen, counts)

    def answer(self, view: View, answer: object) -> int | None:
        """A card mask, or None for a pass. A play answers its mask; a mask (what the
        evaluator's candidates and the 2011 interface answer) is taken as it is."""
        if answer is None:
            return view.hand if view.table is None and not view.moves else None
        if isinstance(answer, Play):
            return answer.mask
        if (
            isinstance(answer, bool)
            or not isinstance(answer, int)
            or answer < 0
            or answer & ~DECK_MASK
        ):
            raise TypeError(f"answered {answer!r}: not a card mask, a play or None")
        return answer


def _column(col: int) -> int:
    return sum(1 << u.card_of(row, col) for row in range(4))


class BookUecda(Book):
    """UECda's book as tndhms plays it (every switch): moves are :class:`~.uecda.Move`
    objects, a pass is always allowed."""

    name = UECDA_NAME
    jokers = u.JOKER_BIT
    twos = _column(13)
    threes = _column(1)

    def cards(self, move: u.Move) -> int:
        return move.cards

    def strength(self, move: u.Move, revolution: bool) -> int:
        return uecda_strength(move, revolution)

    def is_stair(self, move: u.Move) -> bool:
        return move.kind == u.STAIR

    def leads(self, hand: int, revolution: bool) -> Sequence[u.Move]:
        return leads(hand)

    def guessed(self, view: View) -> InfoSet:
        hand, stage = view.hand, view.table
        unseen = u.DECK_MASK & ~hand & ~(stage.cards if stage else 0)
        counts = _seat_counts(unseen, hand.bit_count())
        position = u.opening(UECDA, (0,) * len(counts), *u.play_order(range(len(counts))), 0)
        position.stage = stage
        position.revolution = view.revolution  # an 11-back's reversal included: a guess
        position.locked = view.locked
        position.joker_single = stage is not None and stage.kind == u.JOKER_SINGLE
        position.last_player = 0 if stage is None else 4
        return _with_counts(position, hand, unseen, counts)

    def policy_move(self, view: View) -> u.Move | None:
        """The stock client's move: the UECda playouts' policy (``daifugo.evaluate``)."""
        return stock_move(view.hand, view.table, view.moves, view.revolution)

    def answer(self, view: View, answer: object) -> u.Move | None:
        if answer is not None and not isinstance(answer, u.Move):
            raise TypeError(f"answered {answer!r}, not a Move or None")
        return answer


BOOK_2011 = Book2011()
BOOK_UECDA = BookUecda()


@dataclass(frozen=True, slots=True)
class View:
    """What a player sees on its turn."""

    book: Book
    hand: int  # a card mask, on the book's card ids
    table: Move | None  # the move to beat; None: the player leads
    revolution: bool  # lower beats higher now (UECda: an 11-back's reversal included)
    moves: Sequence[Move]  # every move the referee accepts now; a pass aside
    locked: bool = False  # the trick is locked to the suits of ``table`` (UECda)
    #: The player's information set, where the caller keeps one (the arena, the UECda
    #: client, a UECda match's house seats); else None, and a strategy that needs one
    #: takes :meth:`Book.guessed`.
    info: InfoSet | None = field(default=None, compare=False)

    @property
    def stage(self) -> Move | None:
        """UECda's word for ``table`` (the name its strategies were written with)."""
        return self.table

    @property
    def strongest(self) -> int:
        """The cards no hand may finish on in the 2011 book: the jokers and the strongest
        number in force (the 2s, the 3s in a revolution)."""
        return self.book.jokers | (self.book.threes if self.revolution else self.book.twos)

    def cards(self, move: Move) -> int:
        return self.book.cards(move)

    def strength(self, move: Move) -> int:
        return self.book.strength(move, self.revolution)

    def is_stair(self, move: Move) -> bool:
        return self.book.is_stair(move)

    def leads(self, hand: int) -> Sequence[Move]:
        return self.book.leads(hand, self.revolution)

    def info_set(self) -> InfoSet:
        """The caller's information set, or one guessed from the view alone."""
        return self.info if self.info is not None else self.book.guessed(self)


def view_2011(hand: int, table: Play | None, revolution: bool, info: InfoSet | None = None) -> View:
    """A 2011 turn's view: the legal plays of ``hand`` on ``table``."""
    return View(BOOK_2011, hand, table, revolution, legal_plays(hand, table, revolution), info=info)


def answer_2011(
    strategy: Callable[[View], Any],
    hand: int,
    table: Play | None,
    revolution: bool,
    info: InfoSet | None = None,
) -> int | None:
    """What ``strategy`` plays on a 2011 turn, as a card mask (None: a pass)."""
    view = view_2011(hand, table, revolution, info)
    return BOOK_2011.answer(view, strategy(view))


def view_uecda(g: u.UecdaGame, player: int, info: InfoSet | None = None) -> View:
    """``player``'s view of a UECda game on its turn: its hand, the play to beat, the order
    in force (an 11-back's reversal included), the lock and every move tndhms accepts now."""
    return View(
        BOOK_UECDA, g.hands[player], g.stage, g.reversed_strength, legal_moves(g, player),
        g.locked, info,
    )  # fmt: skip


def book_of(rules: Rules) -> Book:
    """The book whose moves ``rules`` are played with: UECda's for its profile and every
    variant of it, else the 2011 book."""
    return BOOK_2011 if rules.name == DAIHINMIN_2011_NAME else BOOK_UECDA
