"""A name key is one user's (issue 44, item 7): two look-alike names signed up at the same
moment both passed the check made before, and both were kept."""

from django.db import migrations, models
from django.db.models import Count, Min


def keep_first_holder(apps, schema_editor):
    """Of users before whose keys met (made before the check, or at the same moment),
    the first made keeps the key; the others' rows of it go, their users stay."""
    name_key = apps.get_model("places", "NameKey")
    met = name_key.objects.values("key").annotate(n=Count("id"), first=Min("user_id"))
    for row in met.filter(n__gt=1).order_by():
        name_key.objects.filter(key=row["key"]).exclude(user_id=row["first"]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("places", "0017_rules_variants"),
    ]

    operations = [
        migrations.RunPython(keep_first_holder, migrations.RunPython.noop),
        migrations.RemoveConstraint(model_name="namekey", name="one_name_key"),
        migrations.AlterField(model_name="namekey", name="key", field=models.TextField()),
        migrations.AddConstraint(
            model_name="namekey",
            constraint=models.UniqueConstraint(fields=("key",), name="one_user_per_name_key"),
        ),
    ]
