"""Compare the instructor's own bot files pairwise, offline: `manage.py similarity FILE... [--json]`."""

import json
from dataclasses import asdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from arena.similarity.public_code import builtin_bot_sources
from arena.similarity.winnowing import PairReport, SourceError, compare_fingerprints, fingerprint_all, public_fingerprint


class Command(BaseCommand):
    help = ("Similarity of every pair of the given Python files (winnowing over normalised tokens), "
            "highest first; code from --starter files and --game's built-in bots does not count.")

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE", help="the Python files to compare (at least two)")
        parser.add_argument("--starter", action="append", default=[], metavar="FILE",
                            help="code everyone was given, ignored in the comparison (may be repeated)")
        parser.add_argument("--game", help="also ignore this game's built-in bots' code (e.g. endgame)")
        parser.add_argument("--json", action="store_true",
                            help='print {"pairs": [{"a", "b", "similarity", "regions"}, ...], "errors": {FILE: reason}}')

    def handle(self, *args, files, starter, game, **options):
        sources, errors = _read(files)
        if len(sources) + len(errors) < 2:
            raise CommandError("give at least two different files to compare")
        ignore = _public(starter, game)
        fingerprints, not_python = fingerprint_all(sources, ignore)
        errors.update(not_python)
        reports = compare_fingerprints(fingerprints)
        self.stdout.write(_as_json(reports, errors) if options["json"] else _as_table(reports))
        for name, reason in errors.items():
            self.stderr.write(f"{name}: not compared: {reason}")
        if errors:
            raise CommandError(f"{len(errors)} of {len(files)} files could not be compared: {', '.join(errors)}")


def _read(paths: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    sources, errors = {}, {}
    for path in paths:
        try:
            sources[path] = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            errors[path] = error.strerror or str(error)
        except UnicodeDecodeError:
            errors[path] = "not UTF-8 text"
    return sources, errors


def _public(starters: list[str], game: str | None):
    sources = []
    for path in starters:
        try:
            sources.append(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"starter {path}: cannot read: {error}") from None
    if game is not None:
        try:
            sources += builtin_bot_sources(game)
        except KeyError as error:
            raise CommandError(error.args[0]) from None
    try:
        return public_fingerprint(None, sources)
    except SourceError as error:
        raise CommandError(f"starter: {error}") from None


def _as_json(reports: list[PairReport], errors: dict[str, str]) -> str:
    pairs = [{"a": r.a, "b": r.b, "similarity": round(r.similarity, 4),
              "regions": [asdict(region) for region in r.regions]} for r in reports]
    return json.dumps({"pairs": pairs, "errors": errors}, indent=2)


def _as_table(reports: list[PairReport]) -> str:
    if not reports:
        return "no pair to compare"
    width_a = max(len(r.a) for r in reports)
    width_b = max(len(r.b) for r in reports)
    lines = [f"{'similarity':>10}  {'a':<{width_a}}  {'b':<{width_b}}  matching lines (a ~ b)"]
    for r in reports:
        matches = ", ".join(f"{g.a_start}-{g.a_end} ~ {g.b_start}-{g.b_end}" for g in r.regions) or "-"
        lines.append(f"{r.similarity:>10.2f}  {r.a:<{width_a}}  {r.b:<{width_b}}  {matches}")
    return "\n".join(lines)
