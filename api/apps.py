from django.apps import AppConfig


class ApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "Player API"

    def ready(self) -> None:
        from api import schema  # noqa: F401  registers the cookie scheme with drf-spectacular
        from api.security import check_token
        from places.realtime import auth

        # The sockets check a bearer token as the API does; they import nothing of it.
        auth.check_tokens_with(check_token)
