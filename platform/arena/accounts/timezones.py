"""One clock for the whole site: every time is shown in the viewer's zone, which this module decides.

The zone is the viewer's own (a profile's `time_zone`, when the user model has a profile), else the zone
of the course the page is about (a course's, an assignment's pages), else of their course (the first by code
when they have several), else settings.TIME_ZONE. The middleware activates it for the request, so that every
template, filter and form shows and reads times in it; a course's pages activate it again with their course.
"""

import datetime
import zoneinfo

from django.conf import settings
from django.utils import timezone


def viewer_zone(request, course=None) -> zoneinfo.ZoneInfo:
    """The time zone `request`'s viewer reads times in, on a page of `course` if given (see the module's
    docstring for the order)."""
    from .models import Course

    user = getattr(request, "user", None)
    own = getattr(getattr(user, "profile", None), "time_zone", "") if user is not None else ""
    if own:
        return _zone(own)
    if course is not None:
        return _zone(course.time_zone)
    if user is None or not user.is_authenticated:
        return _zone(settings.TIME_ZONE)
    course_zone = (Course.objects.for_user(user).order_by("code").values_list("time_zone", flat=True).first())
    return _zone(course_zone or settings.TIME_ZONE)


def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):  # a zone removed from the tz database since it was saved
        return zoneinfo.ZoneInfo(settings.TIME_ZONE)


API_PREFIX = "/api/"


class ViewerTimeZoneMiddleware:
    """Activates the viewer's zone for each request (after AuthenticationMiddleware, which sets the user)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(API_PREFIX):
            return self.get_response(request)  # the API speaks UTC to every client, whoever asks
        timezone.activate(LazyViewerZone(request))
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class LazyViewerZone(datetime.tzinfo):
    """`viewer_zone(request)`, looked up the first time a time is converted: API calls and redirects that
    show no time cost no query."""

    def __init__(self, request):
        self._request = request
        self._zone: zoneinfo.ZoneInfo | None = None

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        if self._zone is None:
            self._zone = viewer_zone(self._request)
        return self._zone

    def utcoffset(self, dt):
        return self.zone.utcoffset(dt)

    def dst(self, dt):
        return self.zone.dst(dt)

    def tzname(self, dt):
        return self.zone.tzname(dt)

    def fromutc(self, dt):
        return self.zone.fromutc(dt.replace(tzinfo=self.zone)).replace(tzinfo=self)

    def __str__(self):  # what Django names the current zone by (get_current_timezone_name)
        return str(self.zone)
