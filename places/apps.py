from django.apps import AppConfig


class PlacesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "places"
    verbose_name = "Places"

    def ready(self) -> None:
        from places.services import accounts, profiles

        profiles.connect_signals()
        accounts.connect_signals()
