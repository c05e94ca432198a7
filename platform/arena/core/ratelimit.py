"""The API's rate limits (core/throttles.py) on the pages: a request over its rate gets a 429 page with Retry-After."""

import functools

from django.shortcuts import render
from rest_framework.exceptions import Throttled


def rate_limited(*throttle_classes):
    """Decorate a page view so that each of `throttle_classes` counts its requests (POSTs) first."""

    def decorate(view):
        @functools.wraps(view)
        def limited(request, *args, **kwargs):
            try:
                for throttle_class in throttle_classes:
                    throttle_class().allow_request(request, view)
            except Throttled as exc:
                return too_many_requests(request, exc.detail, exc.wait)
            return view(request, *args, **kwargs)

        return limited

    return decorate


def too_many_requests(request, message: str, retry_after: float):
    response = render(request, "core/too_many_requests.html", {"message": message}, status=429)
    response["Retry-After"] = str(int(retry_after))
    return response
