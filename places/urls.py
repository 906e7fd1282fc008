"""Staff endpoints (PROTOCOL.md §5), the public event log and the place pages, included at ""."""

from django.urls import re_path

from places.views import (
    account,
    games,
    log,
    pages,
    profiles,
    records,
    replay,
    staff,
    tournaments,
)

#: A place's id in a path: longer ids overflow the database's integers.
PLACE_ID = r"(?P<place_id>[0-9]{1,18})"
ID = rf"^places/{PLACE_ID}/"
TOURNAMENT_ID = r"(?P<tournament_id>[0-9]{1,18})"
USER_NAME = r"(?P<name>[\w.@+-]{1,150})"

urlpatterns = [
    re_path(ID + r"start(?:\.json)?$", staff.start, name="staff-start"),
    re_path(ID + r"next_turn(?:\.json)?$", staff.next_turn, name="staff-next-turn"),
    re_path(ID + r"stop(?:\.json)?$", staff.stop, name="staff-stop"),
    re_path(ID + r"info\.json$", staff.info, name="staff-info"),
    re_path(ID + r"players_card\.json$", staff.players_card, name="staff-players-card"),
    re_path(ID + r"graph\.json$", staff.graph, name="staff-graph"),
    re_path(ID + r"events\.json$", log.events, name="place-events"),
    re_path(
        ID + r"games/(?P<game_no>[0-9]{1,9})/record\.json$", records.record, name="game-record"
    ),
    re_path(ID + r"records\.jsonl$", records.records, name="place-records"),
    # a game's analysis.json: api/urls.py (read, or asked for by a session or a token)
    # pages (read-only)
    re_path(ID + r"$", pages.live, name="place-live"),
    re_path(ID + r"state\.json$", pages.state, name="place-state"),
    re_path(ID + r"results$", pages.results, name="place-results"),
    re_path(ID + r"results\.csv$", pages.results_csv, name="place-results-csv"),
    re_path(ID + r"games/(?P<game_no>[0-9]{1,9})/replay$", replay.replay, name="game-replay"),
    # profiles: a Django user name (letters, digits, @ . + - _); the JSON first, since "." is one
    re_path(rf"^users/{USER_NAME}\.json$", profiles.profile_json, name="profile-json"),
    re_path(rf"^users/{USER_NAME}$", profiles.profile_page, name="profile"),
    # the slash that /places/1/ needs: here to the profile's own address, not a 404
    re_path(rf"^users/{USER_NAME}/$", profiles.profile_slash),
    # the game search
    re_path(r"^games\.json$", games.games_json, name="games-json"),
    re_path(r"^games$", games.games_page, name="games"),
    # tournaments and ratings
    re_path(r"^tournaments/$", tournaments.tournament_list, name="tournaments"),
    re_path(rf"^tournaments/{TOURNAMENT_ID}/$", tournaments.tournament_page, name="tournament"),
    re_path(
        rf"^tournaments/{TOURNAMENT_ID}\.json$", tournaments.tournament_json, name="tournament-json"
    ),
    re_path(
        rf"^tournaments/{TOURNAMENT_ID}/records\.jsonl$",
        records.tournament_records,
        name="tournament-records",
    ),
    re_path(
        rf"^tournaments/{TOURNAMENT_ID}/standings\.csv$",
        tournaments.standings_csv,
        name="tournament-standings-csv",
    ),
    re_path(r"^account$", account.account, name="account"),
    re_path(r"^ratings$", tournaments.leaderboard, name="ratings"),
    re_path(r"^ratings\.json$", tournaments.ratings_json, name="ratings-json"),
]
