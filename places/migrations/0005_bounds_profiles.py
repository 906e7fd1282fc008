"""Practice places marked as such; the per-player aggregates of finished games (profiles)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import Count, Q


def mark_practices(apps, schema_editor):
    """The places ``POST /practice`` made before the mark: titled so, outside tournaments,
    four of their five players house bots."""
    Place = apps.get_model("places", "Place")
    made = (
        Place.objects.filter(title="Practice", tournament__isnull=True)
        .annotate(house=Count("players", filter=Q(players__user__house_bot__isnull=False)))
        .filter(house=4)
        .values("pk")
    )
    Place.objects.filter(pk__in=made).update(practice=True)


def fill_profiles(apps, schema_editor):
    """Every finished game so far, added up as each new one is when it ends."""
    from places.services.profiles import recount

    recount(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("places", "0004_accounts"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="place",
            name="practice",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(mark_practices, migrations.RunPython.noop),
        migrations.CreateModel(
            name="ProfileTotals",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="+",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("games", models.PositiveIntegerField(default=0)),
                ("points", models.PositiveIntegerField(default=0)),
                ("rank_counts", models.JSONField(default=list)),
                ("turns", models.PositiveIntegerField(default=0)),
                ("plays", models.PositiveIntegerField(default=0)),
                ("cards_played", models.PositiveIntegerField(default=0)),
                ("passes", models.PositiveIntegerField(default=0)),
                ("pass_chances", models.PositiveIntegerField(default=0)),
                ("timeouts", models.PositiveIntegerField(default=0)),
                ("misses", models.JSONField(default=dict)),
                ("revolutions", models.PositiveIntegerField(default=0)),
                ("eight_cuts", models.PositiveIntegerField(default=0)),
                ("answered", models.PositiveIntegerField(default=0)),
                ("think_us", models.BigIntegerField(default=0)),
            ],
        ),
        migrations.AddField(
            model_name="player",
            name="games",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="player",
            name="points",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.CreateModel(
            name="ProfileOpponent",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("games", models.PositiveIntegerField(default=0)),
                ("above", models.PositiveIntegerField(default=0)),
                ("points", models.PositiveIntegerField(default=0)),
                ("their_points", models.PositiveIntegerField(default=0)),
                (
                    "opponent",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "opponent"), name="one_tally_per_opponent"
                    )
                ],
            },
        ),
        migrations.CreateModel(
            name="ProfileThink",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("tenths", models.IntegerField()),
                ("turns", models.PositiveIntegerField(default=0)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "tenths"), name="one_count_per_think_time"
                    )
                ],
            },
        ),
        migrations.RunPython(fill_profiles, migrations.RunPython.noop),
    ]
