"""The admin pages of places: set places up, start and step them, read their records.

Places are created, edited, re-seated, started and stepped through
``places.services`` (the one place where places change). Once a place has started, its players, number of
games and seed are fixed; its games, turns, ranks, hands and events are a
record, shown read-only and never deleted one by one.
"""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponseNotAllowed, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy as _

from daifugo.rules import label_of
from places import services
from places.errors import Refused
from places.models import (
    PLAYERS_PER_PLACE,
    Game,
    Hand,
    HouseBot,
    Place,
    PlaceEvent,
    Player,
    Rank,
    Tournament,
    Turn,
)
from places.presentation import cards as shown
from places.reads.join_codes import tournament_codes
from places.reads.position import finished_games, state_of
from places.services import accounts
from places.services import house as house_bots


def _waiting(place: Place | None) -> bool:
    return place is None or place.pk is None or place.state == Place.State.WAITING


# -- places and their players ----------------------------------------------------------


class SeatForm(forms.ModelForm):
    """One seat's user. Rows are saved as a whole (see ``PlaceAdmin.save_formset``)."""

    class Meta:
        model = Player
        fields = ("user",)

    def _get_validation_exclusions(self):
        # Swapping two users between seats is valid, yet each row alone clashes
        # with the other's stored row: the formset checks that the five users
        # are distinct, and the rows are replaced together.
        return super()._get_validation_exclusions() | {"user"}


class SeatsFormSet(forms.BaseInlineFormSet):
    def seated_users(self) -> list:
        """The users of the rows kept, top to bottom: seat 0 first."""
        return [
            form.cleaned_data["user"]
            for form in self.forms
            if form.cleaned_data
            and form.cleaned_data.get("user")
            and not self._should_delete_form(form)
        ]

    def clean(self) -> None:
        super().clean()
        if not _waiting(self.instance) or any(self.errors):
            return  # a started place's seats are shown read-only and not saved
        users = self.seated_users()
        if len(users) != PLAYERS_PER_PLACE:
            raise ValidationError(
                f"A place needs exactly {PLAYERS_PER_PLACE} players, one per seat "
                f"(not {len(users)})."
            )
        names = [u.get_username() for u in users]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValidationError(f"A user can sit only once in a place: {', '.join(twice)}.")


class PlayerInline(admin.TabularInline):
    model = Player
    form = SeatForm
    formset = SeatsFormSet
    fields = ("seat_no", "user")
    readonly_fields = ("seat_no",)
    autocomplete_fields = ("user",)
    ordering = ("seat",)
    max_num = PLAYERS_PER_PLACE
    verbose_name = "player"
    verbose_name_plural = "players (in seat order: the top row is seat 1)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("user")

    def get_extra(self, request, obj=None, **kwargs) -> int:
        if not _waiting(obj):
            return 0
        seated = obj.players.count() if obj is not None and obj.pk else 0
        return max(0, PLAYERS_PER_PLACE - seated)

    def has_add_permission(self, request, obj=None) -> bool:
        return _waiting(obj) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return _waiting(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return _waiting(obj) and super().has_delete_permission(request, obj)

    @admin.display(description="seat")
    def seat_no(self, player: Player) -> str:
        return str(player.seat + 1) if player.pk else ""


def _names(formset: SeatsFormSet) -> list[str]:
    return [u.get_username() for u in formset.seated_users()]


class TournamentTableFilter(admin.SimpleListFilter):
    """Places apart from tournaments' tables: one tournament may hold hundreds of them."""

    title = _("tournament")
    parameter_name = "in_tournament"

    def lookups(self, request, model_admin):
        return (("yes", _("tables of a tournament")), ("no", _("places of their own")))

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(tournament__isnull=self.value() == "no")
        return queryset


@admin.register(Place)
class PlaceAdmin(admin.ModelAdmin):
    inlines = (PlayerInline,)
    list_display = (
        "title",
        "state",
        "rules",
        "games",
        "pace_display",
        "time_limit",
        "created_at",
    )
    list_filter = ("state", "rules", "rated", TournamentTableFilter, "duplicate_deals")
    search_fields = ("title", "players__user__username", "=id")
    date_hierarchy = "created_at"
    actions = ("start", "next_step", "stop")
    change_form_template = "admin/places/place/change_form.html"
    fieldsets = (
        (
            None,
            {"fields": ("title", "game_count", "pace", "time_limit", "time_bank", "seed", "rated")},
        ),
        (
            "Progress",
            {
                "fields": (
                    "state",
                    "rules",
                    "variant",
                    "tournament_link",
                    "records",
                    "created_at",
                    "started_at",
                    "finished_at",
                )
            },
        ),
    )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                games_played=Count("games", filter=Q(games__status=Game.FINISHED), distinct=True)
            )
        )

    def get_readonly_fields(self, request, obj=None):
        fixed = () if _waiting(obj) else services.FIXED_WHEN_STARTED
        return (
            "state",
            # chosen when the place is made (uecda: its clients' seats get join codes)
            *(("rules", "variant") if obj is not None and obj.pk is not None else ()),
            "tournament_link",
            "records",
            "created_at",
            "started_at",
            "finished_at",
            *fixed,
        )

    # -- columns
    @admin.display(description="games played", ordering="games_played")
    def games(self, place: Place) -> str:
        played = getattr(place, "games_played", None)
        if played is None:
            played = finished_games(state_of(place))
        return f"{played}/{place.game_count}"

    @admin.display(description="pace", ordering="pace")
    def pace_display(self, place: Place) -> str:
        return "manual" if place.pace is None else f"{place.pace:g} s"

    @admin.display(description="tournament")
    def tournament_link(self, place: Place) -> str:
        if place.tournament_id is None:
            return "-"
        return format_html(
            '<a href="{}">{}</a>, table {}',
            reverse("admin:places_tournament_change", args=[place.tournament_id]),
            place.tournament,
            place.table_no + 1,
        )

    @admin.display(description="records")
    def records(self, place: Place) -> str:
        if place.pk is None:
            return "-"
        games = reverse("admin:places_game_changelist") + f"?place__id__exact={place.pk}"
        events = reverse("admin:places_placeevent_changelist") + f"?place__id__exact={place.pk}"
        return format_html(
            '<a href="{}">{} games</a> · <a href="{}">{} events</a>',
            games,
            place.games.count(),
            events,
            place.event_seq,
        )

    # -- saving: creation, settings and seats through the services
    def save_model(self, request, obj: Place, form, change: bool) -> None:
        if not change:
            return  # created with its players by services.create_place, in save_formset
        settings = {name: getattr(obj, name) for name in form.changed_data}
        try:
            _changed, resumed = services.edit_place(obj.pk, **settings)
        except Refused as e:
            messages.error(request, f"{obj}: {e.message}")
            return
        if resumed:
            messages.info(request, f"{obj}: resumed at a pace of {obj.pace:g} s.")

    def save_formset(self, request, form, formset, change: bool) -> None:
        if formset.model is not Player:
            super().save_formset(request, form, formset, change)
            return
        place: Place = form.instance
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        if not change:
            created = services.create_place(
                place.title,
                _names(formset),
                game_count=place.game_count,
                pace=place.pace,
                time_limit=place.time_limit,
                seed=place.seed,
                time_bank=place.time_bank,
                rated=place.rated,
                rules=place.rules_label,
            )
            place.pk = created.pk
            place._state.adding = False
            place.refresh_from_db()
            formset.new_objects = list(created.players.all())
            return
        if not formset.has_changed():
            return
        try:
            old, new = services.reseat_place(place.pk, _names(formset))
        except Refused as e:
            messages.warning(request, f"{e.message}.")
            return
        kept = {(p.user_id, p.seat) for p in old}
        formset.new_objects = [p for p in new if (p.user_id, p.seat) not in kept]
        formset.deleted_objects = [p for p in old if (p.user_id, p.seat) not in kept]

    # -- actions: the service's refusals become messages
    @admin.action(description="Start the selected places", permissions=["change"])
    def start(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._run(request, queryset, services.start_place, "Started")

    @admin.action(description="Next step of the selected places", permissions=["change"])
    def next_step(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._run(request, queryset, services.next_turn, "Stepped")

    @admin.action(
        description="Stop the selected places (the game in play is dropped)",
        permissions=["change"],
    )
    def stop(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._run(request, queryset, services.stop_place, "Stopped")

    def _run(
        self, request: HttpRequest, queryset: QuerySet, change: Callable[[int], None], done: str
    ) -> None:
        ok = []
        for place in queryset.order_by("pk"):
            try:
                change(place.pk)
            except Refused as e:
                self.message_user(request, f"{place}: {e.message}", messages.ERROR)
            else:
                ok.append(str(place))
        if ok:
            self.message_user(request, f"{done}: {', '.join(ok)}.", messages.SUCCESS)

    # -- the change form's buttons
    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("<path:object_id>/start/", wrap(self.start_view), name="places_place_start"),
            path(
                "<path:object_id>/next_step/",
                wrap(self.next_step_view),
                name="places_place_next_step",
            ),
            path("<path:object_id>/stop/", wrap(self.stop_view), name="places_place_stop"),
            *super().get_urls(),
        ]

    def start_view(self, request: HttpRequest, object_id: str):
        return self._button(request, object_id, services.start_place, "Started")

    def next_step_view(self, request: HttpRequest, object_id: str):
        return self._button(request, object_id, services.next_turn, "Stepped")

    def stop_view(self, request: HttpRequest, object_id: str):
        return self._button(request, object_id, services.stop_place, "Stopped")

    def _button(self, request, object_id, change, done):
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        place = get_object_or_404(Place, pk=object_id)
        if not self.has_change_permission(request, place):
            raise PermissionDenied
        self._run(request, Place.objects.filter(pk=place.pk), change, done)
        return HttpResponseRedirect(reverse("admin:places_place_change", args=[place.pk]))


# -- tournaments -----------------------------------------------------------------------------


#: A tournament's settings, as ``services.create_tournament`` takes them (the title apart).
TOURNAMENT_SETTINGS = (
    "format",
    "game_count",
    "pace",
    "time_limit",
    "time_bank",
    "seed",
    "max_running",
    "rated",
)


class TournamentForm(forms.ModelForm):
    """A new tournament: its rules, settings and entrants by name (the schedule numbers them
    so), made by ``create_tournament`` as the shell command makes it: its refusals are
    the form's errors."""

    entrant_names = forms.CharField(
        label="entrants",
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="user names, one per line (five or more)",
    )

    class Meta:
        model = Tournament
        fields = ("title", "rules", "variant", *TOURNAMENT_SETTINGS)
        help_texts = {
            "variant": "uecda only: switches changed, e.g. 6reverse+11back (docs/rules.md)"
        }

    def clean(self) -> dict:
        data = super().clean()
        if self.errors:  # a field is wrong: make nothing with the defaults in its place
            return data
        names = [n.strip() for n in data.get("entrant_names", "").splitlines() if n.strip()]
        settings = {k: data[k] for k in TOURNAMENT_SETTINGS if k in data}
        settings["rules"] = label_of(data["rules"], data.get("variant", "").strip())
        try:
            self.created = services.create_tournament(data.get("title", ""), names, **settings)
        except Refused as e:
            raise ValidationError(e.message) from None
        return data


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Tournaments are made (with all their places) and started through the services."""

    list_display = (
        "title",
        "format",
        "rules",
        "variant",
        "state",
        "entrant_count",
        "places_done",
        "created_at",
    )
    list_filter = ("state", "format", "rules", "rated")
    date_hierarchy = "created_at"
    search_fields = ("title", "=id")
    actions = ("start",)
    readonly_fields = (
        "rules",
        "variant",
        "state",
        "pages",
        "entrant_list",
        "join_codes",
        "created_at",
        "started_at",
        "finished_at",
    )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                entrants_n=Count("entrants", distinct=True),
                places_n=Count("places", distinct=True),
                finished_n=Count(
                    "places", filter=Q(places__state=Place.State.FINISHED), distinct=True
                ),
            )
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = TournamentForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("title", "rules", "variant", *TOURNAMENT_SETTINGS, "entrant_names")
        return ("title", *TOURNAMENT_SETTINGS, *self.readonly_fields)

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ()
        return ("title", *TOURNAMENT_SETTINGS, *self.readonly_fields)

    def save_model(self, request, obj: Tournament, form, change: bool) -> None:
        if change:
            return  # nothing of a tournament changes once made
        obj.pk = form.created.pk
        obj._state.adding = False
        obj.refresh_from_db()

    @admin.display(description="entrants", ordering="entrants_n")
    def entrant_count(self, t: Tournament) -> int:
        return t.entrants_n

    @admin.display(description="places finished")
    def places_done(self, t: Tournament) -> str:
        return f"{t.finished_n}/{t.places_n}"

    @admin.display(description="entrants")
    def entrant_list(self, t: Tournament) -> str:
        return ", ".join(t.entrants.order_by("no").values_list("user__username", flat=True))

    @admin.display(description="join codes")
    def join_codes(self, t: Tournament) -> str:
        """A uecda tournament's entrant codes, for staff to hand out (``join_codes``)."""
        codes = tournament_codes(t.pk) if t.pk is not None else []
        if not codes:
            return "-"
        return format_html_join(
            mark_safe("<br>"), "{} <code>{}</code>", ((name, code) for _, name, code in codes)
        )

    @admin.display(description="pages")
    def pages(self, t: Tournament) -> str:
        if t.pk is None:
            return "-"
        places = reverse("admin:places_place_changelist") + f"?tournament__id__exact={t.pk}"
        return format_html(
            '<a href="/tournaments/{}/">standings</a> · <a href="{}">places</a>', t.pk, places
        )

    @admin.action(description="Start the selected tournaments", permissions=["change"])
    def start(self, request: HttpRequest, queryset: QuerySet) -> None:
        for t in queryset.order_by("pk"):
            try:
                started = services.start_tournament(t.pk)
            except Refused as e:
                self.message_user(request, f"{t}: {e.message}", messages.ERROR)
            else:
                self.message_user(
                    request, f"{t}: started, {started} places starting.", messages.SUCCESS
                )


# -- house bots ------------------------------------------------------------------------------


class HouseBotForm(forms.ModelForm):
    strategy = forms.ChoiceField(choices=[(n, n) for n in house_bots.STRATEGY_NAMES])

    class Meta:
        model = HouseBot
        fields = ("user", "strategy")


@admin.register(HouseBot)
class HouseBotAdmin(admin.ModelAdmin):
    """Users the server plays itself. Saving makes the user a house bot through the service,
    which also makes its password unusable; seat them in places like any other user."""

    form = HouseBotForm
    list_display = ("user", "strategy")
    list_filter = ("strategy",)
    search_fields = ("user__username",)
    autocomplete_fields = ("user",)

    def get_readonly_fields(self, request, obj=None):
        return ("user",) if obj is not None else ()

    def save_model(self, request, obj: HouseBot, form, change: bool) -> None:
        house_bots.make_house_user(obj.user.get_username(), obj.strategy)

    def delete_model(self, request, obj: HouseBot) -> None:
        house_bots.release_house_user(obj.user_id)

    def delete_queryset(self, request, queryset: QuerySet) -> None:
        for user_id in queryset.values_list("user_id", flat=True):
            house_bots.release_house_user(user_id)


# -- users -----------------------------------------------------------------------------------


def _checked_name(name: str, user_id: int | None = None) -> str:
    """The name a user is given here (as stored), by the one rule and free of look-alikes
    of other users' names (``places.services.accounts``)."""
    try:
        name = accounts.check_new_name(name)
        accounts.check_name_free(name, user_id)
    except Refused as e:
        raise ValidationError(e.message) from None
    return name


class UserCreationForm(auth_forms.AdminUserCreationForm):
    def clean_username(self) -> str:
        return _checked_name(super().clean_username())


class UserChangeForm(auth_forms.UserChangeForm):
    def clean_username(self) -> str:
        name = self.cleaned_data["username"]
        if name == self.instance.get_username():
            return name
        return _checked_name(name, self.instance.pk)


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class UserAdmin(auth_admin.UserAdmin):
    """Django's, with the site's rule for names, and accounts disabled in one go."""

    add_form = UserCreationForm
    form = UserChangeForm
    actions = ("disable",)

    @admin.action(description="Disable the selected accounts", permissions=["change"])
    def disable(self, request: HttpRequest, queryset: QuerySet) -> None:
        count = accounts.disable(queryset.exclude(pk=request.user.pk).values_list("pk", flat=True))
        self.message_user(request, f"Disabled {count} accounts.", messages.SUCCESS)


# -- the record: read-only --------------------------------------------------------------


class RecordAdmin(admin.ModelAdmin):
    """Rows written by the services as a place runs: looked at, never edited."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class RecordInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def _name(player: Player) -> str:
    return player.user.get_username()


class RankInline(RecordInline):
    model = Rank
    fields = readonly_fields = ("rank", "player_name", "created_at")
    ordering = ("rank",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player__user")

    @admin.display(description="player")
    def player_name(self, rank: Rank) -> str:
        return _name(rank.player)


class HandInline(RecordInline):
    model = Hand
    fields = readonly_fields = ("player_name", "dealt_cards", "given_cards", "received_cards")
    ordering = ("player__seat",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player__user")

    @admin.display(description="player")
    def player_name(self, hand: Hand) -> str:
        return _name(hand.player)

    @admin.display(description="dealt")
    def dealt_cards(self, hand: Hand) -> str:
        return shown.written(hand.dealt)

    @admin.display(description="gave")
    def given_cards(self, hand: Hand) -> str:
        return shown.written(hand.given)

    @admin.display(description="received")
    def received_cards(self, hand: Hand) -> str:
        return shown.written(hand.received)


class TurnDisplay:
    """Columns shared by the turn inline and the turn list."""

    @admin.display(description="player")
    def player_name(self, turn: Turn) -> str:
        return _name(turn.player)

    @admin.display(description="table")
    def table_cards(self, turn: Turn) -> str:
        return shown.written(turn.table)

    @admin.display(description="played")
    def played(self, turn: Turn) -> str:
        return shown.written(turn.cards)

    @admin.display(description="written")
    def written(self, turn: Turn) -> str:
        return " ".join(turn.submitted)


class TurnInline(TurnDisplay, RecordInline):
    model = Turn
    fields = readonly_fields = (
        "no",
        "player_name",
        "table_cards",
        "revolution",
        "played",
        "outcome",
        "reason",
        "reset",
        "opened_at",
        "settled_at",
    )
    ordering = ("no",)

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("player__user")


@admin.register(Game)
class GameAdmin(RecordAdmin):
    list_display = ("place", "no", "status", "place_info", "created_at", "updated_at")
    list_filter = ("status", "place_info")
    search_fields = ("place__title", "=place__id")
    list_select_related = ("place",)
    inlines = (RankInline, HandInline, TurnInline)


@admin.register(Turn)
class TurnAdmin(TurnDisplay, RecordAdmin):
    list_display = (
        "game",
        "no",
        "player_name",
        "table_cards",
        "played",
        "outcome",
        "reason",
        "reset",
        "opened_at",
        "settled_at",
    )
    list_filter = ("outcome", "reset", "revolution")
    search_fields = ("game__place__title", "=game__place__id", "player__user__username")
    list_select_related = ("game__place", "player__user")
    fields = readonly_fields = (
        "game",
        "no",
        "player_name",
        "table_cards",
        "revolution",
        "played",
        "written",
        "outcome",
        "reason",
        "reset",
        "opened_at",
        "deadline",
        "settled_at",
    )


@admin.register(Rank)
class RankAdmin(RecordAdmin):
    list_display = ("game", "rank", "player_name", "created_at")
    list_filter = ("rank",)
    search_fields = ("game__place__title", "=game__place__id", "player__user__username")
    list_select_related = ("game__place", "player__user")

    @admin.display(description="player")
    def player_name(self, rank: Rank) -> str:
        return _name(rank.player)


@admin.register(PlaceEvent)
class PlaceEventAdmin(RecordAdmin):
    list_display = ("place", "seq", "operation", "created_at", "excerpt")
    list_filter = ("operation",)
    search_fields = ("place__title", "=place__id")
    list_select_related = ("place",)

    @admin.display(description="message")
    def excerpt(self, event: PlaceEvent) -> str:
        text = event.message
        return text if len(text) <= 80 else text[:79] + "…"
