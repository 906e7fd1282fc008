"""Shared pytest fixtures (pytest-django provides client, db, settings, ...)."""

import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Hashing with PBKDF2 costs ~0.25 s a user; tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
