"""Places, their players, games, turns and ranks: everything needed to
reconstruct a whole place from the database alone.

The authoritative position of a running place is ``Place.engine_state`` (the
engine's ``PlaceState`` as JSON). The rows of Game, Turn, Rank, Hand and
PlaceEvent are the record of how it got there, written in the same
transaction as each change.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from daifugo.rules import DAIHINMIN_2011_NAME, UECDA_NAME, Rules, label_of, rules_of
from places.wire import records

PLAYERS_PER_PLACE = 5

#: The rules profiles a place or a tournament is played by (``daifugo.rules``).
RULES_CHOICES = [
    (DAIHINMIN_2011_NAME, _("daihinmin 2011 (the platform's rules)")),
    (UECDA_NAME, _("UECda (tndhms's defaults)")),
]


#: The longest variant: every token of ``daifugo.rules.TOKENS`` set otherwise.
VARIANT_MAX_LENGTH = 120


def variant_field() -> models.CharField:
    """The ``variant`` column beside ``rules``: the switches of a ``uecda`` place or
    tournament set otherwise than tndhms's defaults (``"6reverse+11back"``), "" for none."""
    return models.CharField(
        _("rules variant"), max_length=VARIANT_MAX_LENGTH, blank=True, default=""
    )


class PlayedBy:
    """What a model with ``rules`` and ``variant`` columns is played by."""

    rules: str
    variant: str

    @property
    def game_rules(self) -> Rules:
        return rules_of(self.rules, self.variant)

    @property
    def rules_label(self) -> str:
        """``uecda+6reverse+11back``: the profile and the variant, as pages and records name it."""
        return label_of(self.rules, self.variant)


def rules_field() -> models.CharField:
    """The ``rules`` column of places and tournaments: 2011 unless said otherwise."""
    return models.CharField(
        _("rules"), max_length=16, choices=RULES_CHOICES, default=DAIHINMIN_2011_NAME
    )


TITLE_MAX_LENGTH = 20
#: The longest label of an API token, which is the version of the bot that uses it.
TOKEN_LABEL_LENGTH = 40
#: The longest client address kept on a practice or an analysis asked for (an IPv6 address
#: is at most 45 characters).
ADDRESS_LENGTH = 64


class Place(PlayedBy, models.Model):
    """A fixed group of five players who play a series of games."""

    class State(models.TextChoices):
        WAITING = "waiting", _("waiting")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        #: Stopped by staff before its end: the game in play was dropped
        #: (``places.services.lifecycle.stop_place``).
        ABORTED = "aborted", _("aborted")

    title = models.CharField(_("title"), max_length=TITLE_MAX_LENGTH)
    game_count = models.PositiveIntegerField(
        _("games"), default=50, validators=[MinValueValidator(1), MaxValueValidator(100_000)]
    )
    #: Seconds between the dealer's steps; None is the manual pace (``next_turn``).
    pace = models.FloatField(
        _("pace (s)"),
        null=True,
        blank=True,
        default=0.5,
        validators=[MinValueValidator(0)],
        help_text=_("seconds between steps; empty for manual (next_turn)"),
    )
    time_limit = models.FloatField(
        _("time limit per turn (s)"), default=10.0, validators=[MinValueValidator(0.05)]
    )
    seed = models.CharField(
        _("seed"),
        max_length=64,
        blank=True,
        default="",
        help_text=_("reproducible deals when set"),
        # every record read asks which other places share the seed (places/reads/disclosure.py)
        db_index=True,
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.WAITING)
    engine_state = models.JSONField(null=True, blank=True, editable=False)
    #: Number of events sent so far: the next event's sequence number is this + 1.
    event_seq = models.PositiveIntegerField(default=0, editable=False)
    #: When the dealer takes its next step (None: waiting for a player, manual, or not running).
    next_step_at = models.DateTimeField(null=True, blank=True, editable=False)
    #: The deadline of the open turn, if one is open.
    turn_deadline = models.DateTimeField(null=True, blank=True, editable=False)
    #: Which server process drives this place, and until when its claim holds.
    driver = models.CharField(max_length=64, blank=True, default="", editable=False)
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)
    #: Another process asked the server to stop this running place (``schedule_stop``).
    stop_requested = models.BooleanField(default=False, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)
    #: Seconds a player may run past the turn limit over one game (0: no bank).
    time_bank = models.FloatField(
        _("time bank per game (s)"),
        default=0.0,
        validators=[MinValueValidator(0)],
        help_text=_("a turn may run past its limit while its player's bank lasts; 0 for none"),
    )
    #: Whether its games move the players' ratings.
    rated = models.BooleanField(_("rated"), default=True)
    #: Made by ``POST /practice``: one user and four house bots (``places/services/practice.py``).
    practice = models.BooleanField(default=False, editable=False)
    #: The address a practice was asked for from ("" for any other place): what one address
    #: holds and asks for is bounded too (``places/services/practice.py``).
    practice_address = models.CharField(
        max_length=ADDRESS_LENGTH, blank=True, default="", editable=False
    )
    #: Duplicate deals: the ranks of each game's exchange are drawn from the seed,
    #: not taken from the game before, so every rotation of a seed deals the same hands.
    duplicate_deals = models.BooleanField(default=False, editable=False)
    tournament = models.ForeignKey(
        "Tournament",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="places",
        editable=False,
    )
    #: The place's number in its tournament's schedule (0 first).
    table_no = models.PositiveIntegerField(null=True, blank=True, editable=False)
    #: The rules its games are played by. A ``uecda`` place's players are numbered
    #: 0-4 by ``Player.seat`` (their seats change every few games, see its records).
    rules = rules_field()
    variant = variant_field()
    #: A place made from a tndhms log (``import_tndhms_log``): the SHA-256 of the log,
    #: so that the same log is never imported twice; "" for a place played here.
    imported_from = models.CharField(max_length=64, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["state", "next_step_at"]),
            models.Index(
                fields=["practice_address", "created_at"],
                condition=models.Q(practice=True),
                name="practice_by_address",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "table_no"], name="one_place_per_table_no"
            ),
            models.UniqueConstraint(
                fields=["imported_from"],
                condition=~models.Q(imported_from=""),
                name="one_place_per_imported_log",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} (#{self.pk})"

    @property
    def is_manual(self) -> bool:
        return self.pace is None


#: The states of a place that is over: it plays no more.
ENDED = (Place.State.FINISHED, Place.State.ABORTED)


class Player(models.Model):
    """A user seated in a place; ``seat`` fixes the play order (0 first)."""

    place = models.ForeignKey(Place, on_delete=models.CASCADE, related_name="players")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    seat = models.PositiveSmallIntegerField(validators=[MaxValueValidator(PLAYERS_PER_PLACE - 1)])
    #: The player's finished games in this place and the points they made: kept up to date
    #: as each game ends (``places/services/profiles.py``), for the profiles.
    games = models.PositiveIntegerField(default=0, editable=False)
    points = models.PositiveIntegerField(default=0, editable=False)
    #: The bot's version in this place: the label of the API token its owner last posted
    #: with (``ApiToken.label``); empty while the seat's moves come by cookie alone.
    version = models.CharField(
        max_length=TOKEN_LABEL_LENGTH, blank=True, default="", editable=False
    )

    class Meta:
        ordering = ["place", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["place", "seat"], name="one_player_per_seat"),
            models.UniqueConstraint(fields=["place", "user"], name="one_seat_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user.get_username()} @ {self.place_id}#{self.seat}"

    @property
    def name(self) -> str:
        return self.user.get_username()


class JoinCode(models.Model):
    """The secret a seat's UECda client sends as its name to take the seat on the shared
    server (``places/services/uecda_seats.py``): shown to that seat's user and to staff only.

    Found by ``digest`` (its SHA-256, indexed), then compared in constant time: the lookup
    tells a guesser nothing of the code.
    """

    player = models.OneToOneField(
        Player, on_delete=models.CASCADE, primary_key=True, related_name="join_code"
    )
    code = models.CharField(max_length=14)
    digest = models.CharField(max_length=64, unique=True)


class HouseBot(models.Model):
    """A user the server plays itself (a house bot): no process, no socket, no password.

    When a turn of theirs opens, the server plays the named sample strategy
    (``bots.strategies.STRATEGIES``) in the same change (``places/services/house.py``).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="house_bot",
    )
    strategy = models.CharField(_("strategy"), max_length=32)

    class Meta:
        ordering = ["user__username"]
        verbose_name = _("house bot")

    def __str__(self) -> str:
        return f"{self.user.get_username()} ({self.strategy})"


class NameKey(models.Model):
    """A key a user's name is told apart by (``places.confusable.name_keys``): one or two
    a user, indexed, so a new name is checked against every name in one look-up.

    Kept by a signal whenever a user is saved (``places.services.accounts``), filled for
    the users before it by its migration. A key is one user's: the database refuses the
    second of two look-alikes made at the same moment, which both passed the check
    before. Of users before the keys whose keys met, the first keeps the key (migration
    0018); the check is made when a name is taken, never again.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="name_keys"
    )
    key = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key"], name="one_user_per_name_key")]


class Game(models.Model):
    """One deal of a place, played until every player has a rank."""

    RUNNING, FINISHED = 0, 1

    place = models.ForeignKey(Place, on_delete=models.CASCADE, related_name="games")
    no = models.PositiveIntegerField()
    status = models.PositiveSmallIntegerField(
        choices=[(RUNNING, _("running")), (FINISHED, _("finished"))], default=RUNNING
    )
    place_info = models.CharField(max_length=10, default=records.NORMAL)  # the order at its end
    #: A finished game of a ``uecda`` place: its record (version 2, docs/records.md),
    #: written with its Rank rows in the transaction that ends it. None for 2011 games,
    #: whose records are read from their Hand and Turn rows.
    record = models.JSONField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["place", "no"]
        constraints = [models.UniqueConstraint(fields=["place", "no"], name="one_game_per_no")]

    def __str__(self) -> str:
        return f"game {self.no} of {self.place}"


class Hand(models.Model):
    """A player's cards in one game: as dealt, and after the exchange (card ids)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="hands")
    dealt = models.JSONField()
    given = models.JSONField(default=list)
    received = models.JSONField(default=list)
    after_exchange = models.JSONField()

    class Meta:
        ordering = ["game", "player__seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_hand_per_player")
        ]


class Turn(models.Model):
    """One action of one player, from its ``start_turn`` to its ``end_turn``."""

    class Outcome(models.TextChoices):
        PLAY = "play", _("play")
        PASS = "pass", _("pass")
        MISS = "miss", _("miss")
        TIMEOUT = "timeout", _("timeout")

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="turns")
    no = models.PositiveIntegerField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="turns")
    table = models.JSONField(default=list)  # card ids on the table when the turn opened
    revolution = models.BooleanField(default=False)  # the order in force
    cards = models.JSONField(default=list)  # card ids played
    #: The cards as the player wrote them (misses too): enough to replay the game.
    submitted = models.JSONField(default=list)
    outcome = models.CharField(max_length=8, choices=Outcome.choices, blank=True, default="")
    reason = models.CharField(max_length=32, blank=True, default="")
    reset = models.BooleanField(default=False)
    opened_at = models.DateTimeField()
    deadline = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "no"]
        constraints = [models.UniqueConstraint(fields=["game", "no"], name="one_turn_per_no")]

    @property
    def is_open(self) -> bool:
        return not self.outcome


class Rank(models.Model):
    """The rank a player took in a game: 1 大富豪 … 5 大貧民."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="ranks")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ranks")
    rank = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["game", "player"], name="one_rank_per_player"),
            models.UniqueConstraint(fields=["game", "rank"], name="one_player_per_rank"),
        ]


class PlaceEvent(models.Model):
    """Every event a place sent, exactly as sent: the audit log of a place."""

    place = models.ForeignKey(Place, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    operation = models.CharField(max_length=16)
    #: The JSON text as sent (text, not JSON: key order is part of the contract).
    message = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["place", "seq"]
        constraints = [models.UniqueConstraint(fields=["place", "seq"], name="one_event_per_seq")]


class Tournament(PlayedBy, models.Model):
    """Many places over more than five entrants, scheduled and started by the server.

    Its places are made with it (``places.services.tournaments``), one per table of the
    schedule (``daifugo.schedule``), and started in order, a few at a time,
    never two at once that share an entrant.
    """

    class Format(models.TextChoices):
        ROUND_ROBIN = "round-robin", _("round robin")
        DUPLICATE = "duplicate", _("duplicate")

    State = Place.State

    title = models.CharField(_("title"), max_length=60)
    format = models.CharField(
        _("format"), max_length=12, choices=Format.choices, default=Format.ROUND_ROBIN
    )
    game_count = models.PositiveIntegerField(_("games per table"), default=10)
    pace = models.FloatField(_("pace (s)"), default=0.0)
    time_limit = models.FloatField(_("time limit per turn (s)"), default=10.0)
    time_bank = models.FloatField(_("time bank per game (s)"), default=0.0)
    seed = models.CharField(_("seed"), max_length=32, blank=True, default="")
    max_running = models.PositiveSmallIntegerField(_("places running at once"), default=4)
    rated = models.BooleanField(_("rated"), default=True)
    #: The rules of its places' games.
    rules = rules_field()
    variant = variant_field()
    state = models.CharField(max_length=10, choices=State.choices, default=State.WAITING)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.title} (#{self.pk})"


class Entrant(models.Model):
    """A user entered in a tournament; ``no`` is the number the schedule knows them by."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    no = models.PositiveIntegerField()

    class Meta:
        ordering = ["tournament", "no"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "no"], name="one_entrant_per_no"),
            models.UniqueConstraint(fields=["tournament", "user"], name="one_entry_per_user"),
        ]


class EntrantCode(models.Model):
    """A ``uecda`` tournament entrant's join code: the one secret its client sends as its
    name for every table, each in its turn (``places/services/uecda_seats.py``); shown to
    that entrant's user and to staff only. Found by ``digest`` as :class:`JoinCode` is.
    """

    entrant = models.OneToOneField(
        Entrant, on_delete=models.CASCADE, primary_key=True, related_name="join_code"
    )
    code = models.CharField(max_length=14)
    digest = models.CharField(max_length=64, unique=True)


class Rating(models.Model):
    """A user's rating in one rule book (openskill's Plackett–Luce): moved by every
    finished rated game of those rules. A 2011 game and a UECda game are different
    contests (other points, other rules): each book has its own leaderboard."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    rules = rules_field()
    mu = models.FloatField()
    sigma = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    last_played = models.DateTimeField()

    class Meta:
        ordering = ["-mu"]
        constraints = [
            models.UniqueConstraint(fields=["user", "rules"], name="one_rating_per_user_and_rules")
        ]

    @property
    def ordinal(self) -> float:
        """The conservative estimate μ − 3σ the leaderboard ranks by."""
        return self.mu - 3 * self.sigma


class RatingChange(models.Model):
    """A user's rating after one game (in the rules of the game's place): the history a
    profile charts."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    mu = models.FloatField()
    sigma = models.FloatField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["user", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="one_rating_change_per_game")
        ]


# -- profiles: what each player's finished games add up to ---------------------------------
#
# Kept up to date inside the change that finishes each game (``places/services/profiles.py``),
# so that a profile reads a few rows however many games its player has played
# (``places/reads/profiles.py``). Player.games and Player.points are the per-place part.


class ProfileTotals(models.Model):
    """A user's finished games added up: what ``/users/NAME.json`` counts."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    games = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    #: Games finished at each rank, 1 (大富豪) first.
    rank_counts = models.JSONField(default=list)
    turns = models.PositiveIntegerField(default=0)
    plays = models.PositiveIntegerField(default=0)
    cards_played = models.PositiveIntegerField(default=0)
    passes = models.PositiveIntegerField(default=0)
    pass_chances = models.PositiveIntegerField(default=0)
    timeouts = models.PositiveIntegerField(default=0)
    #: Misses by reason, timeouts apart.
    misses = models.JSONField(default=dict)
    revolutions = models.PositiveIntegerField(default=0)
    eight_cuts = models.PositiveIntegerField(default=0)
    #: The turns answered (anything but a timeout) and their think time, in microseconds.
    answered = models.PositiveIntegerField(default=0)
    think_us = models.BigIntegerField(default=0)


class ProfileOpponent(models.Model):
    """Head to head: the finished games ``user`` played with ``opponent``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    games = models.PositiveIntegerField(default=0)
    above = models.PositiveIntegerField(default=0)  # games the user finished above the opponent
    points = models.PositiveIntegerField(default=0)  # the user's points in those games
    their_points = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "opponent"], name="one_tally_per_opponent")
        ]


class ProfileThink(models.Model):
    """How many of a user's answered turns took this long, in tenths of a millisecond (the
    think time as a profile shows it): the 99th percentile is read from the top."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    tenths = models.IntegerField()
    turns = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "tenths"], name="one_count_per_think_time")
        ]


# -- the game search: what each finished game was, indexed (``/games.json``) ----------------
#
# Written with the game's other rows in the change that finishes it (``places/services/
# game_index.py``), filled for the games before by migration 0009, and read by
# ``places/reads/games.py``: a search reads an index, never the turns or the records.


class GameEntry(models.Model):
    """One player's part in a finished game: who, at which seat, the rank taken, and the
    game's place, tournament, rules and end (copied here so that one index answers)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    place = models.ForeignKey(Place, on_delete=models.CASCADE, related_name="+", db_index=False)
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, null=True, related_name="+", db_index=False
    )
    rules = models.CharField(max_length=16)
    no = models.PositiveIntegerField()  # the game's number in its place
    seat = models.PositiveSmallIntegerField()  # the player's seat (a uecda place: its number)
    rank = models.PositiveSmallIntegerField()
    ended_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="one_entry_per_player")
        ]
        indexes = [
            models.Index(fields=["user", "game"], name="entry_by_user"),
            models.Index(fields=["rank", "game"], name="entry_by_rank"),
            models.Index(fields=["place", "game"], name="entry_by_place"),
            models.Index(fields=["tournament", "game"], name="entry_by_tournament"),
        ]


class GameFact(models.Model):
    """Something a player did in a finished game (``daifugo.facts``: a revolution, a
    lock, a miss of a code…), at the first turn it happened."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=16)
    #: A miss's code; "" for every other kind, and for the row that says "a miss, any code".
    code = models.CharField(max_length=32, blank=True, default="")
    turn = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["game", "user", "kind", "code"], name="one_fact_per_kind"
            )
        ]
        indexes = [
            models.Index(fields=["kind", "code", "user", "game"], name="fact_by_user"),
            models.Index(fields=["kind", "code", "game"], name="fact_by_kind"),
        ]


class ApiToken(models.Model):
    """A personal API token: what a bot sends as ``Authorization: Bearer`` instead of its
    owner's password (``places/services/tokens.py``).

    The secret is never stored: ``digest`` is the SHA-256 of the whole token, and
    ``prefix`` (shown in the token and on the account page) finds the row. The label
    names the bot's version: each seat the token posts in records it (``Player.version``).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    label = models.CharField(max_length=TOKEN_LABEL_LENGTH)
    prefix = models.CharField(max_length=16, unique=True)
    digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["user", "-id"]

    def __str__(self) -> str:
        return f"{self.label} ({self.prefix})"


class GameAnalysis(models.Model):
    """A finished game's analysis (``docs/analysis.md``): a job while it is made, then the
    document. Any server process takes a queued job, or one whose worker's lease ran
    out (``places/analyst.py``), by compare-and-swap on ``state`` and ``worker``."""

    class State(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    class Priority(models.IntegerChoices):
        """Which queued job the analyst takes first (the lowest, then the oldest)."""

        STAFF = 0, _("staff")
        #: A game the asker played in.
        OWN_GAME = 1, _("own game")
        OTHER = 2, _("other")

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="analysis")
    state = models.CharField(max_length=8, choices=State.choices, default=State.QUEUED)
    #: Who asked for it on the replay page (None: the ``analyse`` command).
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: The address it was asked for from ("" unless over HTTP): what one address has queued
    #: is bounded, whatever its accounts (``places/services/analysis.py``).
    requested_from = models.CharField(max_length=ADDRESS_LENGTH, blank=True, default="")
    priority = models.PositiveSmallIntegerField(choices=Priority.choices, default=Priority.OTHER)
    playouts = models.PositiveIntegerField()
    worker = models.CharField(max_length=100, blank=True, default="")
    lease_until = models.DateTimeField(null=True, blank=True)
    done_decisions = models.PositiveIntegerField(default=0)
    decisions = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True, editable=False)
    error = models.TextField(blank=True, default="")
    requested_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["state", "priority", "requested_at"], name="analysis_queue"),
            models.Index(fields=["requested_by", "requested_at"], name="analysis_by_user"),
            models.Index(fields=["requested_from", "requested_at"], name="analysis_by_address"),
        ]

    def __str__(self) -> str:
        return f"analysis of {self.game} ({self.state})"
