"""The solver's persistent table of solved positions: a bounded SQLite file under var/, shared by every
process on the machine (match workers, the web server, the command line), so that a position solved for
one game's analysis answers at once in every later one.

Only positions with many lives are kept (STORE_MIN_LIVES): smaller ones are solved again faster than
they are looked up. The file holds at most `max_rows` rows, counted whenever a process has written a
tenth of that since its last count (so it may pass the bound by that much for a while); beyond it the
oldest tenth is dropped.
`python -m games solve sprouts --clear-cache` empties it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
# The same directory as the platform's settings.VAR_DIR, without importing Django into the games package.
DEFAULT_PATH = Path(os.environ.get("ARENA_VAR_DIR", REPO_ROOT / "var")) / "sprouts-solved.sqlite3"
DEFAULT_MAX_ROWS = 300_000  # about 60 MB: every position of many thousand analysed games
STORE_MIN_LIVES = 12
FLUSH_EVERY = 2_000


class SolvedStore:
    """key (text) -> small integer (a nimber, or 0/1 for an outcome), persisted and bounded."""

    def __init__(self, path: Path | str | None = None, max_rows: int = DEFAULT_MAX_ROWS):
        # A path given wins over the environment's (a test's own file), which wins over var/.
        self.path = Path(path or os.environ.get("ARENA_SPROUTS_STORE") or DEFAULT_PATH)
        self.max_rows = max_rows
        self._pending: dict[str, int] = {}
        self._local = threading.local()  # sqlite3 connections may not cross threads (the web server's)
        # Rows in the file as last counted plus those written since (an upper bound for this process's
        # writes; other processes' are seen at the next count). Counting 96,000 rows takes 12 ms, and the
        # analysis flushes after every search: counted only past the bound or after a tenth of it written.
        self._rows_at_most: int | None = None
        self._written_since_count = 0

    def _connection(self) -> sqlite3.Connection | None:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                connection = sqlite3.connect(self.path, timeout=10, isolation_level=None)
                connection.execute("PRAGMA journal_mode=WAL")
                # A cache: a commit need not reach the disk before the search goes on (WAL keeps the file
                # sound; a power cut may lose the last results, which are solved again).
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute("CREATE TABLE IF NOT EXISTS solved (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            except (OSError, sqlite3.Error):
                return None  # a read-only or full disk: the solver works, only without memory between runs
            self._local.connection = connection
        return connection

    def get(self, key: str) -> int | None:
        if key in self._pending:
            return self._pending[key]
        connection = self._connection()
        if connection is None:
            return None
        try:
            row = connection.execute("SELECT value FROM solved WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else row[0]

    def put(self, key: str, value: int) -> None:
        self._pending[key] = value
        if len(self._pending) >= FLUSH_EVERY:
            self.flush()

    def flush(self) -> None:
        """Write what was solved since the last flush in one transaction, then keep the file bounded."""
        pending, self._pending = self._pending, {}
        connection = self._connection()
        if not pending or connection is None:
            return
        try:
            connection.execute("BEGIN IMMEDIATE")
            connection.executemany("INSERT OR REPLACE INTO solved (key, value) VALUES (?, ?)", pending.items())
            self._written_since_count += len(pending)
            if self._rows_at_most is not None:
                self._rows_at_most += len(pending)
            if (self._rows_at_most is None or self._rows_at_most > self.max_rows
                    or self._written_since_count >= self.max_rows // 10):
                rows = connection.execute("SELECT COUNT(*) FROM solved").fetchone()[0]
                if rows > self.max_rows:
                    excess = rows - self.max_rows * 9 // 10
                    connection.execute("DELETE FROM solved WHERE rowid IN (SELECT rowid FROM solved ORDER BY rowid "
                                       "LIMIT ?)", (excess,))
                    rows -= excess
                self._rows_at_most, self._written_since_count = rows, 0
            connection.execute("COMMIT")
        except sqlite3.Error:
            self._rows_at_most = None  # counted again at the next flush
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def items(self, prefix: str) -> list[tuple[str, int]]:
        """Every (key, value) whose key starts with `prefix`."""
        self.flush()
        connection = self._connection()
        if connection is None:
            return []
        try:
            return connection.execute("SELECT key, value FROM solved WHERE key >= ? AND key < ?",
                                      (prefix, prefix + "\uffff")).fetchall()
        except sqlite3.Error:
            return []

    def core_records(self) -> bytes:
        """The compiled core's results (keys "core <kind> <hex key>", fast.exported) in the format its
        sp_import reads, all at once: a kind byte, the value, a 2-byte length, the key. Built by SQLite in
        one scan of the table (the core's rows are nearly all of it) rather than row by row in Python: for a
        warmed store's 96,000 rows 0.2 s of CPU instead of 0.6."""
        self.flush()
        connection = self._connection()
        if connection is None:
            return b""
        try:
            text = connection.execute(
                "SELECT group_concat(printf('%02x%02x%04x', unicode(substr(key, 6, 1)), value, (length(key) - 7) / 2)"
                " || substr(key, 8), '') FROM solved NOT INDEXED WHERE key >= ? AND key < ?", ("core ", "core \uffff")
            ).fetchone()[0]
        except sqlite3.Error:
            return b""
        return bytes.fromhex(text or "")

    def rows(self) -> int:
        connection = self._connection()
        return 0 if connection is None else connection.execute("SELECT COUNT(*) FROM solved").fetchone()[0]

    def clear(self) -> int:
        """Empty the file; the number of rows removed."""
        self._pending = {}
        connection = self._connection()
        if connection is None:
            return 0
        removed = self.rows()
        self._rows_at_most = None
        connection.execute("DELETE FROM solved")
        connection.execute("VACUUM")
        return removed
