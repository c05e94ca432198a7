"""Downloads: a Python file (bot versions, example bots, starter code), a CSV for a spreadsheet (grades, a
pairing room's results)."""

from django.http import HttpResponse
from django.utils.http import content_disposition_header


def python_download(source: str, filename: str) -> HttpResponse:
    """`source` as the file `filename` to save (the header quoted safely whatever the name holds)."""
    return HttpResponse(source, content_type="text/x-python; charset=utf-8",
                        headers={"Content-Disposition": content_disposition_header(as_attachment=True,
                                                                                   filename=filename)})


def csv_download(text: str, filename: str) -> HttpResponse:
    """CSV `text` as the file `filename` to save; its text cells made by `spreadsheet_text`."""
    return HttpResponse(text, content_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": content_disposition_header(as_attachment=True,
                                                                                   filename=filename)})


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: one starting like a formula gets a leading quote (OWASP's
    advice on CSV injection), so that a name such as `=HYPERLINK(...)` is never run on the instructor's machine."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text
