"""Asymptotic classes N^a · log^b N · (N!)^c (and unbounded), parsed from text and totally ordered.

Every class the deck needs is a product of those three factors, so a class is the triple of exponents
and growth order is the lexicographic order of (unbounded, c, a, b): a factorial outgrows any power of N,
a power of N outgrows any power of log N. Two texts naming the same triple are the same class (a tie).
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from ..core import short_repr

SUPERSCRIPTS = str.maketrans({"²": "^2", "³": "^3", "⁴": "^4", "·": " ", "*": " ", "×": " "})
UNBOUNDED_WORDS = {"∞", "inf", "infinity", "unbounded"}
FACTOR = re.compile(
    r"\s*(?:(?P<factorial>[Nn]!(?:\^(?P<factorial_power>\d+))?)"
    r"|(?P<log>log(?:\^(?P<log_power>\d+))?\s*[Nn])"
    r"|(?P<power>[Nn](?:\^(?P<exponent>\d+(?:\.\d+)?(?:/\d+)?))?)"
    r"|(?P<one>1))\s*"
)
BOUND = re.compile(r"^\s*(?P<relation>Θ|Theta|O|Ω|Omega)\s*\((?P<inner>.*)\)\s*$")
RELATION_NAMES = {"Theta": "Θ", "Omega": "Ω"}
# Far longer than any class needs ("N^3/2 log^2 N"); it also keeps exponents to numbers Python reads at once.
MAX_TEXT = 60


class ComplexityError(ValueError):
    """A text that is not a complexity class the deck language knows."""


@dataclasses.dataclass(frozen=True, order=True)
class Complexity:
    unbounded: bool = False
    factorial: int = 0
    power: Fraction = Fraction(0)
    log_power: int = 0

    def __str__(self) -> str:
        if self.unbounded:
            return "∞"
        parts = []
        if self.power:
            parts.append("N" + _exponent(self.power))
        if self.log_power:
            parts.append(f"log{_exponent(self.log_power)} N")
        text = " ".join(parts)
        if self.factorial:
            text += ("·" if text else "") + "N!" + _exponent(self.factorial)
        return text or "1"

    def tight(self) -> str:
        """The class as a tight bound: "Θ(N log N)", or "unbounded" for ∞."""
        return "unbounded" if self.unbounded else f"Θ({self})"


def _exponent(value) -> str:
    return {1: "", 2: "²", 3: "³"}.get(value, f"^{value}")


def parse(text: str) -> Complexity:
    """The class named by `text`, e.g. "N log N", "N²", "N^1.5", "log² N", "N·N!", "1", "∞"."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        raise ComplexityError(f"malformed complexity {short_repr(text)}: expected text such as 'N log N' or 'N^2' "
                              f"(at most {MAX_TEXT} characters)")
    normal = text.translate(SUPERSCRIPTS).strip()
    if normal.lower() in UNBOUNDED_WORDS:
        return Complexity(unbounded=True)
    factorial, power, log_power, position = 0, Fraction(0), 0, 0
    while position < len(normal):
        match = FACTOR.match(normal, position)
        if not match or match.end() == position:
            raise ComplexityError(f"malformed complexity {short_repr(text)}: cannot read {short_repr(normal[position:])}")
        position = match.end()
        if match["factorial"]:
            factorial += int(match["factorial_power"] or 1)
        elif match["log"]:
            log_power += int(match["log_power"] or 1)
        elif match["power"]:
            power += Fraction(match["exponent"] or 1)
    return Complexity(False, factorial, power, log_power)


def parse_bound(text: str) -> tuple[str, Complexity]:
    """A bound card's text, e.g. "Θ(N log N)" or "O(N²)", as (relation, class); relation is Θ, O or Ω."""
    match = BOUND.match(text) if isinstance(text, str) and len(text) <= MAX_TEXT else None
    if not match:
        raise ComplexityError(f"malformed bound {short_repr(text)}: expected Θ(...), O(...) or Ω(...) "
                              f"(at most {MAX_TEXT} characters)")
    relation = RELATION_NAMES.get(match["relation"], match["relation"])
    return relation, parse(match["inner"])


def satisfies(actual: Complexity, relation: str, bound: Complexity) -> bool:
    """Whether a tight class `actual` is Θ / O / Ω of `bound`."""
    if relation == "Θ":
        return actual == bound
    if relation == "O":
        return actual <= bound
    return actual >= bound
