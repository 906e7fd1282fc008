"""A rating per rule book: the ratings so far mixed 2011 and UECda games in one.

Each user's rating in each book is made again from its rated games, in the order they
were rated (``RatingChange``'s), by the model ``places/services/ratings.py`` uses; each
``RatingChange`` is rewritten to the rating after its game in its book.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def rate_again_by_rules(apps, schema_editor):
    from openskill.models import PlackettLuce

    RulesRating = apps.get_model("places", "RulesRating")
    RatingChange = apps.get_model("places", "RatingChange")
    Rank = apps.get_model("places", "Rank")
    model = PlackettLuce()
    ratings: dict[tuple[int, str], list] = {}  # (user, rules) -> [mu, sigma, games, last]
    changes = RatingChange.objects.order_by("id").values_list(
        "id", "game_id", "user_id", "game__place__rules", "created_at"
    )
    by_game: dict[int, list] = {}
    order: list[int] = []
    for change in changes.iterator(chunk_size=2000):
        if change[1] not in by_game:
            by_game[change[1]] = []
            order.append(change[1])
        by_game[change[1]].append(change)
    for game_id in order:
        rows = by_game.pop(game_id)
        rank_of = dict(
            Rank.objects.filter(game_id=game_id).values_list("player__user_id", "rank")
        )
        rated = [row for row in rows if row[2] in rank_of]
        if len(rated) < 2:
            continue
        rules, now = rated[0][3], rated[0][4]
        before = []
        for _, _, user_id, _, _ in rated:
            held = ratings.setdefault((user_id, rules), [model.mu, model.sigma, 0, now])
            before.append([model.create_rating([held[0], held[1]])])
        after = model.rate(before, ranks=[rank_of[row[2]] for row in rated])
        for (change_id, _, user_id, _, _), (new,) in zip(rated, after, strict=True):
            held = ratings[user_id, rules]
            held[0], held[1], held[2], held[3] = new.mu, new.sigma, held[2] + 1, now
            RatingChange.objects.filter(pk=change_id).update(mu=new.mu, sigma=new.sigma)
    RulesRating.objects.bulk_create(
        [
            RulesRating(user_id=user_id, rules=rules, mu=mu, sigma=sigma, games=games,
                        last_played=last)
            for (user_id, rules), (mu, sigma, games, last) in ratings.items()
        ],
        batch_size=1000,
    )


class Migration(migrations.Migration):

    dependencies = [
        ("places", "0013_game_analysis"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RulesRating",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("rules", models.CharField(choices=[("daihinmin-2011", "daihinmin 2011 (the platform's rules)"), ("uecda", "UECda (tndhms's defaults)")], default="daihinmin-2011", max_length=16, verbose_name="rules")),
                ("mu", models.FloatField()),
                ("sigma", models.FloatField()),
                ("games", models.PositiveIntegerField(default=0)),
                ("last_played", models.DateTimeField()),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="ratings", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["-mu"]},
        ),
        migrations.RunPython(rate_again_by_rules, migrations.RunPython.noop, elidable=True),
        migrations.DeleteModel(name="Rating"),
        migrations.RenameModel(old_name="RulesRating", new_name="Rating"),
        migrations.AddConstraint(
            model_name="rating",
            constraint=models.UniqueConstraint(fields=("user", "rules"), name="one_rating_per_user_and_rules"),
        ),
    ]
