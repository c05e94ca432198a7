"""Pages of lists: `?page=N` with N in ASCII digits, as the schema says; anything else is "Invalid page."."""

import re

from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

ASCII_NUMBER = re.compile(r"[0-9]{1,19}")


class StrictPageNumberPagination(PageNumberPagination):
    """DRF's pages, except that `?page=` empty, `last` or `١` is refused (404, as for a page past the last)
    rather than read as page 1, the last page or page 1."""

    def get_page_number(self, request, paginator):
        number = request.query_params.get(self.page_query_param)
        if number is not None and not ASCII_NUMBER.fullmatch(number):
            raise NotFound(self.invalid_page_message.format(page_number=number, message="not a page number"))
        return super().get_page_number(request, paginator)
