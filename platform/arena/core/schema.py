"""The OpenAPI schema states every answer an endpoint gives, refusals included (400, 401, 403, 404, 409, 429),
and is generated, and rendered in each format asked, once per process rather than on every request for it."""

from functools import lru_cache

from django.core.signals import setting_changed
from django.dispatch import receiver
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.settings import spectacular_settings
from rest_framework import permissions, serializers
from rest_framework.renderers import BaseRenderer


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="Why the request was refused.")


# A refused request body or query: each problem under the field it concerns (or "detail", or
# "non_field_errors"), as one message or a list of messages.
FIELD_ERRORS = {
    "type": "object",
    "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "array", "items": {}}, {"type": "object"}]},
}
HEADERS = {
    "401": {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Token`: how to authenticate."}},
    "429": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait before trying again."}},
}
DESCRIPTIONS = {
    "400": "The request is invalid: every problem, by field.",
    "401": "Not signed in: send `Authorization: Token ...` (or a session cookie).",
    "403": "Signed in, but not allowed (e.g. not the bot's owner), or a session request without its CSRF token.",
    "404": "No such object, or one you may not see (both answer alike), or a page past the last.",
    "409": "Not now: the thing is not in a state that allows this (already started, closed, taken).",
    "429": "Over a rate limit: the message says which, Retry-After says when to come back.",
}


class ArenaAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._refusal_codes():
            body = FIELD_ERRORS if code == "400" else ErrorSerializer
            response = self._get_response_for_code(body, code, direction=direction)
            response["description"] = DESCRIPTIONS[code]
            if code in HEADERS:
                response["headers"] = HEADERS[code]
            responses.setdefault(code, response)
        return responses

    def _refusal_codes(self) -> list[str]:
        codes = []
        if self.method not in ("GET", "DELETE") or self.get_override_parameters():
            codes.append("400")
        if not all(isinstance(permission, permissions.AllowAny) for permission in self.view.get_permissions()):
            codes += ["401", "403"]
        if "{" in self.path or self._is_list_view():
            codes.append("404")
        if self.method != "GET":  # a change the thing's state may refuse (arena.errors.Conflict)
            codes.append("409")
        if any(self.method in getattr(throttle, "methods", ()) for throttle in self.view.get_throttles()) \
                or getattr(self.view, "action", None) in getattr(self.view, "budget_actions", ()):
            codes.append("429")
        return codes


# --- Serving it ----------------------------------------------------------------------------------------------

# The settings the generated schema reads besides the URL conf (part of the key: pytest-django's `urls` mark
# sets it without a signal): DRF's and drf-spectacular's settings, the apps, the language. Changing one
# (override_settings in a test) makes the next request generate the schema again. A setting read by a serializer
# or view while the schema is generated (a help text quoting a limit, say) belongs here too.
SCHEMA_SETTINGS = {"INSTALLED_APPS", "REST_FRAMEWORK", "SPECTACULAR_SETTINGS", "USE_I18N", "LANGUAGE_CODE",
                   "LANGUAGES"}
# Schemas kept: one per (URL conf, ?version=, ?lang=) asked, the least recently asked dropped first, so a client
# sending a new ?version= each time costs generation time (as before) but no memory.
SCHEMAS_KEPT = 8


@lru_cache(maxsize=SCHEMAS_KEPT)
def generated_schema(urlconf: str, version: str | None, language: str | None) -> dict:
    """The OpenAPI schema of `urlconf`, generated once per process (about 3 seconds of CPU) and kept.

    It is generated as nobody (no request): the schema is public (SERVE_PUBLIC: every endpoint whatever the
    asker may call) and no view or serializer describes itself by who asks, so it is every user's schema
    (tests/platform/test_api.py compares it with the one generated for an operator's request). `urlconf` and
    `language` are the key only: the generator reads them from the settings and the active translation."""
    generator = spectacular_settings.DEFAULT_GENERATOR_CLASS(api_version=version)
    return generator.get_schema(request=None, public=spectacular_settings.SERVE_PUBLIC)


@lru_cache(maxsize=SCHEMAS_KEPT)
def rendered_schema(urlconf: str, version: str | None, language: str | None, renderer_class: type[BaseRenderer],
                    accepted_media_type: str) -> bytes:
    """generated_schema() as `renderer_class` writes it for `accepted_media_type` (whose parameters, a JSON
    indent say, are the client's). Writing the whole schema as YAML takes about 0.3 s of CPU, as long as a dozen
    ordinary API requests, and gives everyone who asks in that format the same bytes. The renderer's class is
    the key: DRF makes a new renderer for each request, and renderers keep nothing of it."""
    schema = generated_schema(urlconf, version, language)
    return renderer_class().render(schema, accepted_media_type, {})


@receiver(setting_changed)
def forget_generated_schemas(setting: str, **kwargs) -> None:
    if setting in SCHEMA_SETTINGS:
        generated_schema.cache_clear()
        rendered_schema.cache_clear()
