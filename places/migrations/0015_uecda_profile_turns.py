"""The profiles of UECda players count their turns: plays, passes, misses, timeouts,
revolutions and 8-cuts, read from each game's version 2 record (they counted only ranks
and points before: "0 turns, 0 revolutions" after 3,000 games)."""

from django.db import migrations


def recount_uecda_players(apps, schema_editor):
    from places.services.profiles import recount

    Player = apps.get_model("places", "Player")
    users = set(
        Player.objects.filter(place__rules="uecda").values_list("user_id", flat=True).distinct()
    )
    if users:
        recount(users, apps)


class Migration(migrations.Migration):

    dependencies = [
        ("places", "0014_ratings_by_rules"),
    ]

    operations = [
        migrations.RunPython(recount_uecda_players, migrations.RunPython.noop, elidable=True),
    ]
