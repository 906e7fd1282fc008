"""Accounts (``places/services/accounts.py``): the one rule for new names, who has a
profile, and disabling an account (issue 28, item 12)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from places import errors
from places.errors import Refused
from places.services import accounts, house

pytestmark = pytest.mark.django_db

#: Names no user may take: a profile path would not reach them.
UNREACHABLE = ["x.json", "x.JSON", "bot.xml", "a.jsonl", "t.csv", ".", ".."]


@pytest.mark.parametrize("name", UNREACHABLE)
def test_the_rule_refuses_a_route_suffix_and_dots_only(name):
    with pytest.raises(Refused) as e:
        accounts.check_new_name(name)
    assert e.value.code == errors.INVALID_NAME


@pytest.mark.parametrize("name", ["alice", "bot.v2", "json", "x.jsonx", "a_b-c@d+e", "x" * 150])
def test_the_rule_takes_ordinary_names(name):
    assert accounts.check_new_name(name) == name


@pytest.mark.parametrize("name", ["a b", "", "x" * 151, "名前?"])
def test_the_rule_keeps_django_s_own(name):
    with pytest.raises(Refused) as e:
        accounts.check_new_name(name)
    assert e.value.code == errors.INVALID_NAME


def test_create_user_refuses_a_name_its_profile_would_not_reach():
    with pytest.raises(CommandError) as e:
        call_command("create_user", "x.json", "--password", "pw")
    assert "x.json" in str(e.value) and ".json" in str(e.value)
    with pytest.raises(CommandError):
        call_command("create_user", "y.json", "--house", "greedy")
    assert not get_user_model().objects.filter(username__in=["x.json", "y.json"]).exists()


def test_create_user_refuses_a_name_taken_in_another_case():
    call_command("create_user", "alice", "--password", "pw")
    with pytest.raises(CommandError) as e:
        call_command("create_user", "ALICE", "--password", "pw")
    assert str(e.value) == "the name 'ALICE' is taken"
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["alice"]


def test_create_user_still_changes_a_user_made_before_the_rule():
    get_user_model().objects.create_user("old.json", password="pw")
    user, created = house.make_wire_user("old.json", "new-pw")
    assert not created and user.check_password("new-pw")


def test_the_admin_refuses_the_name_when_it_makes_a_user(admin_client):
    response = admin_client.post(
        "/admin/auth/user/add/",
        {
            "username": "x.json",
            "password1": "Long-pass-9",
            "password2": "Long-pass-9",
            "usable_password": "true",
        },
    )
    assert response.status_code == 200  # the form again, with the error
    assert "may not end in" in response.content.decode()
    assert not get_user_model().objects.filter(username="x.json").exists()
    response = admin_client.post(
        "/admin/auth/user/add/",
        {
            "username": "fine",
            "password1": "Long-pass-9",
            "password2": "Long-pass-9",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="fine").exists()


def test_the_admin_refuses_the_name_when_it_renames_a_user(admin_client):
    user = get_user_model().objects.create_user("bob", password="pw")
    page = admin_client.get(f"/admin/auth/user/{user.pk}/change/")
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "password"}
    data.update(username="bob.json", date_joined_0="2026-01-01", date_joined_1="00:00:00")
    data.pop("groups", None), data.pop("user_permissions", None), data.pop("date_joined", None)
    data.pop("last_login", None)
    response = admin_client.post(f"/admin/auth/user/{user.pk}/change/", data)
    assert response.status_code == 200
    assert "may not end in" in response.content.decode()
    user.refresh_from_db()
    assert user.username == "bob"


def test_the_admin_disables_accounts_but_not_its_own(admin_client, django_user_model):
    bob = django_user_model.objects.create_user("bob", password="pw")
    me = django_user_model.objects.get(username="admin")
    response = admin_client.post(
        "/admin/auth/user/",
        {"action": "disable", "_selected_action": [bob.pk, me.pk]},
    )
    assert response.status_code == 302
    bob.refresh_from_db(), me.refresh_from_db()
    assert not bob.is_active and me.is_active


# -- who has a profile ---------------------------------------------------------------------


def test_staff_who_never_played_have_no_profile_like_a_missing_user(client):
    get_user_model().objects.create_user("root", password="pw", is_staff=True)
    get_user_model().objects.create_user("newcomer", password="pw")
    for name in ("root", "newcomer", "nobody"):
        assert client.get(f"/users/{name}").status_code == 404
        response = client.get(f"/users/{name}.json")
        assert response.status_code == 404
        assert json.loads(response.content) == {
            "error": {"code": "NOT_FOUND", "message": f"no player {name}"}
        }


# -- names as stored, and names that look alike (issue 36, item 3) ----------------------------

CYRILLIC_VICTIM = "v\u0456ctim"  # і, U+0456


def test_every_way_of_making_a_user_refuses_a_look_alike(admin_client):
    get_user_model().objects.create_user("victim", password="pw")
    with pytest.raises(CommandError) as e:
        call_command("create_user", CYRILLIC_VICTIM, "--password", "pw")
    assert "looks like 'victim'" in str(e.value)
    with pytest.raises(CommandError):
        call_command("create_user", CYRILLIC_VICTIM, "--house", "greedy")
    response = admin_client.post(
        "/admin/auth/user/add/",
        {
            "username": CYRILLIC_VICTIM,
            "password1": "Long-pass-9",
            "password2": "Long-pass-9",
            "usable_password": "true",
        },
    )
    assert response.status_code == 200 and "looks like" in response.content.decode()
    with pytest.raises(Refused) as refused:
        accounts.sign_up(CYRILLIC_VICTIM, "a long pass phrase")
    assert refused.value.code == errors.NAME_CONFUSABLE
    assert not get_user_model().objects.filter(username=CYRILLIC_VICTIM).exists()


def test_create_user_stores_the_name_as_django_does_and_finds_it_so():
    call_command("create_user", "ＡＢＣ", "--password", "pw")  # fullwidth
    user = get_user_model().objects.get()
    assert user.username == "ABC"
    call_command("create_user", "ＡＢＣ", "--password", "pw2")  # the same user, changed
    user.refresh_from_db()
    assert user.check_password("pw2") and get_user_model().objects.count() == 1


def test_the_admin_refuses_a_rename_to_a_look_alike_but_not_to_itself(admin_client):
    get_user_model().objects.create_user("victim", password="pw")
    user = get_user_model().objects.create_user("bob", password="pw")
    page = admin_client.get(f"/admin/auth/user/{user.pk}/change/")
    form = page.context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "password"}
    data.update(date_joined_0="2026-01-01", date_joined_1="00:00:00")
    for key in ("groups", "user_permissions", "date_joined", "last_login"):
        data.pop(key, None)
    response = admin_client.post(f"/admin/auth/user/{user.pk}/change/", {**data,
                                 "username": CYRILLIC_VICTIM})  # fmt: skip
    assert response.status_code == 200 and "looks like" in response.content.decode()
    response = admin_client.post(f"/admin/auth/user/{user.pk}/change/", {**data,
                                 "username": "B0B"})  # fmt: skip
    assert response.status_code == 302  # like bob, and bob is this user
    user.refresh_from_db()
    assert user.username == "B0B"
    assert set(user.name_keys.values_list("key", flat=True)) == {"bob"}


def test_users_whose_names_look_alike_from_before_keep_working(client):
    model = get_user_model()
    model.objects.create_user("victim", password="victim-pw")
    # as before the rule: a look-alike made unchecked, and left by migration 0018 without
    # the key the first holds
    other = model.objects.create_user("someone", password="pw")
    model.objects.filter(pk=other.pk).update(username=CYRILLIC_VICTIM)
    other.name_keys.all().delete()
    for name in ("victim", CYRILLIC_VICTIM):
        user, created = house.make_wire_user(name, "new-pw")  # the command changes them
        assert not created and user.username == name
        assert client.login(username=name, password="new-pw")


def test_the_migration_gives_the_users_before_it_their_keys():
    from importlib import import_module

    from django.apps import apps

    from places.models import NameKey

    migration = import_module("places.migrations.0011_name_keys")
    model = get_user_model()
    for c in "abcde":
        model.objects.create_user(f"user{c}", password="pw")
    model.objects.create_user("Iris", password="pw")
    NameKey.objects.all().delete()
    migration.fill_name_keys(apps, None)
    keys = {(u, k) for u, k in NameKey.objects.values_list("user__username", "key")}
    assert keys == {(f"user{c}", f"user{c}") for c in "abcde"} | {
        ("Iris", "lris"),
        ("Iris", "iris"),
    }
    with pytest.raises(Refused) as e:
        accounts.check_name_free("lris")
    assert e.value.code == errors.NAME_CONFUSABLE
