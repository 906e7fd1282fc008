"""A uecda tournament entrant's one join code, valid for each of its tables in turn."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("places", "0015_uecda_profile_turns"),
    ]

    operations = [
        migrations.CreateModel(
            name="EntrantCode",
            fields=[
                (
                    "entrant",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="join_code",
                        serialize=False,
                        to="places.entrant",
                    ),
                ),
                ("code", models.CharField(max_length=14)),
                ("digest", models.CharField(max_length=64, unique=True)),
            ],
        ),
    ]
