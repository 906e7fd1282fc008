"""Practice places marked as such; the per-player aggregates of finished games (profiles)."""

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
    Place.objects.filter(pk__in=list(made.values_list("pk", flat=True))).update(practice=True)


class Migration(migrations.Migration):
    dependencies = [
        ("places", "0003_tournaments_ratings_time_bank"),
    ]

    operations = [
        migrations.AddField(
            model_name="place",
            name="practice",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(mark_practices, migrations.RunPython.noop),
    ]
