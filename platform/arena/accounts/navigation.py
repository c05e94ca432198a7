"""Where a person goes next: the `next` parameter that carries a join or invitation link through signing in,
registering and confirming an address, kept to this site's own paths."""

from django.utils.http import url_has_allowed_host_and_scheme


def safe_next(request, value: str | None = None) -> str:
    """`value` (default: the request's `next` parameter) if it is a path of this site, else ""."""
    value = value if value is not None else request.POST.get("next") or request.GET.get("next") or ""
    if value and url_has_allowed_host_and_scheme(value, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return value
    return ""
