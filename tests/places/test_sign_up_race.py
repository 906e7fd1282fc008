"""Two look-alike names signed up at the same moment (issue 44, item 7): both pass the
check made before the insert, and the database's one-user-per-name-key index refuses
the second (``places.services.accounts.sign_up``, migration 0018). Runs on SQLite and,
with ``DATABASE_URL``, on PostgreSQL."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction

from places import errors
from places.confusable import name_keys
from places.errors import Refused
from places.models import NameKey
from places.services import accounts

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long pass phrase"
CYRILLIC_VICTIM = "v\u0456ctim"  # a Cyrillic і
ROUNDS = 3


def _at_once(names: list[str]) -> list[object]:
    """Each name signed up by its own thread, the threads let go together: the user or the
    refusal of each."""
    barrier = threading.Barrier(len(names))
    results: list[object] = [None] * len(names)

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = accounts.sign_up(names[i], PASSWORD)
        except Exception as e:  # noqa: BLE001 - the outcome is what is checked
            results[i] = e
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(names))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.parametrize(
    ("names", "code"),
    [
        (["name", "NAME"], errors.NAME_TAKEN),
        (["victim", CYRILLIC_VICTIM], errors.NAME_CONFUSABLE),
        (["Racer", "racer", "RACER"], errors.NAME_TAKEN),
    ],
)
def test_look_alikes_signed_up_at_the_same_moment_make_one_user(settings, names, code):
    settings.SIGN_UP = True
    users = get_user_model().objects
    for round_no in range(ROUNDS):
        results = _at_once(names)
        made = [r for r in results if not isinstance(r, Exception)]
        refused = [r for r in results if isinstance(r, Exception)]
        print(f"round {round_no + 1}: {len(made)} made, refused: {[r.code for r in refused]}")
        assert len(made) == 1, results
        assert all(isinstance(r, Refused) and r.code == code for r in refused), results
        assert users.filter(username__in=names).count() == 1
        keys = NameKey.objects.filter(user=made[0])
        assert set(keys.values_list("key", flat=True)) == name_keys(made[0].username)
        users.filter(pk=made[0].pk).delete()  # the next round starts afresh


def test_a_name_key_is_one_users_in_the_database():
    """Whatever path makes a user, the second holder of a key is refused by the database."""
    users = get_user_model().objects
    users.create_user("alice", password=PASSWORD)
    with pytest.raises(IntegrityError), transaction.atomic():
        users.create_user("ALICE", password=PASSWORD)  # past the service's check
    assert not users.filter(username="ALICE").exists()


def test_the_migration_leaves_each_key_to_the_first_of_the_users_before_it():
    """Users whose keys met before migration 0018 keep working; the first made keeps the key."""
    from django.db.migrations.executor import MigrationExecutor

    before = [("places", "0017_rules_variants")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        users, keys = old.get_model("auth", "User"), old.get_model("places", "NameKey")
        first = users.objects.create(username="victim", password="!")
        second = users.objects.create(username=CYRILLIC_VICTIM, password="!")
        third = users.objects.create(username="other", password="!")
        keys.objects.bulk_create(
            [keys(user_id=u.pk, key=k) for u in (first, second, third)
             for k in name_keys(u.username)]
        )  # fmt: skip
    finally:  # 0018 and every migration after it: the tests after this one need them all
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    held = sorted(NameKey.objects.values_list("user__username", "key"))
    assert held == [("other", "other"), ("victim", "victirn")]
    with pytest.raises(Refused) as e:
        accounts.check_name_free("VICTIM")
    assert e.value.code == errors.NAME_TAKEN
