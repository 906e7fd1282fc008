from django.apps import AppConfig


class PlacesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "places"
    verbose_name = "Places"

    def ready(self) -> None:
        from places.realtime import broadcast, wake
        from places.services import accounts, committed, profiles

        profiles.connect_signals()
        accounts.connect_signals()
        # A committed change's events and the dealer's wake-up: the realtime layer's, passed
        # down to the services, which import nothing of it.
        committed.install(broadcast.send_events, wake.dealer)
