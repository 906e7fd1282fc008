"""Django settings for daihinmin.

Everything that differs between machines comes from environment variables
(see README.md, "Configuration"). Defaults are for a developer's machine:
SQLite next to manage.py, an in-memory channel layer and DEBUG on.
"""

import os
import tempfile
import warnings
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from daihinmin.ports import PortError, ports

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str | None = None) -> str | None:
    """The variable's value, or ``default`` when it is unset or empty."""
    value = os.environ.get(name, "").strip()
    return value if value else default


def env_bool(name: str, default: bool = False) -> bool:
    """True for 1/true/yes/on, False for 0/false/no/off (any case)."""
    value = env_str(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use 1/0, true/false).")


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    """A comma-separated list; blank items are dropped."""
    value = env_str(name)
    if value is None:
        return list(default or [])
    return [item.strip() for item in value.split(",") if item.strip()]


# --- Core -------------------------------------------------------------------

# DJANGO_ENV=production turns DEBUG off by default; any other value (or none)
# leaves it on. An explicit DEBUG=0/1 always wins.
DJANGO_ENV = env_str("DJANGO_ENV", "development")
DEBUG = env_bool("DEBUG", default=DJANGO_ENV != "production")

_DEV_SECRET_KEY = "django-insecure-daihinmin-development-key-do-not-use-in-production"
SECRET_KEY = env_str("SECRET_KEY")
if SECRET_KEY is None:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _DEV_SECRET_KEY
#: The key a tournament's table seeds are derived with (HMAC-SHA256 over the
#: tournament's seed and the table): without it, a table's published seed tells
#: nothing of another's. Set it to re-create a tournament's deals on another server.
SEED_KEY = env_str("SEED_KEY") or SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
if "testserver" not in ALLOWED_HOSTS:
    ALLOWED_HOSTS.append("testserver")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from here: /api/docs/ needs no internet
    "channels",
    "places",
    "api",
]

MIDDLEWARE = [
    # first: its header goes on every answer, WhiteNoise's files and refusals too
    "daihinmin.csp.ContentSecurityPolicy",
    "django.middleware.security.SecurityMiddleware",
    # daphne serves no files: WhiteNoise serves static/ (and the apps' files) with DEBUG off too
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# daihinmin/csp.py: scripts from this site only, never inline; styles may be inline (style=""
# attributes of the pages and the admin); fetches and sockets to this host ('self' covers
# ws: and wss:); no framing. Redoc makes its search worker from a blob. Empty: no header.
CONTENT_SECURITY_POLICY = env_str(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "worker-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'",
)

ROOT_URLCONF = "daihinmin.urls"
ASGI_APPLICATION = "daihinmin.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "daihinmin.context.site",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------

# Unset DATABASE_URL: SQLite file beside manage.py, tuned for concurrent
# readers and one writer at a time (WAL, BEGIN IMMEDIATE, 20 s busy timeout).
# Tests get their own database from pytest-django ("test_" + NAME; in-memory
# for SQLite), so they never touch the development data.
_SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    _db = dj_database_url.parse(DATABASE_URL)
    if _db["ENGINE"] == "django.db.backends.postgresql":
        # Django 5.1+'s psycopg pool replaces persistent connections. Django's backend,
        # but lending no connection the server has closed (a restart, pg_terminate_backend):
        # it reads what the server sent, without a round trip (daihinmin/postgresql/base.py).
        _db["ENGINE"] = "daihinmin.postgresql"
        _db["CONN_MAX_AGE"] = 0
        _db.setdefault("OPTIONS", {})["pool"] = {"min_size": 1, "max_size": 20}
    elif _db["ENGINE"] == "django.db.backends.sqlite3":
        _db.setdefault("OPTIONS", {}).update(_SQLITE_OPTIONS)
else:
    _db = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": BASE_DIR / "db.sqlite3",
        "OPTIONS": dict(_SQLITE_OPTIONS),
    }
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # Tests get a file, not SQLite's shared in-memory database: only a file has
    # the real locking (busy timeout, WAL) that concurrent tests rely on. One
    # per process, so that simultaneous test runs do not meet.
    _db["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"daihinmin-test-{os.getpid()}.sqlite3")
    }
DATABASES = {"default": _db}
# Threads of a server process that do the sockets' and the hot requests' database work
# (places/realtime/db_thread.py), a place's always on the same one: on PostgreSQL one
# thread's Python runs while another's turn waits for the database; SQLite has one writer.
DB_THREADS = int(env_str("DB_THREADS", "2" if _db["ENGINE"] == "daihinmin.postgresql" else "1"))
# On PostgreSQL the statements of a turn (places/rows.py) are prepared once per database
# session (SQL PREPARE) and executed by name: the server parses and plans them once.
# Off behind a pooler that hands one client several server sessions (PgBouncer in
# transaction mode), where a session's prepared statements are not the next one's.
DATABASE_PREPARED_STATEMENTS = env_bool("DATABASE_PREPARED_STATEMENTS", default=True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels ---------------------------------------------------------------

# The layer only carries events between server processes (places/broadcast.py:
# one relay channel a process, one message a change); sockets get them from
# their own process. With Redis, the Pub/Sub layer: a group_send is one
# PUBLISH, where channels-redis's core layer takes several commands and a
# script (a quarter of a turn's server time). A process that misses a message
# fills the gap from the event log (places/sequencer.py). In memory (one
# process), a channel holds up to 1,000 messages (default 100).
REDIS_URL = env_str("REDIS_URL")
# Keeps two deployments on one Redis apart: the names of the channel layer's
# channels and groups and the cache's keys begin with it. The database number
# in REDIS_URL does not: Redis' Pub/Sub channels are one namespace for all its
# databases, so two deployments with one prefix hear each other's events.
REDIS_PREFIX = env_str("REDIS_PREFIX", "daihinmin")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": REDIS_PREFIX},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": 1000, "expiry": 60},
        }
    }

# Django's cache holds the counters every process must share (failed logins,
# api/throttle.py): on Redis when REDIS_URL is set, so that two processes do not
# let a guesser try twice as many passwords; else each process's local memory.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
            # a Redis that does not answer within a second is down for the limits, which
            # then count in each process (api/counts.py) rather than hold requests up
            "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
        }
    }

# --- Auth -------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login"

# The player API authenticates bots by the session cookie alone (no CSRF token).
# SameSite=Lax (Django's default, stated here so that nobody loosens it) keeps
# browsers from sending it on another site's POSTs; api/security.py also refuses
# unsafe requests whose Origin or Referer names another host.
SESSION_COOKIE_SAMESITE = "Lax"
# Behind TLS (nginx with a certificate: docs/production.md), HTTPS=1 keeps the session
# and CSRF cookies off plain HTTP. daphne's --proxy-headers takes the scheme from nginx's
# X-Forwarded-Proto, so Django sees https:// requests and wss:// sockets as such.
HTTPS = env_bool("HTTPS", default=False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = HTTPS

# Django's database sessions and model backend, with the row each request reads
# fetched by SQL built once (daihinmin/auth.py): a bot's session is read every turn.
SESSION_ENGINE = "daihinmin.auth"
AUTHENTICATION_BACKENDS = ["daihinmin.auth.ModelBackend"]

# Failed logins (api/throttle.py), counted for LOGIN_FAILURE_WINDOW seconds: an address
# may not try a name it failed LOGIN_FAILURE_LIMIT times; an address that failed
# LOGIN_ADDRESS_FAILURE_LIMIT times may not log in at all; a name that failed
# LOGIN_NAME_FAILURE_LIMIT times may not be tried again by the addresses that failed it.
LOGIN_FAILURE_LIMIT = int(env_str("LOGIN_FAILURE_LIMIT", "5"))
LOGIN_ADDRESS_FAILURE_LIMIT = int(env_str("LOGIN_ADDRESS_FAILURE_LIMIT", "50"))
LOGIN_NAME_FAILURE_LIMIT = int(env_str("LOGIN_NAME_FAILURE_LIMIT", "20"))
LOGIN_FAILURE_WINDOW = float(env_str("LOGIN_FAILURE_WINDOW", "300"))

# Practice against the house bots (POST /practice): the unfinished practice places a user
# may have at a time (each costs the server its house bots' moves).
PRACTICE_PLACES_PER_USER = int(env_str("PRACTICE_PLACES_PER_USER", "3"))
# ... at most PRACTICE_GAMES_PER_WINDOW games asked for in PRACTICE_GAMES_WINDOW seconds, and
# no turn shorter than PRACTICE_MIN_TIME_LIMIT seconds (a user who never answers makes the
# house play no faster than that). A practice stops after a game when its user is inactive,
# or made no move (play, pass or miss) in its last PRACTICE_ABSENT_GAMES games (0: never).
PRACTICE_GAMES_PER_WINDOW = int(env_str("PRACTICE_GAMES_PER_WINDOW", "1000"))
PRACTICE_GAMES_WINDOW = float(env_str("PRACTICE_GAMES_WINDOW", "3600"))
PRACTICE_MIN_TIME_LIMIT = float(env_str("PRACTICE_MIN_TIME_LIMIT", "1"))
PRACTICE_ABSENT_GAMES = int(env_str("PRACTICE_ABSENT_GAMES", "3"))
# What one client address (api/throttle.py's: the proxy's X-Forwarded-For only behind
# --proxy-headers) may make the house play, whatever accounts it uses: its practices not
# finished, and the games they asked for in PRACTICE_GAMES_WINDOW seconds. Sign-up makes
# accounts cheap; these make them buy no more house time. Two users' worth by default.
PRACTICE_PLACES_PER_ADDRESS = int(env_str("PRACTICE_PLACES_PER_ADDRESS", "6"))
PRACTICE_GAMES_PER_ADDRESS = int(env_str("PRACTICE_GAMES_PER_ADDRESS", "2000"))
# Sign-up (/signup): anyone may make an account and practise; SIGN_UP=0 turns it off
# (accounts then come from the admin or create_user alone).
SIGN_UP = env_bool("SIGN_UP", default=True)
# Requests per session on the player API (api/rate.py): past API_RATE_LIMIT in a window of
# API_RATE_WINDOW seconds, 429 RATE_LIMITED until the window ends; 0 turns it off. A user's
# sessions together may make API_USER_RATE_LIMIT (logging in again buys no fresh budget):
# room for a user playing in several places at once.
API_RATE_LIMIT = int(env_str("API_RATE_LIMIT", "3000"))
API_USER_RATE_LIMIT = int(env_str("API_USER_RATE_LIMIT", "9000"))
API_RATE_WINDOW = float(env_str("API_RATE_WINDOW", "10"))
# /metrics for a scraper: `Authorization: Bearer METRICS_TOKEN` (empty: staff only).
METRICS_TOKEN = env_str("METRICS_TOKEN", "") or ""

# --- I18n -------------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ja", "日本語")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- Static files -----------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Straight from the finders: no collectstatic step is needed before serving, so
# STATIC_ROOT may well not exist (WhiteNoise would warn about it at every start).
WHITENOISE_USE_FINDERS = True
warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)

# --- REST framework ---------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "daihinmin player API",
    "VERSION": "0.1.0",
    "DESCRIPTION": (
        "The HTTP API AI players use (PROTOCOL.md §2-§3): log in with name, password and "
        "place_id, keep the session cookie, read get_hand / get_place_info / get_rank / "
        "get_initial_hand (.json or .xml) and play with post_cards. Errors are "
        '{"error":{"code":…,"message":…}} (XML: `<error>`).'
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    # one operation a route, its formats as alternatives (api/schema.py)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.one_operation_a_route",
    ],
    # the order's names ("Nomal" sic), in get_place_info and legal_plays alike
    "ENUM_NAME_OVERRIDES": {"OrderEnum": "places.wire.records.ORDERS"},
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Logging ----------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # every line about a place says which, with its game and turn (places/logs.py)
    "filters": {
        "ids": {"()": "places.logs.Ids"},
        "without_traceback": {"()": "places.logs.WithoutTraceback"},
    },
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(about)s%(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["ids"]},
    },
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # a bad Host is one line, not Django's 30-line traceback (places/logs.py)
        "django.security.DisallowedHost": {"filters": ["without_traceback"]},
    },
}

# --- Requests and sockets ----------------------------------------------------

# What bots ask every turn is answered by Django on the database thread that
# keeps its connection (api/fast.py); FAST_PATH=0 leaves it to Django's ASGI handler.
FAST_PATH = env_bool("FAST_PATH", default=True)
# A body longer than DATA_UPLOAD_MAX_MEMORY_SIZE (Django's 2.5 MB) is refused by its
# length before it is read (daihinmin/bodies.py).
# A socket may have this many frames waiting for an answer; one more closes it (4008).
WS_MAX_PENDING_FRAMES = int(env_str("WS_MAX_PENDING_FRAMES", "16"))
# Frames a socket may send a second (a bot at full speed sends about 150); more close it (4008).
WS_MAX_FRAMES_PER_SECOND = int(env_str("WS_MAX_FRAMES_PER_SECOND", "1000"))
# Open sockets per client address and server process; more are refused (403).
WS_MAX_SOCKETS_PER_ADDRESS = int(env_str("WS_MAX_SOCKETS_PER_ADDRESS", "64"))
# Bytes an event stream may leave unsent on one socket (a client too slow to take them)
# before the socket is dropped (places/realtime/consumers.py): 1 MiB, thousands of events.
WS_MAX_BUFFERED_BYTES = int(env_str("WS_MAX_BUFFERED_BYTES", str(1 << 20)))
# The least time between two frames to one socket of the 2011 port (places/realtime/legacy.py):
# the founding document's sample takes one read as one frame, and a client scheduled later
# than this reads two as one. Raise it where such clients run on loaded machines.
LEGACY_FRAME_GAP_SECONDS = float(env_str("LEGACY_FRAME_GAP_SECONDS", "0.02"))
# How long a stream's frames wait at least to leave together (places/realtime/frames.py):
# the live pages' (ws/places/ID/live/: a tenth of a second is nothing to an eye, and half
# the writes of 0.05); the every-place stream's (ws://HOST/), 0 since 2011 bots read their
# turns there. A player's socket (ws/places/ID/) never waits.
WS_LIVE_FLUSH_SECONDS = float(env_str("WS_LIVE_FLUSH_SECONDS", "0.1"))
WS_FIREHOSE_FLUSH_SECONDS = float(env_str("WS_FIREHOSE_FLUSH_SECONDS", "0"))
# The share of the server's time that writing to spectators may take: a flush that took t
# seconds is followed by the next no sooner than t * (1 / share - 1) later, so a crowd
# gets its events in fewer, larger writes and a few sockets get them at once. Each write
# costs about as much again outside the server (nginx relays it, the client reads it).
WS_FLUSH_SHARE = float(env_str("WS_FLUSH_SHARE", "0.05"))

# The 2011 event stream (places/realtime/legacy.py): every place's events to the WebSocket
# clients of 2011 (drafts hixie-75 and -76), on a port of its own that
# `python -m daihinmin.serve` opens beside daphne's, on daphne's address: 8081 as in 2011
# (PORT + 81); 0 opens none. Several processes on one machine need one port each (deploy/serve_prod.py).
# With PORT (make run/serve's: the site's port, 8000) given, it moves this port and
# UECDA_PORT too when they are not given: PORT + 81 and PORT + 34485 (daihinmin/ports.py).
try:
    _ports = ports(os.environ)
except PortError as e:
    raise ImproperlyConfigured(str(e)) from None
LEGACY_WS_PORT = _ports.legacy_ws
# Behind a proxy that says whose connection it passes on (nginx's stream module with
# `proxy_protocol on`): each connection starts with a PROXY protocol v1 line, and its
# address counts against WS_MAX_SOCKETS_PER_ADDRESS. Never on a port clients reach directly.
LEGACY_WS_PROXY_PROTOCOL = env_bool("LEGACY_WS_PROXY_PROTOCOL", default=False)

# UECda places (places/uecda/shared.py): their players' clients connect over tndhms's TCP
# protocol to this port, which `python -m daihinmin.serve` opens beside daphne's (42485 as
# tndhms, PORT + 34485; 0 or empty: none), on UECDA_HOST (empty: daphne's address). One process owns it:
# with several (deploy/serve_prod.py), the others have UECDA_PORT=0. Clients are told
# UECDA_PUBLIC_HOST (empty: the host the page was asked of) and UECDA_PUBLIC_PORT (empty:
# UECDA_PORT). A UECda practice no client joined within UECDA_PRACTICE_WAIT seconds is
# aborted when its user asks for another practice.
UECDA_PORT = _ports.uecda
UECDA_HOST = env_str("UECDA_HOST", "")
UECDA_PUBLIC_HOST = env_str("UECDA_PUBLIC_HOST", "")
UECDA_PUBLIC_PORT = int(env_str("UECDA_PUBLIC_PORT", "0"))
UECDA_PRACTICE_WAIT = float(env_str("UECDA_PRACTICE_WAIT", "600"))

# --- Downloads of records (docs/records.md) -----------------------------------

# A finished place's or tournament's records.jsonl is made once, as a file in this folder
# (places/reads/record_files.py), and served from it. The folder belongs to one database.
RECORDS_CACHE_DIR = Path(env_str("RECORDS_CACHE_DIR", str(BASE_DIR / "var" / "records")))
# Downloads of records.jsonl one client address may have under way at once, counted across
# the processes (api/downloads.py); more are answered 429 TOO_MANY_DOWNLOADS. 0: no limit.
RECORDS_DOWNLOADS_PER_ADDRESS = int(env_str("RECORDS_DOWNLOADS_PER_ADDRESS", "4"))

# --- The dealer ---------------------------------------------------------------

# Each server process drives the running places it holds a lease on. Tests turn
# the thread off and call places.dealer.tick() themselves.
DEALER_AUTOSTART = env_bool("DEALER_AUTOSTART", default=True)
DEALER_LEASE_SECONDS = float(env_str("DEALER_LEASE_SECONDS", "5"))
DEALER_POLL_SECONDS = float(env_str("DEALER_POLL_SECONDS", "0.2"))

# --- Game analysis (docs/analysis.md) -------------------------------------------

# Each server process runs an analyst thread beside the dealer: it takes queued
# analyses (or those whose worker's lease ran out) and evaluates their decisions in
# ANALYSIS_WORKERS processes of its own (0: in the thread itself). Tests turn the
# thread off and call places.analyst.work_once() themselves.
ANALYST_AUTOSTART = env_bool("ANALYST_AUTOSTART", default=True)
ANALYSIS_PLAYOUTS = int(env_str("ANALYSIS_PLAYOUTS", "1000"))
ANALYSIS_WORKERS = int(env_str("ANALYSIS_WORKERS", "1"))
ANALYSIS_LEASE_SECONDS = float(env_str("ANALYSIS_LEASE_SECONDS", "60"))
ANALYST_POLL_SECONDS = float(env_str("ANALYST_POLL_SECONDS", "2"))
ANALYSES_PER_WINDOW = int(env_str("ANALYSES_PER_WINDOW", "10"))
ANALYSES_WINDOW = int(env_str("ANALYSES_WINDOW", "3600"))
# What one client address may have queued or running (ANALYSES_UNDER_WAY_PER_ADDRESS) and
# ask for in ANALYSES_WINDOW seconds (ANALYSES_PER_ADDRESS), whatever its accounts: anyone
# may sign up many. Staff are not bounded per address.
ANALYSES_UNDER_WAY_PER_ADDRESS = int(env_str("ANALYSES_UNDER_WAY_PER_ADDRESS", "2"))
ANALYSES_PER_ADDRESS = int(env_str("ANALYSES_PER_ADDRESS", "30"))
