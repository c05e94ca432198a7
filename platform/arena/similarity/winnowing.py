"""Code similarity by winnowing over normalised Python tokens (Schleimer, Wilkerson, Aiken 2003).

Pure Python, no Django. A source is tokenised with `tokenize`, then normalised so that what a copier
changes cheaply no longer matters: identifiers become one symbol (builtins and keywords stay), literals
become one symbol per kind, comments, docstrings, line breaks and indentation are dropped. Every run of
`k` normalised tokens (a k-gram) is hashed; winnowing keeps the smallest hash of every `window`
consecutive k-gram hashes as the source's fingerprints. Any shared run of at least `k + window - 1`
tokens therefore shares a fingerprint, wherever it sits in the file, so reordering functions or adding
dead code between them leaves the copied runs detectable.

Similarity of two sources is the larger of the two shares of a source's own tokens (those under its
fingerprints and not in the starter code) that lie under a fingerprint the other also has: how much of
the smaller submission is found in the other (docs/similarity.md says why).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import io
import keyword
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable

# A k-gram of 15 normalised tokens is about a line and a half of code: long enough that the lines every
# End Game bot writes (`board = observation["board"]`, a loop header) rarely match by themselves, short
# enough that a copied 2-line block is found. Window 5 guarantees that any shared run of
# k + window - 1 = 19 tokens is detected. Measured on tests/platform/similarity_cases: docs/similarity.md.
DEFAULT_K = 15
DEFAULT_WINDOW = 5
# A fingerprint that occurs more often than this in one file (a repeated idiom) is paired only this
# often with the other file's occurrences when locating regions, so that regions stay linear in size.
MAX_OCCURRENCES_PAIRED = 8

IDENTIFIER = "N"
STRING = "S"
NUMBER = "#"
# Soft keywords (`match`, `case`, `_`) are mostly used as ordinary names, so they are normalised too.
_KEPT_NAMES = frozenset(keyword.kwlist) | frozenset(dir(builtins))
_LAYOUT = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT,
           tokenize.ENCODING, tokenize.ENDMARKER}
_STATEMENT_START = {None, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
_CLOSERS = {")", "]", "}"}
# Python 3.12 splits f-strings (3.14 also t-strings) into START ... END tokens; each whole one is a string.
_STRING_STARTS = {getattr(tokenize, name) for name in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, name)}
_STRING_ENDS = {getattr(tokenize, name) for name in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, name)}


class SourceError(ValueError):
    """A source that cannot be fingerprinted (it does not parse or tokenize as Python)."""


@dataclass(frozen=True)
class Region:
    """Matching code: lines a_start..a_end of a (1-based, inclusive) match lines b_start..b_end of b."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int


@dataclass(frozen=True)
class PairReport:
    a: str
    b: str
    similarity: float
    regions: tuple[Region, ...]


@dataclass(frozen=True)
class Token:
    text: str
    first_line: int
    last_line: int


@dataclass(frozen=True)
class Fingerprint:
    """One source's fingerprints: `selected` maps each kept hash to the k-gram positions it starts at."""

    k: int
    window: int
    tokens: tuple[Token, ...]
    kgram_hashes: frozenset[int]  # every k-gram's hash, not only the kept ones: what `ignore` removes
    selected: dict[int, tuple[int, ...]]
    own_tokens: frozenset[int]  # tokens under a kept fingerprint and in no ignored k-gram: what is scored

    @property
    def span(self) -> int:
        """Tokens per k-gram (fewer than k only in a source shorter than k)."""
        return min(self.k, len(self.tokens))

    def tokens_under(self, hashes: Iterable[int]) -> set[int]:
        """The positions of the tokens covered by the kept k-grams with these hashes."""
        span = self.span
        return {token for h in hashes for start in self.selected.get(h, ()) for token in range(start, start + span)}

    def lines_of(self, first_kgram: int, last_kgram: int) -> tuple[int, int]:
        """The line range covered by the k-grams starting at positions first_kgram..last_kgram."""
        last_token = last_kgram + self.span - 1
        return self.tokens[first_kgram].first_line, self.tokens[last_token].last_line


def normalised_tokens(source: str) -> list[Token]:
    """The source's tokens with identifiers, literals and layout normalised away; SourceError if not Python."""
    try:
        ast.parse(source)  # tokenize alone accepts much that is not Python (`def f(:`)
        raw = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
    except SyntaxError as error:  # includes IndentationError and TabError
        raise SourceError(f"line {error.lineno}: {error.msg}") from None
    except (tokenize.TokenError, ValueError) as error:  # ValueError: source with null bytes
        raise SourceError(f"does not tokenize: {error}") from None
    except (RecursionError, MemoryError):
        raise SourceError("too deeply nested to parse") from None
    tokens: list[Token] = []
    index = 0
    previous_type = None
    while index < len(raw):
        token = raw[index]
        if token.type == tokenize.NL:
            index += 1
            continue
        if _is_string_start(token):
            end = _string_run_end(raw, index)
            next_type = raw[end + 1].type if end + 1 < len(raw) else tokenize.ENDMARKER
            is_docstring = previous_type in _STATEMENT_START and next_type in (tokenize.NEWLINE, tokenize.ENDMARKER)
            if not is_docstring:
                tokens.append(Token(STRING, token.start[0], raw[end].end[0]))
            previous_type, index = tokenize.STRING, end + 1
            continue
        if token.type not in _LAYOUT and token.string != ";" and not _is_trailing_comma(raw, index):
            tokens.append(Token(_normalise(token), token.start[0], token.end[0]))
        previous_type = token.type
        index += 1
    return tokens


def _is_string_start(token: tokenize.TokenInfo) -> bool:
    return token.type == tokenize.STRING or token.type in _STRING_STARTS


def _string_run_end(raw: list[tokenize.TokenInfo], index: int) -> int:
    """The index of the last token of the string literal(s) starting at index (implicit concatenation
    and, on Python 3.12+, the parts of f-strings included)."""
    depth = 0
    while index < len(raw):
        token = raw[index]
        if token.type in _STRING_STARTS:
            depth += 1
        elif token.type in _STRING_ENDS:
            depth -= 1
        elif depth == 0 and token.type not in (tokenize.STRING, tokenize.NL):
            return index - 1
        index += 1
    return index - 1


def _is_trailing_comma(raw: list[tokenize.TokenInfo], index: int) -> bool:
    """A comma right before a closing bracket: formatters add or remove it freely."""
    if raw[index].string != ",":
        return False
    following = next((raw[i] for i in range(index + 1, len(raw)) if raw[i].type != tokenize.NL), None)
    return following is not None and following.string in _CLOSERS


def _normalise(token: tokenize.TokenInfo) -> str:
    if token.type == tokenize.NAME:
        return token.string if token.string in _KEPT_NAMES else IDENTIFIER
    if token.type == tokenize.NUMBER:
        return NUMBER
    return token.string


def _hash(texts: Iterable[str]) -> int:
    # A stable hash (not Python's salted hash()) so that fingerprints agree across processes.
    digest = hashlib.blake2b("\x1f".join(texts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def fingerprint(source: str, *, k: int = DEFAULT_K, window: int = DEFAULT_WINDOW,
                ignore: Fingerprint | None = None) -> Fingerprint:
    """Winnow the source's k-gram hashes; k-grams that also occur in `ignore` (starter code) are dropped
    first. A source shorter than k tokens is one k-gram. Raises SourceError if it is not Python."""
    if k < 1 or window < 1:
        raise ValueError(f"k and window must be at least 1 (got k={k}, window={window})")
    if ignore is not None and (ignore.k, ignore.window) != (k, window):
        raise ValueError(f"ignore was fingerprinted with k={ignore.k}, window={ignore.window}, "
                         f"not k={k}, window={window}")
    tokens = normalised_tokens(source)
    texts = [t.text for t in tokens]
    span = min(k, len(texts))
    hashes = [_hash(texts[i:i + span]) for i in range(len(texts) - span + 1)] if texts else []
    ignored = ignore.kgram_hashes if ignore is not None else frozenset()
    kept = [(h, position) for position, h in enumerate(hashes) if h not in ignored]
    selected: dict[int, list[int]] = defaultdict(list)
    for h, position in _winnow(kept, window):
        selected[h].append(position)
    public = {token for position, h in enumerate(hashes) if h in ignored for token in range(position, position + span)}
    fingerprinted = {token for positions in selected.values() for p in positions for token in range(p, p + span)}
    return Fingerprint(k, window, tuple(tokens), frozenset(hashes),
                       {h: tuple(positions) for h, positions in selected.items()}, frozenset(fingerprinted - public))


def _winnow(hashes: list[tuple[int, int]], window: int) -> list[tuple[int, int]]:
    """Robust winnowing: the minimum of each window (the rightmost on ties), each occurrence once."""
    chosen: list[tuple[int, int]] = []
    for start in range(max(1, len(hashes) - window + 1)):
        current = hashes[start:start + window]
        if not current:
            break
        smallest = min(h for h, _ in current)
        pick = next(item for item in reversed(current) if item[0] == smallest)
        if not chosen or chosen[-1] != pick:
            chosen.append(pick)
    return chosen


def combine(fingerprints: Iterable[Fingerprint]) -> Fingerprint | None:
    """One `ignore` fingerprint covering several public sources (starter code, built-in bots)."""
    fingerprints = list(fingerprints)
    if not fingerprints:
        return None
    first = fingerprints[0]
    if any((f.k, f.window) != (first.k, first.window) for f in fingerprints):
        raise ValueError("fingerprints to combine must share k and window")
    return Fingerprint(first.k, first.window, (), frozenset().union(*(f.kgram_hashes for f in fingerprints)), {},
                       frozenset())


def compare(a: Fingerprint, b: Fingerprint) -> tuple[float, tuple[Region, ...]]:
    """Similarity in [0, 1] and the matching regions, ordered by their lines in a.

    Similarity is the larger of the two shares of own tokens (see Fingerprint.own_tokens) lying under a
    fingerprint the other source also has: how much of the smaller submission is found in the other.
    """
    if (a.k, a.window) != (b.k, b.window):
        raise ValueError(f"cannot compare fingerprints of different k/window: {a.k}/{a.window} and {b.k}/{b.window}")
    shared = a.selected.keys() & b.selected.keys()
    if not shared:
        return 0.0, ()
    share = max(_share_found(a, shared), _share_found(b, shared))
    return share, _regions(a, b, shared)


def _share_found(source: Fingerprint, shared: set[int]) -> float:
    if not source.own_tokens:
        return 0.0
    return len(source.tokens_under(shared) & source.own_tokens) / len(source.own_tokens)


def _regions(a: Fingerprint, b: Fingerprint, shared: Iterable[int]) -> tuple[Region, ...]:
    """Chain shared fingerprints lying on one diagonal (same offset between a and b) into regions."""
    by_offset: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for h in shared:
        for position_a in a.selected[h][:MAX_OCCURRENCES_PAIRED]:
            for position_b in b.selected[h][:MAX_OCCURRENCES_PAIRED]:
                by_offset[position_a - position_b].append((position_a, position_b))
    regions = []
    for matches in by_offset.values():
        matches.sort()
        run = [matches[0]]
        for match in matches[1:]:
            # Within one copied run winnowing keeps a fingerprint at least every `window` k-grams.
            if match[0] - run[-1][0] > a.window:
                regions.append(_region(a, b, run))
                run = []
            run.append(match)
        regions.append(_region(a, b, run))
    return _merge_overlapping(regions)


def _region(a: Fingerprint, b: Fingerprint, run: list[tuple[int, int]]) -> Region:
    a_start, a_end = a.lines_of(run[0][0], run[-1][0])
    b_start, b_end = b.lines_of(run[0][1], run[-1][1])
    return Region(a_start, a_end, b_start, b_end)


def _merge_overlapping(regions: list[Region]) -> tuple[Region, ...]:
    """Regions whose lines overlap on both sides are one region (neighbouring diagonals of one copy)."""
    merged: list[Region] = []
    for region in sorted(regions, key=lambda r: (r.a_start, r.b_start)):
        for index, other in enumerate(merged):
            if _overlap(region.a_start, region.a_end, other.a_start, other.a_end) and \
                    _overlap(region.b_start, region.b_end, other.b_start, other.b_end):
                merged[index] = Region(min(region.a_start, other.a_start), max(region.a_end, other.a_end),
                                       min(region.b_start, other.b_start), max(region.b_end, other.b_end))
                break
        else:
            merged.append(region)
    return tuple(sorted(merged, key=lambda r: (r.a_start, r.b_start)))


def _overlap(start: int, end: int, other_start: int, other_end: int) -> bool:
    return start <= other_end and other_start <= end


def fingerprint_all(sources: dict[str, str], ignore: Fingerprint | None = None
                    ) -> tuple[dict[str, Fingerprint], dict[str, str]]:
    """Fingerprint every source; returns the fingerprints and, by name, why the others could not be."""
    fingerprints, errors = {}, {}
    for name, source in sources.items():
        try:
            fingerprints[name] = fingerprint(source, ignore=ignore)
        except SourceError as error:
            errors[name] = str(error)
    return fingerprints, errors


def compare_fingerprints(fingerprints: dict[str, Fingerprint]) -> list[PairReport]:
    """Every pair (a before b in the given order), the most similar first."""
    reports = [PairReport(a, b, *compare(fingerprints[a], fingerprints[b])) for a, b in combinations(fingerprints, 2)]
    reports.sort(key=lambda report: -report.similarity)  # stable: ties keep the given order
    return reports


def public_fingerprint(starter: str | None, public: Iterable[str] = ()) -> Fingerprint | None:
    """What every student was given (starter code, built-in bots' code), as one `ignore` fingerprint."""
    given = ([("starter code", starter)] if starter is not None else []) + [("public code", s) for s in public]
    fingerprints = []
    for what, source in given:
        try:
            fingerprints.append(fingerprint(source))
        except SourceError as error:
            raise SourceError(f"{what}: {error}") from None
    return combine(fingerprints)


def compare_all(sources: dict[str, str], starter: str | None = None, *, public: Iterable[str] = ()) -> list[PairReport]:
    """Every pair of the sources, highest similarity first, ignoring code from the starter and from
    `public` (e.g. `builtin_bot_sources(game)`). Raises SourceError naming every source that is not Python."""
    fingerprints, errors = fingerprint_all(sources, public_fingerprint(starter, public))
    if errors:
        raise SourceError("; ".join(f"{name}: {reason}" for name, reason in errors.items()))
    return compare_fingerprints(fingerprints)


def score_histogram(reports: Iterable[PairReport], bins: int = 10) -> list[dict]:
    """How many pairs fall in each of `bins` equal bins of [0, 1] (a score of 1.0 in the last):
    [{"low": 0.0, "high": 0.1, "count": n}, ...] for the page's histogram."""
    counts = [0] * bins
    for report in reports:
        counts[min(int(report.similarity * bins), bins - 1)] += 1
    return [{"low": i / bins, "high": (i + 1) / bins, "count": count} for i, count in enumerate(counts)]
