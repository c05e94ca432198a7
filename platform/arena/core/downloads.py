"""A Python file as a download (bot versions, example bots, starter code)."""

from django.http import HttpResponse
from django.utils.http import content_disposition_header


def python_download(source: str, filename: str) -> HttpResponse:
    """`source` as the file `filename` to save (the header quoted safely whatever the name holds)."""
    return HttpResponse(source, content_type="text/x-python; charset=utf-8",
                        headers={"Content-Disposition": content_disposition_header(as_attachment=True,
                                                                                   filename=filename)})
