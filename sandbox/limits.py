"""What a sandboxed bot may use, per match. The defaults are safe; games set their own times."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Limits:
    # Seconds of wall clock (and of CPU, see docs/operator-sandbox.md) to load the file and run setup.
    setup: float = 5.0
    # Seconds per decision; time over it is drawn from the bank, and an empty bank is a timeout.
    decision: float = 1.0
    bank: float = 10.0
    # Memory and swap together.
    memory_mb: int = 256
    # Processes and threads together.
    pids: int = 64
    cpus: float = 1.0
    # The writable /tmp (tmpfs) and the largest file the bot may write.
    tmp_mb: int = 16
    open_files: int = 64
    # The longest protocol message either way; a longer line from the bot is a protocol verdict.
    message_bytes: int = 1 << 20
    # Bot stderr kept per match (its first and last halves), and the kept traceback.
    log_bytes: int = 64 << 10
    traceback_bytes: int = 16 << 10

    @classmethod
    def for_game(cls, game, **overrides) -> "Limits":
        """The defaults with the game's `time_limits` ({"setup", "decision", "bank"}) and `overrides`."""
        times = {key: float(value) for key, value in game.time_limits.items() if key in ("setup", "decision", "bank")}
        return cls(**{**times, **overrides})
