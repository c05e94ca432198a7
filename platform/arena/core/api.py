"""What every domain's API shares: the API's entry, its OpenAPI schema, the JSON 404 of any other path, id
parameters."""

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.urls import get_resolver
from django.utils import translation
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

from .pagination import ASCII_NUMBER
from .schema import rendered_schema


# Ids are 64-bit: a larger number, or anything but ASCII digits, is a 400 rather than a database error.
MAX_ID = 2**63 - 1


ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_ID}


def query_number(request, name: str, below: int = MAX_ID + 1) -> int | None:
    """The query parameter `name` as a number from 0 to below - 1; None if absent; else a 400."""
    text = request.query_params.get(name)
    if text is None:
        return None
    if not ASCII_NUMBER.fullmatch(text) or int(text) >= below:
        raise ValidationError({name: [f"{name} must be a whole number from 0 to {below - 1} (digits 0-9 only)"]})
    return int(text)


class APIRoot(APIView):
    """The API's entry: the address of every collection (each domain's router registers its own)."""

    schema = None  # not an endpoint of the schema, as DRF's own root view

    def get(self, request):
        names = sorted(name for name in get_resolver().reverse_dict if isinstance(name, str) and name.endswith("-list"))
        return Response({name.removesuffix("-list"): reverse(name, request=request) for name in names})


class SchemaView(SpectacularAPIView):
    """drf-spectacular's schema view (YAML, or JSON by ?format=json or Accept), serving the kept schema as it
    was written in the format asked (arena.core.schema.rendered_schema), with the content type DRF's
    Response would give it."""

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        renderer = request.accepted_renderer
        body = rendered_schema(settings.ROOT_URLCONF, version, translation.get_language(), type(renderer),
                               request.accepted_media_type)
        content_type = f"{renderer.media_type}; charset={renderer.charset}" if renderer.charset else renderer.media_type
        response = HttpResponse(body, content_type=content_type)
        response["Content-Disposition"] = f'inline; filename="{self._get_filename(request, version)}"'
        return response


@csrf_exempt  # it changes nothing, and must answer JSON whatever the method
def not_found(request, *args, **kwargs):
    """Any other path under /api/ (e.g. /api/bots/abc/): a JSON 404 like every API answer, not an HTML page."""
    return JsonResponse({"detail": "Not found."}, status=404)
