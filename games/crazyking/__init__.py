"""Crazy-KING: a 2-5 player card game of matching suits and ranks, KINGs wild, over many rounds (seed 003)."""

from __future__ import annotations

from ..core import Game, check_int_option
from . import bots, cards
from .cards import EFFECT_NAMES, QUEEN, show
from .state import PASS, CrazyKingState

# Bounds on the options, so a configured match still ends in reasonable time: at the extremes five random
# bots make about 4,400 decisions (a replay the viewer still shows); the old 100,000 / 1,000 / 100 made 58,000.
OPTION_RANGES = {"target_score": (1, 2_000), "max_rounds": (1, 100), "max_run_outs": (1, 10)}


class CrazyKing(Game):
    name = "crazyking"
    title = "Crazy-KING"
    min_players = 2
    max_players = 5
    default_players = 4

    def default_config(self):
        return {"target_score": 500, "max_rounds": 100, "max_run_outs": 5}

    def check_config(self, config):
        for option, (low, high) in OPTION_RANGES.items():
            check_int_option(option, config[option], low, high)

    def _initial_state(self, num_players, config, seed):
        return CrazyKingState(self, num_players, config, seed)

    def builtin_bots(self):
        return dict(bots.BUILTIN)

    def describe_action(self, state, action):
        if action == PASS:
            penalty = " and draws two" if state.pending == QUEEN else ""
            return f"PASS: skipped by the {EFFECT_NAMES[state.pending]}{penalty}"
        card = action["play"]
        text = f"PLAY {show(card)}"
        if "suit" in action:
            text += f" and names {cards.SUIT_SYMBOLS[action['suit']]} ({cards.SUIT_NAMES[action['suit']]})"
        if state.pending:
            text += f" against the {EFFECT_NAMES[state.pending]}"
        if len(state.hands[state.turn]) == 1:
            text += ": out of cards, wins the round"
        return text

    def render(self, state, seat=None):
        """The seed's status display: piles, top card, every seat's score, card count, sum and cards."""
        view = state.full_view() if seat is None else state.observation(seat)
        arrow = "→" if view["direction"] == 1 else "←"
        lines = [
            f"Round {view['round']}   target {view['target_score']}   direction {arrow} (seat numbers "
            f"{'up' if view['direction'] == 1 else 'down'})",
            f"DRW-pile ==> [{_count(view['draw_pile'])}] [{view['run_outs']} run-outs of {view['max_run_outs']}]",
            f"DSC-pile ==> [{_count(view['discard_pile'])}] {show(view['top_card'])}"
            f"   suit to follow {cards.SUIT_SYMBOLS[view['suit']]}",
        ]
        for player in range(state.num_players):
            lines.extend(_seat_lines(view, player, seat))
        lines.extend(_recent_lines(view))
        lines.append(_turn_line(view))
        return "\n".join(lines)


def _seat_lines(view: dict, player: int, viewer: int | None) -> list[str]:
    size = view["hand_sizes"][player]
    if viewer is None or viewer == player:
        hand = view["hands"][player] if viewer is None else view["hand"]
        total, shown = str(cards.hand_points(hand)), " ".join(show(card) for card in hand) or "(no cards)"
    else:
        total, shown = "?", " ".join(["[??]"] * size)
    label = f"Seat {player}" + (" (you)" if player == viewer else "") + ("" if view["active"][player] else " (out)")
    return [
        f"{label:<14} [Score={view['scores'][player]}] [{_count(size)}] [Cards Sum = {total}]",
        f"    {shown}",
    ]


def _count(cards_held: int) -> str:
    return f"{cards_held} Card" + ("" if cards_held == 1 else "s")


def _recent_lines(view: dict) -> list[str]:
    """What happened since the last card was played (forced draws, skips, passes), and a round just ended."""
    history = view["history"]
    last_play = max((index for index, event in enumerate(history) if event["event"] == "play"), default=-1)
    lines = [_describe_event(event) for event in history[last_play + 1 :]]
    if view["rounds"]:
        result = view["rounds"][-1]
        ended = f"round {result['round']} won by seat {result['winner']} ({result['reason']}): +{result['points']}"
        if view["turn"] is None:  # the match is over: the round ended after this history
            lines.append(ended)
        elif last_play < 0:  # a new round was just dealt: the last one ended before this history
            lines.insert(0, ended)
    return lines


def _describe_event(event: dict) -> str:
    seat = f"seat {event.get('seat')}"
    kind = event["event"]
    if kind == "start":
        return f"new round: first discard {show(event['card'])}, {seat} starts"
    if kind == "draw":
        return f"{seat} DRAWs a card from DRW-pile"
    if kind == "pass":
        return f"{seat} PASSes (loses its turn)"
    if kind == "skip":
        penalty = " and draws two" if event["card"] == QUEEN else ""
        return f"{seat} is skipped by the {EFFECT_NAMES[event['card']]}{penalty}"
    if kind == "run_out":
        return f"DRW-pile ran out ({event['count']}), {event['reshuffled']} cards shuffled back"
    if kind == "dropped":
        return f"{seat} is out of the game (its bot failed); its cards went into the DRW-pile"
    return f"{seat} plays {show(event['card'])}"


def _turn_line(view: dict) -> str:
    turn = view["turn"]
    if turn is None:
        return "GAME OVER"
    if view["pending"]:
        return f"TURN of: seat {turn} ... hit by the {EFFECT_NAMES[view['pending']]}: answers with a KING or PASSes"
    if view["drawn_card"]:
        return f"TURN of: seat {turn} ... PLAYs the card it drew"
    return f"TURN of: seat {turn} ... PLAYs a matching card"


GAME = CrazyKing()
