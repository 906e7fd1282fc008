"""Rule profiles: which rules a place, a match or a record is played by.

Two profiles exist. ``daihinmin-2011`` is the platform's own rule book (RULES.md),
refereed by :mod:`.game` and :mod:`.place` exactly as before profiles existed.
``uecda`` is the UEC computer-Daihinmin contest as its reference server tndhms
plays it with its default settings (UECDA.md §6), refereed by :mod:`.uecda`.

Each UECda rule is a named switch of :class:`Rules`, so that a test can turn one
off and see that exactly that rule goes away; the ``uecda`` profile has every
switch at tndhms's default. The 2011 profile turns them all off: its rules are
not switches of the UECda game but the 2011 engine itself, unchanged.

**Variants.** Each rule tndhms's cfg can set (``RULE_*``, ``FLASH_MIBUN_NUMBER``) is
also a token of a *variant* of the ``uecda`` profile: ``11back``, ``no-lock``,
``reseat=3`` … (:data:`TOKENS`). A variant is the profile's name and the tokens of
its switches that differ from the profile, in a fixed order: ``uecda+6reverse+11back``.
:func:`rules_named` reads such a name; :attr:`Rules.variant` and :attr:`Rules.label`
write it; :func:`from_tndhms` and :func:`tndhms_settings` translate tndhms's settings.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .numbers import whole

DAIHINMIN_2011_NAME = "daihinmin-2011"
UECDA_NAME = "uecda"

#: How a trick ends when players pass (UECDA.md §6 "Passing").
#: ``"tndhms"``: when the passers in the trick number at least 4 − (players out),
#: one pass short of "everyone" when the last player to play has just gone out.
#: ``"everyone"``: when every other player still holding cards has passed (the manual).
TRICK_END_TNDHMS = "tndhms"
TRICK_END_EVERYONE = "everyone"


class UnknownRules(ValueError):
    """A rules profile name that is not one of :data:`PROFILES`, or a variant that is not one."""


@dataclass(frozen=True, slots=True)
class Rules:
    """A rules profile: its name and the switches of the UECda game.

    The switches only matter to the UECda game (:mod:`.uecda`); the 2011
    engine reads none of them.
    """

    name: str
    #: 縛り: a play with the same suits as the play before locks the trick to those suits.
    lock: bool = False
    #: ♠3 played on a lone joker is accepted whatever the lock and clears the trick.
    spade3_return: bool = False
    #: Stairs of five or more cards are a revolution, as groups of four or more are.
    stair_revolution: bool = False
    #: Stairs that span an 8 (the joker standing for it included) cut the trick.
    eight_cut_in_stairs: bool = False
    #: A joker inside a group or a stair counts as the card of the cell it is put in:
    #: its suit for the lock, its number for the 8-cut. Off: it counts for neither.
    joker_stands_in: bool = False
    #: The daifugo and the fugo give cards of their choice (tndhms takes their
    #: strongest when the choice is not a subset of the hand of the right size).
    #: Off: they give their weakest, automatically.
    exchange_by_choice: bool = False
    #: The 53 cards are dealt one at a time from the daifugo's seat (from a random
    #: player's seat in the first game of a rank period). Off: from a random seat.
    deal_from_daifugo: bool = False
    #: The seats are drawn anew in games 1, 1 + n, 1 + 2n, …; 0: seats never change.
    seat_shuffle_period: int = 0
    #: Ranks are forgotten (no exchange, deal from a random seat) in games 1, 1 + n, …;
    #: 0: only in game 1.
    rank_period: int = 0
    #: After this many passes or rejected submissions in a row, the players still in
    #: get random ranks and the game ends; 0: never.
    pass_draw: int = 0
    #: :data:`TRICK_END_TNDHMS` or :data:`TRICK_END_EVERYONE`.
    trick_end: str = TRICK_END_EVERYONE
    #: The points of a game's last rank (each rank above scores one more): 0 in 2011,
    #: 1 in tndhms (its 5/4/3/2/1).
    last_points: int = 0
    #: 革命 (``RULE_KAKUMEI``): a group of four or more (and a stair of five or more,
    #: with ``stair_revolution``) reverses the order of strength. Off: nothing does.
    revolution: bool = False
    #: 階段 (``RULE_KAIDAN``): stairs may be played. Off: a stair is rejected (a pass),
    #: after the lock has seen it, as tndhms checks it last.
    stairs: bool = False
    #: カード交換 (``RULE_CHANGE``): the exchange after the first game of a rank period.
    exchange: bool = False
    #: 8切り (``RULE_8GIRI``): an 8 clears the trick (in stairs: ``eight_cut_in_stairs``).
    eight_cut: bool = False
    #: 6リバース (``RULE_6REVERS``): a play holding a 6 (a stair through column 4)
    #: reverses the order of play, for the rest of the game.
    six_reverse: bool = False
    #: 11バック (``RULE_11BACK``): a play holding a J (a stair through column 9)
    #: reverses the order of strength until the trick ends; a second one undoes it.
    eleven_back: bool = False
    #: 5飛び (``RULE_5TOBI``): named and logged, never applied: tndhms marks a play holding
    #: a 5, then searches again for the next player from the player it has just found,
    #: who holds cards and has not passed, so the search stops at once (``daihu.c:1640``).
    five_skip: bool = False
    #: 禁則 (``RULE_KINSOKU``): named and logged, never applied: tndhms reads it and
    #: writes it in its log, and no line of its game looks at it.
    kinsoku: bool = False

    def points_for(self, rank: int, players: int) -> int:
        """A game's points for ``rank`` (1 best) among ``players``."""
        return players - rank + self.last_points

    def but(self, **changes: object) -> Rules:
        """The same profile with some switches changed (tests turn rules off one by one)."""
        return replace(self, **changes)

    @property
    def variant(self) -> str:
        """The tokens of the switches set otherwise than the profile's, in :data:`TOKENS`'s
        order (``"6reverse+11back"``), ``""`` for the profile itself."""
        profile = PROFILES[self.name]
        return "+".join(
            token.written(getattr(self, token.switch))
            for token in TOKENS
            if getattr(self, token.switch) != getattr(profile, token.switch)
        )

    @property
    def label(self) -> str:
        """The profile's name and the variant's tokens: what :func:`rules_named` reads."""
        return label_of(self.name, self.variant)


@dataclass(frozen=True, slots=True)
class Token:
    """A switch a variant can set, the token that names it and tndhms's cfg key for it.

    A yes/no switch is written as its token when on and ``no-`` and its token when off;
    a number as ``token=N``.
    """

    token: str
    switch: str
    tndhms: str

    def written(self, value: bool | int) -> str:
        if isinstance(value, bool):
            return self.token if value else f"no-{self.token}"
        return f"{self.token}={value}"


#: The switches a variant can set, in tndhms's order of its cfg's rules.
TOKENS = (
    Token("revolution", "revolution", "RULE_KAKUMEI"),
    Token("lock", "lock", "RULE_SHIBARI"),
    Token("kinsoku", "kinsoku", "RULE_KINSOKU"),
    Token("stairs", "stairs", "RULE_KAIDAN"),
    Token("exchange", "exchange", "RULE_CHANGE"),
    Token("5skip", "five_skip", "RULE_5TOBI"),
    Token("6reverse", "six_reverse", "RULE_6REVERS"),
    Token("8cut", "eight_cut", "RULE_8GIRI"),
    Token("11back", "eleven_back", "RULE_11BACK"),
    Token("reseat", "seat_shuffle_period", "RULE_SEKIGAE_NUM"),
    Token("ranks", "rank_period", "FLASH_MIBUN_NUMBER"),
)
_TOKEN_NAMED = {t.token: t for t in TOKENS}
#: The largest ``reseat=`` and ``ranks=`` (a match is at most 99,999 games, as tndhms logs).
PERIOD_MAX = 99_999


DAIHINMIN_2011 = Rules(DAIHINMIN_2011_NAME)

UECDA = Rules(
    UECDA_NAME,
    lock=True,
    spade3_return=True,
    stair_revolution=True,
    eight_cut_in_stairs=True,
    joker_stands_in=True,
    exchange_by_choice=True,
    deal_from_daifugo=True,
    seat_shuffle_period=5,
    rank_period=100,
    pass_draw=20,
    trick_end=TRICK_END_TNDHMS,
    last_points=1,
    revolution=True,
    stairs=True,
    exchange=True,
    eight_cut=True,
)

PROFILES: dict[str, Rules] = {DAIHINMIN_2011_NAME: DAIHINMIN_2011, UECDA_NAME: UECDA}
DEFAULT = DAIHINMIN_2011


def label_of(profile: str, variant: str) -> str:
    """The label of a profile's variant (``uecda+11back``), the profile's name for none."""
    return f"{profile}+{variant}" if variant else profile


def rules_of(profile: str, variant: str = "") -> Rules:
    """The rules of a place, a tournament or a record: its profile and its variant."""
    return rules_named(label_of(profile, variant))


def profile_and_variant(label: str) -> tuple[str, str]:
    """A label's profile name and variant, as a place or a tournament keeps them
    (``"uecda+11back"`` → ``("uecda", "11back")``); :class:`UnknownRules` if it is none."""
    rules = rules_named(label)
    return rules.name, rules.variant


def rules_named(name: str) -> Rules:
    """The rules of a profile's name or a variant's (``uecda+11back+no-lock``), or
    :class:`UnknownRules` saying what is wrong."""
    profile_name, _, variant = name.partition("+")
    try:
        profile = PROFILES[profile_name]
    except KeyError:
        known = ", ".join(PROFILES)
        raise UnknownRules(f"unknown rules {name[:40]!r}: known rules are {known}") from None
    return varied(profile, variant) if variant or name.endswith("+") else profile


def _numeric(profile: Rules, token: Token) -> bool:
    return not isinstance(getattr(profile, token.switch), bool)


def varied(profile: Rules, variant: str) -> Rules:
    """``profile`` with the switches a variant's tokens set (``"11back+reseat=3"``)."""
    if profile.name != UECDA_NAME:
        raise UnknownRules(f"the {profile.name} rules have no variants")
    changes: dict[str, bool | int] = {}
    for written in variant.split("+"):
        word, equals, number = written.partition("=")
        off = word.startswith("no-") and not equals
        token = _TOKEN_NAMED.get(word[3:] if off else word)
        numeric = token is not None and _numeric(profile, token)
        if token is None or numeric != bool(equals):
            known = ", ".join(
                f"{t.token}=N"
                if _numeric(profile, t)
                else t.written(not getattr(profile, t.switch))
                for t in TOKENS
            )
            raise UnknownRules(f"unknown variant token {written[:40]!r}: tokens are like {known}")
        if token.switch in changes:
            raise UnknownRules(f"the variant names {token.token} twice")
        if numeric:
            value = whole(number, PERIOD_MAX)
            if value is None:
                raise UnknownRules(f"{token.token}= takes a number 0-{PERIOD_MAX}")
            changes[token.switch] = value
        else:
            changes[token.switch] = not off
    return profile.but(**changes)


#: tndhms's own values of its rule settings when its cfg does not set them
#: (``server/src/daihu.c:119-132``: ``FLASH_MIBUN_NUMBER`` takes ``GAME_NUMBER``'s 100).
TNDHMS_DEFAULTS = {
    "RULE_KAKUMEI": "YES",
    "RULE_SHIBARI": "YES",
    "RULE_KINSOKU": "NO",
    "RULE_KAIDAN": "YES",
    "RULE_CHANGE": "YES",
    "RULE_5TOBI": "NO",
    "RULE_6REVERS": "NO",
    "RULE_8GIRI": "YES",
    "RULE_11BACK": "NO",
    "RULE_SEKIGAE": "YES",
    "RULE_SEKIGAE_NUM": "3",
    "FLASH_MIBUN_NUMBER": "100",
}


class TndhmsSettingError(UnknownRules):
    """A tndhms setting no match here can be played by; ``key`` names it."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


#: tndhms's ``isint``: a number setting is at most 5 digits (UECDA.md §6).
TNDHMS_DIGITS = 5


def tndhms_number(key: str, value: str) -> int:
    """A tndhms number setting's value (a cfg's or a log header's), as ``isint`` reads it:
    ASCII digits, at most 5; :class:`TndhmsSettingError` naming ``key`` otherwise."""
    number = whole(value, 10**TNDHMS_DIGITS - 1, digits=TNDHMS_DIGITS)
    if number is None:
        raise TndhmsSettingError(
            key, f"{key} is a number of at most {TNDHMS_DIGITS} digits, not {value[:20]!r}"
        )
    return number


def from_tndhms(settings: Mapping[str, str]) -> Rules:
    """The ``uecda`` variant tndhms plays with these settings (a cfg's or a log header's
    values by key, upper case; a key left out takes tndhms's default).

    tndhms reseats in games ``n`` with ``n % RULE_SEKIGAE_NUM == 1``: never when it is 1,
    and it divides by 0. It forgets ranks in games with ``(n - 1) % FLASH_MIBUN_NUMBER
    == 0`` but exchanges in games with ``n % FLASH_MIBUN_NUMBER != 1``: at 1 it forgets
    them in every game and exchanges in every game, the first included (by the players'
    numbers: :func:`.uecda.exchange_ranks`); 0 divides by 0. The two zeros are refused
    here, naming the key.
    """
    values = {**TNDHMS_DEFAULTS, **{k: v for k, v in settings.items() if k in TNDHMS_DEFAULTS}}
    changes: dict[str, bool | int] = {}
    numbers: dict[str, int] = {}
    for token in TOKENS:
        value = values[token.tndhms]
        if _numeric(UECDA, token):
            numbers[token.tndhms] = tndhms_number(token.tndhms, value)
            continue
        if value not in ("YES", "NO"):
            raise TndhmsSettingError(
                token.tndhms, f"{token.tndhms} is YES or NO, not {value[:20]!r}"
            )
        changes[token.switch] = value == "YES"
    if values["RULE_SEKIGAE"] not in ("YES", "NO"):
        raise TndhmsSettingError(
            "RULE_SEKIGAE", f"RULE_SEKIGAE is YES or NO, not {values['RULE_SEKIGAE'][:20]!r}"
        )
    reseat = numbers["RULE_SEKIGAE_NUM"]
    if values["RULE_SEKIGAE"] == "YES" and reseat == 0:
        raise TndhmsSettingError(
            "RULE_SEKIGAE_NUM", "RULE_SEKIGAE_NUM 0 with RULE_SEKIGAE YES: tndhms divides by it"
        )
    changes["seat_shuffle_period"] = reseat if values["RULE_SEKIGAE"] == "YES" and reseat > 1 else 0
    ranks = numbers["FLASH_MIBUN_NUMBER"]
    if ranks == 0:
        raise TndhmsSettingError("FLASH_MIBUN_NUMBER", "FLASH_MIBUN_NUMBER 0: tndhms divides by it")
    changes["rank_period"] = ranks
    return UECDA.but(**changes)


def tndhms_settings(rules: Rules) -> dict[str, str]:
    """The settings tndhms would play ``rules`` with, as its log's header writes them
    (``RULE_SEKIGAE NO`` for seats that never change), or :class:`UnknownRules` for
    rules no setting gives (the 2011 profile, a switch of the project's own)."""
    same = UECDA.but(**{t.switch: getattr(rules, t.switch) for t in TOKENS})
    if rules != same or rules.rank_period < 1 or rules.seat_shuffle_period == 1:
        raise UnknownRules(f"no tndhms settings play the {rules.label} rules")
    settings = {t.tndhms: "YES" if getattr(rules, t.switch) else "NO" for t in TOKENS[:-2]}
    period = rules.seat_shuffle_period
    settings["RULE_SEKIGAE"] = "YES" if period else "NO"
    settings["RULE_SEKIGAE_NUM"] = str(period or UECDA.seat_shuffle_period)
    settings["FLASH_MIBUN_NUMBER"] = str(rules.rank_period)
    return settings
