"""``create_user NAME --password PW [--staff]``: a user, new or with a new password."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import transaction

from places.management.base import OneLineCommand


class Command(OneLineCommand):
    help = (
        "Create a user, or set an existing user's password "
        "(and staff flag, when --staff or --no-staff is given)."
    )

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--password", required=True)
        parser.add_argument(
            "--staff",
            action="store_true",
            default=None,
            help="may use the admin pages and the staff endpoints",
        )
        parser.add_argument(
            "--no-staff", dest="staff", action="store_false", default=None, help="no longer staff"
        )

    def handle(self, *args, name: str, password: str, staff: bool | None, **options):
        model = get_user_model()
        if not password:
            raise CommandError("the password must not be empty")
        username_field = model._meta.get_field(model.USERNAME_FIELD)
        try:
            username_field.clean(name, None)
        except ValidationError as e:
            raise CommandError(f"bad user name {name!r}: {' '.join(e.messages)}") from None
        # Bots get whatever password their script gives them: the password
        # validators are for people choosing one in a form.
        with transaction.atomic():
            user = model.objects.select_for_update().filter(**{model.USERNAME_FIELD: name}).first()
            created = user is None
            if created:
                user = model(**{model.USERNAME_FIELD: name})
            user.set_password(password)
            if staff is not None:
                user.is_staff = staff
            user.save()
        what = "created" if created else "updated"
        flag = " (staff)" if user.is_staff else ""
        self.stdout.write(f"{what} user {name}{flag}")
