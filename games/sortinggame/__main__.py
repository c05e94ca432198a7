"""`python -m games.sortinggame [FILE] [--table]`: check a deck file (Extension 2) before a game uses it."""

from __future__ import annotations

import argparse
import sys

from .deck import DeckError, load_deck


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m games.sortinggame", description="Check a SortingGame deck.")
    parser.add_argument("file", nargs="?", help="a deck JSON file (default: the standard deck)")
    parser.add_argument("--table", action="store_true", help="print the deck as Markdown tables")
    args = parser.parse_args(argv)
    try:
        deck = load_deck(args.file)
    except DeckError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.table:
        print(deck.markdown_table())
    else:
        algorithms, specials = deck.stacks(robbery=True)
        print(f"deck {deck.name!r} is valid: {len(deck.algorithms)} algorithms ({len(algorithms)} cards), "
              f"{len(deck.specials)} special cards ({len(specials)} cards with robbery)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
