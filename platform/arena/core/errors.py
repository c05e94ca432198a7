"""The platform's one error hierarchy, and the one place each kind becomes an HTTP answer.

Services raise these (or their apps' subclasses: GradingError is Invalid, GradingNotAllowed also NotAllowed,
OverBudget is TooMany...) and never think of HTTP. `api_exception_handler` (DRF) and `ArenaErrorMiddleware`
(the pages) turn them into 403 not allowed, 404 not found, 400 invalid, 409 conflict, 429 too many, as JSON
`{"detail": message}` under /api/ and as a page elsewhere. A refusal that is several kinds at once is the first
of that order (a GradingNotAllowed is a 403).
"""

from django.http import JsonResponse
from django.shortcuts import render


class ArenaError(Exception):
    """A refusal a person should read: the message says why."""

    status = 400


class NotAllowed(ArenaError):
    """The user's role does not allow this."""

    status = 403


class NotFound(ArenaError):
    """No such thing, or none the user may know of."""

    status = 404


class Invalid(ArenaError, ValueError):
    """Input the rules refuse."""

    status = 400


class Conflict(ArenaError):
    """The thing is not in a state that allows this (already started, already over)."""

    status = 409


class TooMany(ArenaError):
    """Over a limit; `retry_after` seconds until it may work."""

    status = 429
    retry_after: float = 60

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        if retry_after is not None:
            self.retry_after = retry_after


ORDER = (NotAllowed, NotFound, Conflict, TooMany, Invalid)


def status_of(exc: ArenaError) -> int:
    return next((kind.status for kind in ORDER if isinstance(exc, kind)), exc.status)


def _headers(exc: ArenaError) -> dict:
    return {"Retry-After": str(max(1, round(exc.retry_after)))} if isinstance(exc, TooMany) else {}


def api_exception_handler(exc, context):
    """DRF's handler, plus the platform's errors mapped by kind."""
    # Imported here: the apps' models import this module, and DRF's views module must not load before them.
    from rest_framework.response import Response
    from rest_framework.views import exception_handler

    if isinstance(exc, ArenaError):
        return Response({"detail": str(exc)}, status=status_of(exc), headers=_headers(exc))
    return exception_handler(exc, context)


def is_api(request) -> bool:
    return request.path.startswith("/api/")


class ArenaErrorMiddleware:
    """The pages' mapping of the platform's errors (a view that lets one through gets its status, not a 500)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exc):
        if not isinstance(exc, ArenaError):
            return None
        if is_api(request):
            response = JsonResponse({"detail": str(exc)}, status=status_of(exc))
        else:
            response = render(request, "core/refused.html", {"message": str(exc)}, status=status_of(exc))
        for name, value in _headers(exc).items():
            response[name] = value
        return response
