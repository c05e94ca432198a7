"""Logging filters of the Arena project (named in settings.LOGGING)."""

import logging


class NoTracebackForRefusals(logging.Filter):
    """Drop the traceback from the log record of a refused request (a 4xx answer, e.g. Django's 403 for a
    PermissionDenied), keeping its one line: the refusal is the client's doing, not a fault to debug."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if status is not None and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
