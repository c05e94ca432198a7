"""Pages of lists: `?page=N` with N in ASCII digits, as the schema says; anything else is "Invalid page."."""

import hashlib
import re

from django.core.cache import cache
from django.core.paginator import Paginator
from django.utils.functional import cached_property
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

ASCII_NUMBER = re.compile(r"[0-9]{1,19}")


def ascii_number(text: str) -> int | None:
    """`text` as a number if it is 1 to 19 ASCII digits, else None: str.isdigit also takes "²" and "١",
    which int() refuses or reads, and a run of thousands of digits that int() refuses (a server error)."""
    return int(text) if ASCII_NUMBER.fullmatch(text) else None


class StrictPageNumberPagination(PageNumberPagination):
    """DRF's pages, except that `?page=` empty, `last` or `١` is refused (404, as for a page past the last)
    rather than read as page 1, the last page or page 1."""

    def get_page_number(self, request, paginator):
        number = request.query_params.get(self.page_query_param)
        if number is not None and not ASCII_NUMBER.fullmatch(number):
            raise NotFound(self.invalid_page_message.format(page_number=number, message="not a page number"))
        return super().get_page_number(request, paginator)


class RecentCountPaginator(Paginator):
    """Counts a list at most once every COUNT_SECONDS (per distinct query, in the cache shared by the web
    processes): counting 100,000 matches costs more than showing a page of them."""

    COUNT_SECONDS = 10

    @cached_property
    def count(self) -> int:
        sql, params = self.object_list.query.sql_with_params()
        key = "list-count:" + hashlib.sha256(repr((sql, params)).encode()).hexdigest()
        return cache.get_or_set(key, lambda: Paginator.count.func(self), self.COUNT_SECONDS)

    def page(self, number):
        """A full page whatever the count: Paginator would end the last page at the (older) count."""
        number = self.validate_number(number)
        first = (number - 1) * self.per_page
        return self._get_page(self.object_list[first:first + self.per_page], number, self)


class RecentCountPagination(StrictPageNumberPagination):
    """For the lists that grow without bound (the matches): `count`, and so the last page, may leave out
    what was added in the last 10 s; the rows of each page are always current."""

    django_paginator_class = RecentCountPaginator
