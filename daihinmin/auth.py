"""Django's database sessions and model backend, each reading its one row by SQL built once;
the backend also holds back logins that must wait (``api/throttle.py``).

A bot's every request reads its session and its user; through the ORM, building
those two queries costs more than the database then spends on them. The rows
read, the checks made (expiry; the backend's ``user_can_authenticate``) and
everything around them (decoding, the auth hash, flushing a stale session) are
Django's: only the building of the SELECT is saved (``places.rows``).

``SESSION_ENGINE = "daihinmin.auth"`` and ``AUTHENTICATION_BACKENDS =
["daihinmin.auth.ModelBackend"]`` (settings).
"""

from __future__ import annotations

from django.contrib.auth import backends, get_user_model
from django.contrib.sessions.backends import db
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from api import throttle
from places import rows


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        """The session row if it has not expired (``db.SessionStore``'s query, built once)."""
        try:
            session = rows.read(self.model, self.session_key)
        except self.model.DoesNotExist:
            session = None
        if session is None or session.expire_date <= timezone.now():
            self._session_key = None
            return None
        return session


class ModelBackend(backends.ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        """Django's, once ``api/throttle.py`` lets this attempt's password be checked (it may
        wait for the checks ahead of it), with what the check found reported back."""
        name = username if username is not None else kwargs.get(get_user_model().USERNAME_FIELD)
        attempt = throttle.begin(throttle.address_of(request), str(name or ""))
        if isinstance(attempt, throttle.Held):
            throttle.hold_back(request, attempt)
            raise PermissionDenied  # authenticate() stops at this and reports a failed login
        try:
            user = super().authenticate(request, username, password, **kwargs)
        except BaseException:
            # no answer about the password (a 500: the database did not answer in time, most
            # often, under load): not a failure, which would shut a right user out
            throttle.end(attempt, right=None)
            raise
        throttle.end(attempt, right=user is not None)
        return user

    def get_user(self, user_id):
        """The user, if they may still authenticate (``backends.ModelBackend``'s query, built once)."""
        model = get_user_model()
        try:
            user = rows.read(model, user_id)
        except model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None
