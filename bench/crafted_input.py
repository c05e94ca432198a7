"""The CPU cost of refusing crafted inputs at each boundary that checks text from people or bots (figures,
no assertions; the linear growth itself is tested in tests/*/test_*_linear_checks.py).

    python3 bench/crafted_input.py [--sizes 1024 8192 65536 1048576] [--runs 3] [--json]

For every boundary, each of its crafted shapes (the inputs that made a backtracking or rescanning check
quadratic: unclosed strings of escaped quotes, runs of quotes and brackets, ...) is built at each size and
refused; the costliest shape at each size is printed, as CPU milliseconds of this process (the best of
`--runs`), with `per-KB ratio`: the cost per KB at the largest size over the cost per KB at the smallest
(about 1 or less for a linear check, about 1,000 for a quadratic one from 1 KB to 1 MiB).

The bot line end to end starts a bot (the `none` sandbox, a plain child process) that writes the crafted
line as its first answer: the cost is this process's CPU while it reads and judges the line, the bot's own
process apart. The HTTP row posts the body to /api/auth/token/ through Django's test client (the whole
request: middleware, throttle, parser); it needs the cache the settings name (Redis) and is left out with
a note if Django cannot start. `--json` prints the figures as one JSON object (bench/hall.py reads it).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from games.core import MAX_JSON_DEPTH, loads_json, text_nests_deeper_than
from sandbox.protocol import parse_reply

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")

SIZES = [1024, 8192, 65536, 1 << 20]
ACTION = b'{"v":1,"seq":1,"type":"action","action":"'


def repeated(prefix, unit, suffix=None):
    """A shape: `prefix`, `unit` repeated, `suffix`, about `size` long in all."""
    suffix = suffix if suffix is not None else prefix[:0]
    return lambda size: prefix + unit * max(1, (size - len(prefix) - len(suffix)) // len(unit)) + suffix


JSON_SHAPES = {
    "escaped quotes, string never closed": repeated('{"username":"x', '\\"', "}"),
    "quotes": repeated("", '"'),
    "quote-bracket pairs": repeated("", '"['),
    "empty arrays": repeated("[", "[]"),
    "depth-64 arrays": repeated("", "[" * 64 + "]" * 64),
    "opening brackets": repeated("", "["),
    "backslash runs": repeated('"', "\\"),
}
LINE_SHAPES = {name: (lambda shape: lambda size: shape(size).encode())(shape) for name, shape in JSON_SHAPES.items()}
LINE_SHAPES["escaped quotes in an action"] = repeated(ACTION, b'\\"')
ROSTER_SHAPES = {
    "quote never closed, doubled quotes": repeated('student_id,email,name\n"', '""'),
    "quote never closed, commas and newlines": repeated('student_id,email,name\n1,"', ",\n"),
    "header of commas": repeated("", ","),
}
USERNAME_SHAPES = {
    "Cyrillic lookalikes": repeated("", "а"),
    "mixed scripts": repeated("", "aа"),
    "NFKC expanding (U+FDFA)": repeated("", "\ufdfa"),
}
SOURCE_SHAPES = {
    "string never closed, escaped quotes": repeated(b'x = "', b'\\"'),
    "nested brackets": repeated(b"x = ", b"["),
    "long expression": repeated(b"x = 1", b"+1"),
    "triple-quoted, never closed": repeated(b'x = """', b'\\"""'),
}


def cpu(check: Callable[[object], object], value: object, runs: int) -> float:
    """CPU seconds of one refusal of `value` (any exception is a refusal), the best of `runs`."""
    best = float("inf")
    for _ in range(runs):
        began = time.process_time()
        try:
            check(value)
        except Exception:  # noqa: BLE001 - refusing is what is timed
            pass
        best = min(best, time.process_time() - began)
    return best


def measure_bot_line(size: int, runs: int) -> float:
    """CPU of this process while a bot's first answer, a crafted `size`-byte line, is read and judged
    (the bot's start and end not timed), the best of `runs`."""
    import sandbox
    from games.core import BotFailure

    line = LINE_SHAPES["escaped quotes in an action"](min(size, sandbox.Limits().message_bytes))
    source = (ROOT / "tests" / "sandbox" / "bots" / "hostile_line.py").read_text()
    best = float("inf")
    with tempfile.TemporaryDirectory() as folder:
        bot = Path(folder) / "crafted.py"
        bot.write_text(source.replace('LINES = b""', "LINES = " + repr(line + b"\n"), 1))
        for _ in range(runs):
            player = sandbox.open_player("none", str(bot), limits=sandbox.Limits(setup=5, decision=5, bank=5))
            try:
                player.start({"game": "bench"})
                began = time.process_time()
                try:
                    player.act({"step": 0, "legal_actions": ["left"]})
                except BotFailure:
                    pass
                best = min(best, time.process_time() - began)
            finally:
                player.close()
    return best


def django_checks() -> tuple[dict, str]:
    """The boundaries that need Django, or ({}, why not)."""
    try:
        import django

        django.setup()
        from django.conf import settings
        from django.test import Client, override_settings

        from arena.accounts import people
        from arena.accounts.usernames import clean_username
        from arena.bots.validation import check_source
        from arena.core.parsers import BoundedJSONParser
        from arena.variants.services import read_json_file
    except Exception as error:  # noqa: BLE001 - the bench reports what it could not measure
        return {}, f"Django boundaries left out: {type(error).__name__}: {error}"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    client = Client()

    def post_token(body: bytes) -> None:
        # A cache prefix of its own for each request: the per-address throttle would answer 429 unread.
        fresh = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"bench-{uuid.uuid4().hex}"}}
        with override_settings(CACHES=fresh):
            status = client.post("/api/auth/token/", body, content_type="application/json").status_code
        if status != 400:
            raise RuntimeError(f"/api/auth/token/ answered {status} to a crafted body")

    def parse_body(body: bytes) -> None:
        BoundedJSONParser().parse(io.BytesIO(body), "application/json", {"encoding": "utf-8"})

    def read_deck(data: bytes) -> None:
        file = io.BytesIO(data)
        file.name = "deck.json"
        read_json_file(file)

    def read_roster(text: str) -> None:
        people._roster_rows(csv.DictReader(io.StringIO(text)))

    body_shapes = {name: (lambda shape: lambda size: shape(size).encode())(shape)
                   for name, shape in JSON_SHAPES.items()}
    token_shape = {"escaped quotes, string never closed": body_shapes["escaped quotes, string never closed"]}
    return {
        "HTTP JSON body (parser)": (parse_body, body_shapes),
        "HTTP POST /api/auth/token/": (post_token, token_shape),
        f"variant deck file ({settings.ARENA_MAX_VARIANT_BYTES >> 10} KiB limit)": (read_deck, body_shapes),
        "roster CSV": (read_roster, ROSTER_SHAPES),
        "username": (clean_username, USERNAME_SHAPES),
        f"bot upload ({settings.ARENA_MAX_UPLOAD_BYTES >> 10} KiB limit)": (lambda data: check_source(data, "bot.py"),
                                                                           SOURCE_SHAPES),
    }, ""


def measure(sizes: list[int], runs: int) -> tuple[dict, list[str]]:
    boundaries: dict[str, tuple[Callable, dict]] = {
        "JSON nesting check": (lambda text: text_nests_deeper_than(text, MAX_JSON_DEPTH), JSON_SHAPES),
        "bounded JSON reader": (loads_json, JSON_SHAPES),
        "bot protocol line (parse)": (parse_reply, LINE_SHAPES),
    }
    extra, note = django_checks()
    boundaries.update(extra)
    figures: dict[str, dict] = {}
    for boundary, (check, shapes) in boundaries.items():
        row = {}
        for size in sizes:
            costs = {name: cpu(check, shape(size), runs) for name, shape in shapes.items()}
            worst = max(costs, key=costs.get)
            row[size] = (costs[worst], worst)
        figures[boundary] = row
    figures["bot protocol line (end to end)"] = {
        size: (measure_bot_line(size, runs), "escaped quotes in an action") for size in sizes}
    return figures, [note] if note else []


def per_kb_ratio(row: dict, sizes: list[int]) -> float:
    small, large = sizes[0], sizes[-1]
    return (row[large][0] / large) / max(row[small][0] / small, 1e-12)


def label(size: int) -> str:
    return f"{size >> 20} MiB" if size >= 1 << 20 and size % (1 << 20) == 0 else f"{size >> 10} KB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    figures, notes = measure(sizes, args.runs)
    if args.json:
        print(json.dumps({boundary: {"ms": {str(size): round(row[size][0] * 1000, 3) for size in sizes},
                                     "worst_shape": row[sizes[-1]][1],
                                     "per_kb_ratio": round(per_kb_ratio(row, sizes), 3)}
                          for boundary, row in figures.items()} | {"notes": notes}))
        return
    width = max(map(len, figures))
    print("CPU ms to refuse a crafted input (best of %d), costliest shape at each size" % args.runs)
    print(f"{'boundary':<{width}}  " + "  ".join(f"{label(size):>9}" for size in sizes) + "  per-KB ratio"
          + "  costliest shape at the largest size")
    for boundary, row in figures.items():
        print(f"{boundary:<{width}}  " + "  ".join(f"{row[size][0] * 1000:9.3f}" for size in sizes)
              + f"  {per_kb_ratio(row, sizes):12.2f}  {row[sizes[-1]][1]}")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
