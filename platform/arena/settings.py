"""Arena settings. Everything an operator sets comes from environment variables with safe defaults.

Unset DATABASE_URL means an embedded SQLite file and unset CELERY_BROKER_URL an embedded filesystem
broker (both under ARENA_VAR_DIR), so that the demo runs on a fresh machine without PostgreSQL or Redis.
"""

import os
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

# The repository's root when the platform runs from a checkout (platform/arena/settings.py); an installed
# platform (pip install .) keeps its files in ARENA_VAR_DIR, by default var/ in the folder it is run from.
REPO_ROOT = Path(__file__).resolve().parents[2]
IN_CHECKOUT = (REPO_ROOT / "manage.py").is_file()
VAR_DIR = Path(os.environ.get("ARENA_VAR_DIR", (REPO_ROOT if IN_CHECKOUT else Path.cwd()) / "var"))
# The games' bot guides the site renders (docs/bots/GAME.md and their example bots), which pip installs
# under <prefix>/share/arena/guides (pyproject.toml's data-files).
ARENA_GUIDES_DIR = Path(os.environ.get("ARENA_GUIDES_DIR") or (
    REPO_ROOT / "docs" / "bots" if IN_CHECKOUT else Path(sys.prefix) / "share" / "arena" / "guides"))
# The documents the site shows as its pages (the bot protocol, tournaments, the API guide, the operator guide):
# docs/*.md, installed under <prefix>/share/arena/docs (arena/variants/game_docs.py, SITE_DOCS).
ARENA_DOCS_DIR = Path(os.environ.get("ARENA_DOCS_DIR") or (
    REPO_ROOT / "docs" if IN_CHECKOUT else Path(sys.prefix) / "share" / "arena" / "docs"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    return default if value is None else value.strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# SQLite serialises writers; the web process and the workers share one file. WAL lets readers go on while
# one process writes; IMMEDIATE takes the write lock when a transaction begins, so a transaction that
# reads then writes (a worker's claim) waits its turn under the busy timeout instead of failing at once
# with "database is locked" when another writer got there between its read and its write.
SQLITE_OPTIONS = {
    "timeout": 30,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def database_from_url(url: str | None) -> dict:
    """A Django DATABASES entry from postgres://user:password@host:port/name or sqlite:///path."""
    if not url:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{VAR_DIR / 'arena.sqlite3'}"
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": unquote(parts.path), "OPTIONS": SQLITE_OPTIONS}
    if parts.scheme in ("postgres", "postgresql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")) or "arena",
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            # Kept open between requests and Celery tasks: a new connection per match cost a worker about a
            # tenth of a short match's time (bench/platform_throughput.py). Checked before reuse after errors.
            "CONN_MAX_AGE": int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
            "CONN_HEALTH_CHECKS": True,
        }
    raise ImproperlyConfigured(f"DATABASE_URL: unsupported scheme {parts.scheme!r} (use postgres:// or sqlite://)")


# Where no EMAIL_URL is set (the demo), mail is printed and kept for the operators' outbox page (/outbox/).
OUTBOX_BACKEND = "arena.notifications.outbox.OutboxBackend"
EMAIL_SCHEMES = {"smtp": (False, False), "smtp+starttls": (True, False), "smtps": (False, True)}


def email_from_url(url: str | None) -> dict:
    """Django's mail settings from EMAIL_URL (parsed here like DATABASE_URL, rather than by a dependency):

    smtp://host:25 (a relay without TLS), smtp+starttls://user:password@host:587, smtps://user:password@host:465
    (TLS from the first byte); console: prints each mail; outbox: (or unset) prints and keeps it for /outbox/.
    The user name and password are percent-decoded (an address as user name is user%40example.org).
    """
    parts = urlsplit(url or "outbox:")
    if parts.scheme in ("outbox", "console"):
        backend = OUTBOX_BACKEND if parts.scheme == "outbox" else "django.core.mail.backends.console.EmailBackend"
        return {"EMAIL_BACKEND": backend}
    if parts.scheme not in EMAIL_SCHEMES:
        raise ImproperlyConfigured(f"EMAIL_URL: unsupported scheme {parts.scheme!r} "
                                   f"(use {', '.join(EMAIL_SCHEMES)}, console: or outbox:)")
    if not parts.hostname:
        raise ImproperlyConfigured("EMAIL_URL: no host, e.g. smtps://user:password@mail.example.org:465")
    starttls, implicit_tls = EMAIL_SCHEMES[parts.scheme]
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": parts.port or (465 if implicit_tls else 587 if starttls else 25),
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": starttls,
        "EMAIL_USE_SSL": implicit_tls,
        "EMAIL_TIMEOUT": 20,
    }


DEBUG = env_bool("DEBUG", False)


def generated_secret_key() -> str:
    """A random key kept in VAR_DIR, for installations that set no SECRET_KEY (never a known default)."""
    from django.core.management.utils import get_random_secret_key

    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        candidate = path.with_name(f"secret_key.{os.getpid()}")
        candidate.touch(mode=0o600)
        candidate.write_text(get_random_secret_key())
        try:
            os.link(candidate, path)  # atomic: concurrent first starts all end up with one key
        except FileExistsError:
            pass
        candidate.unlink()
    return path.read_text().strip()


SECRET_KEY = os.environ.get("SECRET_KEY") or generated_secret_key()
# Every grading game's seed is an HMAC of the assignment's seed under this secret, so that nobody who learns an
# assignment's seed can compute its boards and hidden cards (grading/parts.py). Changing it replays every grading
# game on the next run (the games are cached by seed).
ARENA_GRADING_SEED_SECRET = os.environ.get("ARENA_GRADING_SEED_SECRET") or SECRET_KEY
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
# A refused form (an old tab, a session that ended) gets the site's error page, not Django's bare one.
CSRF_FAILURE_VIEW = "arena.core.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "arena.core",
    "arena.accounts",
    "arena.bots",
    "arena.matches",
    "arena.ratings",
    "arena.variants",
    "arena.similarity",
    "arena.tournaments",
    "arena.grading",
    "arena.notifications",
    "arena.tables",
    "arena.rooms",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every time on a page in the viewer's zone (accounts/timezones.py).
    "arena.accounts.timezones.ViewerTimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "arena.core.errors.ArenaErrorMiddleware",
]

ROOT_URLCONF = "arena.urls"
WSGI_APPLICATION = "arena.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "arena.core.context_processors.games",
                "arena.notifications.context_processors.unread",
            ],
        },
    },
]

DATABASES = {"default": database_from_url(os.environ.get("DATABASE_URL"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "core:home"
LOGOUT_REDIRECT_URL = "core:home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))

# Behind HTTPS (docs/operator-guide.md, "Production"): SECURE_COOKIES=1 sends the session and CSRF cookies
# over HTTPS only; HSTS_SECONDS > 0 tells browsers to use HTTPS only; TRUST_PROXY_HTTPS=1 believes the proxy's
# X-Forwarded-Proto (set it only when a proxy that overwrites that header is the only way in).
SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_HSTS_SECONDS = int(os.environ.get("HSTS_SECONDS", "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("TRUST_PROXY_HTTPS", False) else None
SECURE_SSL_REDIRECT = env_bool("SSL_REDIRECT", False)
# Content-Security-Policy (django-csp): scripts and styles from the site itself only, so an injected
# <script> never runs. Inline style attributes stay allowed (progress bars; htmx adds its indicator style).
# The API's Swagger page, which runs an inline script of drf-spectacular's, is left out.
CONTENT_SECURITY_POLICY = {
    "EXCLUDE_URL_PREFIXES": ["/api/docs/"],
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

REST_FRAMEWORK = {
    "EXCEPTION_HANDLER": "arena.core.errors.api_exception_handler",  # the platform's errors, mapped once
    # Token first: an anonymous API request is answered 401 with `WWW-Authenticate: Token`, not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "arena.core.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "arena.core.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "arena.core.pagination.StrictPageNumberPagination",
    "PAGE_SIZE": 25,
    "DEFAULT_SCHEMA_CLASS": "arena.core.schema.ArenaAutoSchema",
    # Client addresses for rate limits: REMOTE_ADDR unless this many proxies in front add X-Forwarded-For.
    "NUM_PROXIES": int(os.environ.get("ARENA_NUM_PROXIES", "0")),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Arena API",
    "DESCRIPTION": "Bots, versions, uploads, matches, replays and ladders of the Arena tournament platform.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from the sidecar package's static files: the API page works offline, with no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- Celery -------------------------------------------------------------------------------------------
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://localhost/")
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The embedded broker: messages are files in one folder shared by the web process and the worker.
    BROKER_DIR = VAR_DIR / "broker"
    BROKER_DIR.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT = "arena.core.broker:EmbeddedTransport"  # a worker's stop heard within a poll
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR),
        "data_folder_out": str(BROKER_DIR),
        "control_folder": str(BROKER_DIR / "control"),
    }
else:
    # Redis re-delivers a message that was not acknowledged within this time; with late acks it must
    # exceed the longest match, or a slow match would be delivered again (harmless, but wasted work).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(os.environ.get("ARENA_VISIBILITY_TIMEOUT", "3600"))}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("ARENA_QUEUE", "arena")
CELERY_TASK_IGNORE_RESULT = True
# Exactly-once needs at-least-once delivery first: acknowledge after the task ran, re-deliver when the
# worker process died, and take one message at a time so a dying worker strands no prefetched ones.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    "requeue-stuck-matches": {"task": "matches.tasks.requeue_stuck_matches", "schedule": 60.0},
    "resume-tournaments": {"task": "tournaments.tasks.resume_tournaments", "schedule": 60.0},
    "resume-grading-runs": {"task": "grading.tasks.resume_grading_runs", "schedule": 60.0},
    "resume-tables": {"task": "tables.tasks.resume_tables", "schedule": 60.0},
    # The ladders' rated matches, ARENA_LADDER_MATCHES_PER_MINUTE of them a minute (ratings/matchmaking.py).
    "ladder-matchmaking": {"task": "ratings.tasks.play_ladder_matches", "schedule": 60.0},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- Arena --------------------------------------------------------------------------------------------
# The sandbox backend file bots run in; empty means the best sandbox the host has when a match runs
# (never "none", which runs students' code unconfined, unless set here explicitly).
ARENA_SANDBOX = os.environ.get("ARENA_SANDBOX", "")
# With Docker, matches after a version's validation reuse warm containers kept for that version
# (sandbox/pool.py); ARENA_WARM_IDLE_SECONDS and ARENA_WARM_MAX_CONTAINERS size each worker process's pool.
ARENA_WARM_SANDBOX = env_bool("ARENA_WARM_SANDBOX", True)
# A table's bots are kept running between their decisions by the host's seat holder (sandbox/holder.py), so a
# decision costs the same at any turn: each is released after ARENA_TABLE_HOLD_SECONDS without a decision (and
# at the table's end), and a host holds at most ARENA_TABLE_HOLD_MAX (the least recently used go first).
# ARENA_TABLE_HOLD=0 starts every bot afresh and replays its past at each decision, as before.
ARENA_TABLE_HOLD = env_bool("ARENA_TABLE_HOLD", True)
ARENA_TABLE_HOLD_SECONDS = float(os.environ.get("ARENA_TABLE_HOLD_SECONDS", "360"))
ARENA_TABLE_HOLD_MAX = int(os.environ.get("ARENA_TABLE_HOLD_MAX", "32"))
ARENA_MAX_UPLOAD_BYTES = int(os.environ.get("ARENA_MAX_UPLOAD_BYTES", str(64 * 1024)))
# The largest course variant (its options as JSON, e.g. an instructor's SortingGame deck).
ARENA_MAX_VARIANT_BYTES = int(os.environ.get("ARENA_MAX_VARIANT_BYTES", str(256 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = max(2_621_440, 2 * ARENA_MAX_UPLOAD_BYTES, 2 * ARENA_MAX_VARIANT_BYTES)
# A match still running this long after a worker claimed it, or still queued this long after it was
# queued, is presumed lost (its worker or its task message) and re-queued.
ARENA_MATCH_DEADLINE_SECONDS = int(os.environ.get("ARENA_MATCH_DEADLINE_SECONDS", "600"))
# A match the platform fails to run this many times in a row (an exception, or a worker killed under it) is
# set aside for the staff instead of being tried forever (matches.services).
ARENA_MATCH_MAX_ATTEMPTS = max(1, int(os.environ.get("ARENA_MATCH_MAX_ATTEMPTS", "3")))
# Validation: a short match of a new version against this built-in bot.
ARENA_VALIDATION_OPPONENT = os.environ.get("ARENA_VALIDATION_OPPONENT", "random")
# --- Ratings (docs/operator-guide.md, Ratings) ----------------------------------------------------------------
# The ladder's skill model (ratings/skill.py: Weng-Lin, OpenSkill Plackett-Luce): a new bot's mu and sigma, and
# k of the conservative estimate mu - k sigma the ladder orders by.
ARENA_RATING_MU = float(os.environ.get("ARENA_RATING_MU", "25"))
ARENA_RATING_SIGMA = float(os.environ.get("ARENA_RATING_SIGMA", str(25 / 3)))
ARENA_RATING_K = float(os.environ.get("ARENA_RATING_K", "3"))
# A bot is provisional (listed apart, unranked) while its sigma is above this (about 12 two-seat matches).
ARENA_PROVISIONAL_SIGMA = float(os.environ.get("ARENA_PROVISIONAL_SIGMA", "6"))
# Matchmaking (ratings/matchmaking.py): rated matches the platform starts per minute across all ladders, the
# operator's throttle on the workers' time (0 stops it); a ladder's own matches queued or running at once.
ARENA_LADDER_MATCHES_PER_MINUTE = int(os.environ.get("ARENA_LADDER_MATCHES_PER_MINUTE", "6"))
ARENA_LADDER_MAX_IN_FLIGHT = int(os.environ.get("ARENA_LADDER_MAX_IN_FLIGHT", "4"))
# An active version this young (hours) is "new" and chosen sooner.
ARENA_LADDER_NEW_VERSION_HOURS = float(os.environ.get("ARENA_LADDER_NEW_VERSION_HOURS", "24"))
# Mail (confirmations, invitations, password resets, notifications): SMTP in production, see email_from_url.
globals().update(email_from_url(os.environ.get("EMAIL_URL")))
# Finished ladder challenges (standard rules) and their replays are open to visitors who are not signed in
# (the home page lists the latest); never code or logs. ARENA_PUBLIC_MATCHES=0 makes every match private.
ARENA_PUBLIC_MATCHES = env_bool("ARENA_PUBLIC_MATCHES", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "arena@localhost")
# The site's address as students reach it, for the links in e-mails.
ARENA_SITE_URL = os.environ.get("ARENA_SITE_URL", "http://127.0.0.1:8000")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A refused request (403 and the like) is the user's doing: one line, never a traceback.
    "filters": {"no_traceback_for_refusals": {"()": "arena.core.logfilters.NoTracebackForRefusals"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"filters": ["no_traceback_for_refusals"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
# Serve /static/ from Django itself (the embedded demo and compose have no separate web server).
ARENA_SERVE_STATIC = env_bool("ARENA_SERVE_STATIC", True)

# --- Rate limits (counted in the cache) ------------------------------------------------------------------
# Redis when the platform has one (the broker's, or ARENA_CACHE_URL), so every web process shares the
# counts; otherwise (the embedded demo) each process counts on its own in memory.
ARENA_CACHE_URL = os.environ.get("ARENA_CACHE_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else "")
CACHES = {"default": {"BACKEND": "arena.core.cache.ReusedClientRedisCache", "LOCATION": ARENA_CACHE_URL}
          if ARENA_CACHE_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Every signed-in request reads its session: from the shared cache when there is one (a database round trip
# saved per request, bench/load_run.py), always written through to the database so that a cache restart
# signs nobody out. Without a shared cache, the database alone: a per-process cache would keep a session
# alive in the other processes after it signed out there.
SESSION_ENGINE = "django.contrib.sessions.backends." + ("cached_db" if ARENA_CACHE_URL else "db")

# --- Live pages (arena/core/live.py: server-sent events) ------------------------------------------------
# How a stream learns of a change: "redis" (pub/sub on the shared cache's Redis wakes it at once) or "poll"
# (it reads its snapshot every ARENA_LIVE_POLL_SECONDS): Redis when the platform has one, else polling.
ARENA_LIVE_REDIS_URL = os.environ.get("ARENA_LIVE_REDIS_URL") or ARENA_CACHE_URL
ARENA_LIVE_WAKEUP = os.environ.get("ARENA_LIVE_WAKEUP") or ("redis" if ARENA_LIVE_REDIS_URL else "poll")
if ARENA_LIVE_WAKEUP not in ("redis", "poll") or (ARENA_LIVE_WAKEUP == "redis" and not ARENA_LIVE_REDIS_URL):
    raise ImproperlyConfigured("ARENA_LIVE_WAKEUP: 'redis' (with a Redis URL) or 'poll'")
ARENA_LIVE_POLL_SECONDS = float(os.environ.get("ARENA_LIVE_POLL_SECONDS", "0.2"))
# A stream ends after this long (the browser reconnects at once), so that it frees its server thread.
ARENA_LIVE_STREAM_SECONDS = float(os.environ.get("ARENA_LIVE_STREAM_SECONDS", "60"))
# A comment is sent after this long without an event, so that proxies keep the connection open.
ARENA_LIVE_KEEPALIVE_SECONDS = float(os.environ.get("ARENA_LIVE_KEEPALIVE_SECONDS", "15"))
# Streams one web process holds at once (0: no limit); beyond, a page gets its snapshot and comes back in a
# few seconds. Under gunicorn's uvicorn workers (gunicorn.conf.py) a stream is a coroutine, not a thread:
# no limit is needed; a threaded server (runserver, or gunicorn gthread) should set one.
ARENA_LIVE_MAX_STREAMS = int(os.environ.get("ARENA_LIVE_MAX_STREAMS", "0"))
# Streams one signed-in person holds at once (their tabs, across every web process), and streams visitors
# who are not signed in hold from one client address (a lecture hall behind one NAT address signs in: it is
# counted per person). 0: no cap. Beyond it a page gets its state, is told why, and asks again every
# ARENA_LIVE_REFUSED_RETRY_SECONDS (docs/operator-guide.md, "Live pages").
ARENA_LIVE_STREAMS_PER_USER = int(os.environ.get("ARENA_LIVE_STREAMS_PER_USER", "8"))
ARENA_LIVE_STREAMS_PER_ADDRESS = int(os.environ.get("ARENA_LIVE_STREAMS_PER_ADDRESS", "32"))
ARENA_LIVE_REFUSED_RETRY_SECONDS = float(os.environ.get("ARENA_LIVE_REFUSED_RETRY_SECONDS", "10"))
# A match being played shows spectators its position at most this often (one row written by the worker).
ARENA_SPECTATOR_INTERVAL_SECONDS = float(os.environ.get("ARENA_SPECTATOR_INTERVAL_SECONDS", "0.15"))

# Requests per period (s, min, hour, day), per user or (anonymous) per client address; a request over the
# rate is answered 429 with Retry-After. Each is set by ARENA_RATE_<NAME>, e.g. ARENA_RATE_UPLOAD=10/min.
ARENA_RATES = {
    name: os.environ.get(f"ARENA_RATE_{name.upper()}", default)
    for name, default in {
        "upload": "10/min",  # bot versions a user uploads
        "sign_in": "10/min",  # sign-in and token attempts for one account from one client address
        "password_reset": "5/hour",  # password reset requests for one e-mail address from one client address
        "credentials_address": "60/min",  # sign-in, token and reset attempts from one client address
        "register": "10/hour",  # new accounts from one client address
    }.items()
}
# An API token's lifetime in days (accounts/tokens.py); a password change revokes all the user's tokens at once.
ARENA_TOKEN_DAYS = int(os.environ.get("ARENA_TOKEN_DAYS", "30"))
# One budget for the bot work a person starts (arena/core/budget.py; docs/operator-guide.md, "The budget for
# bot work"): challenges, validations of uploads, tables with bots. Per user, pieces of work queued or being
# played at once and pieces started per period (N/min, N/hour...); staff (operators, course instructors and
# assistants) have their own. A refusal is a 429 saying when to come back: RETRY_SECONDS when the work in
# flight is the limit (about one match). (ARENA_MAX_MATCHES_IN_FLIGHT and ARENA_RATE_CHALLENGE, the older
# names of the students' limits, are still read.)
ARENA_BUDGET = {
    "in_flight": int(os.environ.get("ARENA_BUDGET_IN_FLIGHT", os.environ.get("ARENA_MAX_MATCHES_IN_FLIGHT", "5"))),
    "rate": os.environ.get("ARENA_BUDGET_RATE", os.environ.get("ARENA_RATE_CHALLENGE", "10/min")),
    "staff_in_flight": int(os.environ.get("ARENA_BUDGET_STAFF_IN_FLIGHT", "50")),
    "staff_rate": os.environ.get("ARENA_BUDGET_STAFF_RATE", "120/min"),
    "retry_seconds": int(os.environ.get("ARENA_BUDGET_RETRY_SECONDS", "30")),
}
