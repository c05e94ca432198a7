"""The SortingGame deck: algorithm and special cards read from JSON and validated with every problem listed.

`load_deck(None)` is the packaged standard deck (deck.json); an instructor's deck (Extension 2) is a file
path or the same structure as a dict. `python -m games.sortinggame [FILE] [--table]` checks a deck file
and prints its summary or its Markdown tables.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

from ..core import canonical, check_json_depth, loads_json, short_repr
from .complexity import Complexity, ComplexityError, parse, parse_bound, satisfies

STANDARD_DECK = Path(__file__).with_name("deck.json")
FLAGS = {  # property: (word when true, word when false)
    "stable": ("stable", "unstable"),
    "in_place": ("in-place", "not in-place"),
    "comparison": ("comparison-based", "not comparison-based"),
}
CASES = ("best", "average", "worst")
CLASSES = {"best": "best-case time", "average": "average-case time", "worst": "worst-case time",
           "space": "extra space", "swaps": "number of swaps"}
PROPERTIES = (*FLAGS, *CLASSES)
# A requirement may name "time": the time of whichever case card is active.
REQUIREMENT_PROPERTIES = (*PROPERTIES, "time")
DEFAULT_CASE = "worst"
# Ruling: "in-place" admits O(log N) extra space (the recursion stack of quicksort and introsort).
IN_PLACE_LIMIT = parse("log N")
# Bounds on a deck, so that no deck makes a match, its observations (which carry the whole catalogue) or its
# analysis outgrow the time limits. The standard deck has 18 algorithms, 21 special cards, at most 4 copies.
MAX_CARDS_PER_SECTION = 100
MAX_COPIES = 20
MAX_SOURCES = 100
MAX_TEXT = 200  # ids, names, variants
MAX_LONG_TEXT = 2_000  # the description and each source's reference
SPECIAL_KINDS = ("criterion", "case", "robbery")
ROBBERY_TAKES = ("algorithm", "criterion", "case")
ALGORITHM_KEYS = {"id", "name", "copies", "variant", "sources", *PROPERTIES}
SPECIAL_KEYS = {"criterion": {"requires"}, "case": {"case"}, "robbery": {"takes", "requires"}}
COMMON_SPECIAL_KEYS = {"id", "name", "kind", "copies"}


class DeckError(ValueError):
    """A deck that does not validate; `problems` lists every problem found."""

    def __init__(self, problems: list[str]):
        super().__init__("invalid deck:\n  - " + "\n  - ".join(problems))
        self.problems = problems


@dataclasses.dataclass(frozen=True)
class Requirement:
    """What a criterion or robbery card asks of an algorithm: a flag's value or a bound on a class."""

    property: str
    expected: bool | None = None
    relation: str | None = None
    bound: Complexity | None = None

    def measured(self, case: str | None) -> str:
        return case if self.property == "time" else self.property

    def holds(self, algorithm: "AlgorithmCard", case: str) -> bool:
        value = algorithm.value(self.measured(case))
        if self.expected is not None:
            return value == self.expected
        return satisfies(value, self.relation, self.bound)

    def demand(self, case: str | None) -> str:
        """What the card requires, in words: "a stable algorithm", "worst-case time Θ(N log N)".

        `case` None describes the card itself, whose "time" is that of whichever case is active."""
        if self.expected is not None:
            word = FLAGS[self.property][0 if self.expected else 1]
            return f"{'an' if word[0] in 'aeiou' else 'a'} {word} algorithm"
        measured = CLASSES.get(self.measured(case), "time under the active case")
        return f"{measured} {self.relation}({self.bound})"

    def finding(self, algorithm: "AlgorithmCard", case: str) -> str:
        """What the deck says about `algorithm` for this requirement, with the source."""
        measured = self.measured(case)
        source = f" (source: {algorithm.sources[measured]})"
        if self.expected is not None:
            return f"{algorithm.name} is {FLAGS[measured][0 if algorithm.value(measured) else 1]}{source}"
        return f"{algorithm.name}'s {CLASSES[measured]} is {algorithm.value(measured).tight()}{source}"


@dataclasses.dataclass(frozen=True)
class AlgorithmCard:
    id: str
    name: str
    copies: int
    stable: bool
    in_place: bool
    comparison: bool
    best: Complexity
    average: Complexity
    worst: Complexity
    space: Complexity
    swaps: Complexity
    variant: str
    sources: dict

    kind = "algorithm"

    def value(self, prop: str):
        return getattr(self, prop)

    def as_json(self) -> dict:
        data = {"kind": self.kind, "name": self.name, "copies": self.copies, "variant": self.variant}
        data.update({prop: self.value(prop) if prop in FLAGS else str(self.value(prop)) for prop in PROPERTIES})
        data["sources"] = dict(self.sources)
        return data


@dataclasses.dataclass(frozen=True)
class SpecialCard:
    id: str
    name: str
    kind: str
    copies: int
    requires: Requirement | None = None
    case: str | None = None
    takes: str | None = None

    def as_json(self) -> dict:
        data = {"kind": self.kind, "name": self.name, "copies": self.copies}
        if self.case:
            data["case"] = self.case
        if self.takes:
            data["takes"] = self.takes
        if self.requires:
            req = self.requires
            data["requires"] = {"property": req.property}
            data["requires"].update({"is": req.expected} if req.expected is not None else {"bound": f"{req.relation}({req.bound})"})
        return data


@dataclasses.dataclass(frozen=True, eq=False)
class Deck:
    name: str
    description: str
    sources: dict
    algorithms: dict  # id -> AlgorithmCard, in deck order
    specials: dict  # id -> SpecialCard, in deck order

    def __deepcopy__(self, memo):
        return self  # immutable and shared by every state of a match

    def card(self, card_id: str) -> AlgorithmCard | SpecialCard:
        return self.algorithms.get(card_id) or self.specials[card_id]

    def is_algorithm(self, card_id: str) -> bool:
        return card_id in self.algorithms

    def stacks(self, robbery: bool) -> tuple[list[str], list[str]]:
        """The unshuffled algorithm and special stacks (robbery cards only with Extension 1 on)."""
        algorithms = [card.id for card in self.algorithms.values() for _ in range(card.copies)]
        specials = [card.id for card in self.specials.values() if robbery or card.kind != "robbery"
                    for _ in range(card.copies)]
        return algorithms, specials

    @functools.cached_property
    def catalogue(self) -> dict:
        """Every card by id with its properties as JSON (what bots see; the deck is public)."""
        return {card_id: card.as_json() for card_id, card in {**self.algorithms, **self.specials}.items()}

    @functools.cached_property
    def complexity_order(self) -> list[str]:
        """Every complexity class the deck names, fastest first (what bots compare times with)."""
        classes = {card.value(prop) for card in self.algorithms.values() for prop in CLASSES}
        classes |= {card.requires.bound for card in self.specials.values() if card.requires and card.requires.bound}
        return [str(cx) for cx in sorted(classes)]

    def markdown_table(self) -> str:
        header = ["card", "stable", "in-place", "comparison", "best", "average", "worst", "extra space", "swaps", "copies"]
        rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for card in self.algorithms.values():
            cells = [f"`{card.id}` {card.name}"]
            cells += ["yes" if card.value(prop) else "no" for prop in FLAGS]
            cells += [card.value(prop).tight() for prop in CLASSES]
            rows.append("| " + " | ".join(cells + [str(card.copies)]) + " |")
        rows += ["", "| card | variant | sources (property: source) |", "|---|---|---|"]
        for card in self.algorithms.values():
            refs = "; ".join(f"{prop}: {ref}" for prop, ref in card.sources.items())
            rows.append(f"| `{card.id}` | {card.variant} | {refs} |")
        rows += ["", "| special card | kind | effect | copies |", "|---|---|---|---|"]
        for card in self.specials.values():
            rows.append(f"| `{card.id}` {card.name} | {card.kind} | {_special_effect(card)} | {card.copies} |")
        rows += ["", "| source | reference |", "|---|---|"]
        rows += [f"| `{key}` | {text} |" for key, text in self.sources.items()]
        return "\n".join(rows)


def _special_effect(card: SpecialCard) -> str:
    if card.kind == "case":
        return f"makes the {card.case} case the one judged"
    if card.kind == "criterion":
        return f"requires {card.requires.demand(None)}"
    what = f"takes a{'n' if card.takes == 'algorithm' else ''} {card.takes} card from the table"
    return what + (f" with {card.requires.demand(None)}" if card.requires else "")


def load_deck(source: str | Path | dict | None = None) -> Deck:
    """The standard deck (None), a deck file, or a deck as a dict; DeckError lists every problem."""
    if source is None:
        return _standard_deck()
    if isinstance(source, (str, Path)):
        try:
            data = loads_json(Path(source).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # UnicodeDecodeError, JSONDecodeError and JSONTooDeep are ValueErrors
            raise DeckError([f"{source}: not a readable JSON file ({exc})"]) from exc
        return _validated(canonical(data))
    try:
        text = canonical(check_json_depth(source))
    except (TypeError, ValueError) as exc:
        raise DeckError([f"a deck must be JSON data ({exc})"]) from exc
    return _validated(text)


@functools.lru_cache(maxsize=1)
def _standard_deck() -> Deck:
    return load_deck(STANDARD_DECK)


@functools.lru_cache(maxsize=32)
def _validated(text: str) -> Deck:
    # Keyed by canonical JSON so that each distinct deck is checked once per process.
    return _DeckReader(json.loads(text)).deck()


class _DeckReader:
    """Reads a deck's JSON, collecting every problem instead of stopping at the first."""

    def __init__(self, data):
        self.data = data
        self.problems: list[str] = []

    def deck(self) -> Deck:
        data = self.data
        if not isinstance(data, dict):
            raise DeckError(["a deck is a JSON object with 'sources', 'algorithms' and 'specials'"])
        unknown = set(data) - {"name", "description", "sources", "algorithms", "specials"}
        if unknown:
            self.problems.append(f"unknown deck field(s) {sorted(unknown)}")
        sources = data.get("sources")
        if not isinstance(sources, dict) or not sources:
            self.problems.append("'sources' must map source keys to references")
            sources = {}
        self._texts(sources, "'sources'", MAX_SOURCES)
        self._text(data.get("name", "custom"), "the deck's 'name'", MAX_TEXT)
        self._text(data.get("description", ""), "the deck's 'description'", MAX_LONG_TEXT)
        self.sources = sources
        self.seen: dict[str, str] = {}
        algorithms = self._cards(data.get("algorithms"), "algorithms", self._algorithm)
        specials = self._cards(data.get("specials"), "specials", self._special)
        if self.problems:
            raise DeckError(self.problems)
        return Deck(str(data.get("name", "custom")), str(data.get("description", "")), dict(sources),
                    {card.id: card for card in algorithms}, {card.id: card for card in specials})

    def _cards(self, entries, section: str, read) -> list:
        if not isinstance(entries, list) or not entries:
            self.problems.append(f"'{section}' must be a non-empty list of cards")
            return []
        if len(entries) > MAX_CARDS_PER_SECTION:
            self.problems.append(f"'{section}' lists {len(entries)} cards; at most {MAX_CARDS_PER_SECTION} are allowed")
            return []
        cards = []
        for index, entry in enumerate(entries):
            where = f"{section}[{index}]"
            if not isinstance(entry, dict):
                self.problems.append(f"{where}: a card is a JSON object")
                continue
            where += f" ({entry.get('id', '?')})"
            before = len(self.problems)
            self._identity(entry, where)
            card = read(entry, where)
            if len(self.problems) == before:
                cards.append(card)
        return cards

    def _identity(self, entry: dict, where: str) -> None:
        for field in ("id", "name"):
            value = entry.get(field)
            if not isinstance(value, str) or not value.strip():
                self.problems.append(f"{where}: '{field}' must be a non-empty string")
                continue
            if not self._text(value, f"{where}: '{field}'", MAX_TEXT):
                continue
            key = f"{field}:{value.strip().lower()}"
            if key in self.seen:
                self.problems.append(f"{where}: duplicate card {field} {short_repr(value)} (also {self.seen[key]})")
            self.seen.setdefault(key, where)
        copies = entry.get("copies", 1)
        if not isinstance(copies, int) or isinstance(copies, bool) or not 1 <= copies <= MAX_COPIES:
            self.problems.append(f"{where}: 'copies' must be an integer from 1 to {MAX_COPIES}, not {short_repr(copies)}")

    def _algorithm(self, entry: dict, where: str) -> AlgorithmCard | None:
        for key in sorted(set(entry) - ALGORITHM_KEYS):
            self.problems.append(f"{where}: unknown property {short_repr(key)}; known: {', '.join(PROPERTIES)}")
        values = {}
        for prop in FLAGS:
            value = entry.get(prop)
            if not isinstance(value, bool):
                self.problems.append(f"{where}: '{prop}' must be true or false, not {short_repr(value)}")
            values[prop] = value
        for prop in CLASSES:
            values[prop] = self._complexity(entry.get(prop), f"{where}: '{prop}'")
        sources = entry.get("sources")
        if not isinstance(sources, dict):
            self.problems.append(f"{where}: 'sources' must give a source for every property")
            sources = {}
        self._text(entry.get("variant", ""), f"{where}: 'variant'", MAX_TEXT)
        for prop in PROPERTIES:
            self._source(sources.get(prop), f"{where}: source of '{prop}'")
        for key in sorted(set(sources) - set(PROPERTIES)):
            self.problems.append(f"{where}: source given for unknown property {short_repr(key)}")
        if isinstance(values["in_place"], bool) and isinstance(values["space"], Complexity):
            if values["in_place"] != (values["space"] <= IN_PLACE_LIMIT):
                self.problems.append(
                    f"{where}: in_place is {str(values['in_place']).lower()} but extra space is {values['space'].tight()}; "
                    f"the ruling admits in-place exactly up to O({IN_PLACE_LIMIT})")
        return AlgorithmCard(entry.get("id"), entry.get("name"), entry.get("copies", 1), variant=str(entry.get("variant", "")),
                             sources=dict(sources), **values)

    def _special(self, entry: dict, where: str) -> SpecialCard | None:
        kind = entry.get("kind")
        if kind not in SPECIAL_KINDS:
            self.problems.append(f"{where}: 'kind' must be one of {', '.join(SPECIAL_KINDS)}, not {short_repr(kind)}")
            return None
        for key in sorted(set(entry) - COMMON_SPECIAL_KEYS - SPECIAL_KEYS[kind]):
            self.problems.append(f"{where}: unknown property {short_repr(key)} for a {kind} card")
        card = {"id": entry.get("id"), "name": entry.get("name"), "kind": kind, "copies": entry.get("copies", 1)}
        if kind == "case":
            if entry.get("case") not in CASES:
                self.problems.append(f"{where}: 'case' must be one of {', '.join(CASES)}, not {short_repr(entry.get('case'))}")
            card["case"] = entry.get("case")
        elif kind == "robbery":
            takes = entry.get("takes")
            if takes not in ROBBERY_TAKES:
                self.problems.append(f"{where}: 'takes' must be one of {', '.join(ROBBERY_TAKES)}, not {short_repr(takes)}")
            card["takes"] = takes
            if takes == "algorithm" and "requires" in entry:
                card["requires"] = self._requirement(entry["requires"], where)
            elif "requires" in entry:
                self.problems.append(f"{where}: only robbery cards taking an algorithm have 'requires'")
        else:
            card["requires"] = self._requirement(entry.get("requires"), where)
        return SpecialCard(**card)

    def _requirement(self, data, where: str) -> Requirement | None:
        if not isinstance(data, dict):
            self.problems.append(f"{where}: 'requires' must be an object with 'property' and 'is' or 'bound'")
            return None
        prop = data.get("property")
        if prop not in REQUIREMENT_PROPERTIES:
            self.problems.append(f"{where}: unknown property {short_repr(prop)}; known: {', '.join(REQUIREMENT_PROPERTIES)}")
            return None
        extra = set(data) - {"property", "is", "bound"}
        if extra:
            self.problems.append(f"{where}: unknown field(s) {sorted(extra)} in 'requires'")
        if prop in FLAGS:
            if not isinstance(data.get("is"), bool) or "bound" in data:
                self.problems.append(f"{where}: '{prop}' is a yes/no property: give 'is': true or false")
                return None
            return Requirement(prop, expected=data["is"])
        if "is" in data:
            self.problems.append(f"{where}: '{prop}' is a complexity: give 'bound', e.g. \"O(N log N)\"")
            return None
        try:
            relation, bound = parse_bound(data.get("bound"))
        except ComplexityError as exc:
            self.problems.append(f"{where}: {exc}")
            return None
        return Requirement(prop, relation=relation, bound=bound)

    def _complexity(self, text, where: str) -> Complexity | None:
        try:
            return parse(text)
        except ComplexityError as exc:
            self.problems.append(f"{where}: {exc}")
            return None

    def _text(self, value, where: str, limit: int) -> bool:
        """True if `value` is text of at most `limit` characters; else the problem is noted."""
        if isinstance(value, str) and len(value) <= limit:
            return True
        self.problems.append(f"{where} must be text of at most {limit} characters")
        return False

    def _texts(self, mapping: dict, where: str, limit: int) -> None:
        if len(mapping) > limit:
            self.problems.append(f"{where} has {len(mapping)} entries; at most {limit} are allowed")
        for key, value in list(mapping.items())[:limit]:
            self._text(value, f"{where}[{short_repr(key)}]", MAX_LONG_TEXT)

    def _source(self, reference, where: str) -> None:
        # A reference is a source key, optionally followed by ":" and a location (section, page).
        if not isinstance(reference, str) or reference.split(":", 1)[0] not in self.sources:
            self.problems.append(f"{where} must name one of the deck's sources ({', '.join(self.sources)}), "
                                 f"not {short_repr(reference)}")


