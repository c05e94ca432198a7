"""Series that read right: each card shows the game score, marks the winner, and names the tie-break used
when the entrants were level; rounds are named as people say them."""

import html
import re

import pytest

from platform_helpers import EXAMPLE_BOT
from tournament_helpers import LOOKAHEAD_BOT, course_with_bots, entered, play_out
from arena.tournaments import services

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def trusted_bots(in_process_sandbox):
    """The tests' own bots run as plain processes here."""


def card(page: str, key: str) -> str:
    return page.split(f'id="series-{key}"')[1].split('<p class="games">')[0]


def test_a_level_series_card_shows_the_score_the_winner_and_the_tie_break(client, make_user):
    same = (EXAMPLE_BOT.decode(),)  # one strategy on both sides, seats swapped on one board: always level
    course, instructor, bots = course_with_bots(make_user, "endgame", 2, codes=same)
    cup = entered(instructor, course, bots, game="endgame", format="single-elimination", games_per_series=2)
    services.start(instructor, cup)
    play_out(cup)
    client.force_login(instructor)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    final = card(page, "W1-1")
    scores = re.findall(r'class="game-score">([\d.]+)<', final)
    assert len(scores) == 2 and scores[0] == scores[1], "level on games: the same game score for both"
    assert final.count("✓") == 1 and "✓</span> student00/bot0" in final  # the higher seed, marked
    assert "level on games: decided on higher seed after more games" in final
    assert "<summary>Final</summary>" in page
    rounds = client.get(f"/api/tournaments/{cup.pk}/rounds/").json()
    series = rounds[0]["series"][0]
    assert series["tiebreak"] == "higher seed after more games" and rounds[0]["name"] == "Final"
    assert series["game_points"]["0"] == series["game_points"]["1"]


def test_double_elimination_names_its_rounds_and_its_cards_show_scores(client, make_user):
    course, instructor, bots = course_with_bots(make_user, "endgame", 4, codes=(EXAMPLE_BOT.decode(), LOOKAHEAD_BOT))
    cup = entered(instructor, course, bots, game="endgame", format="double-elimination", games_per_series=2)
    services.start(instructor, cup)
    play_out(cup)
    client.force_login(instructor)
    page = client.get(f"/tournaments/{cup.pk}/").content.decode()
    names = [html.unescape(name) for name in re.findall(r"<summary>([^<]+)</summary>", page)]
    assert names[:2] == ["Winners' round 1", "Winners' round 2"] and "Losers' round 1" in names
    assert "Grand final" in names and "Round 1" not in names
    for key in ("W1-1", "W1-2", "GF1"):
        shown = card(page, key)
        assert len(re.findall(r'class="game-score">[\d.]+<', shown)) == 2 and shown.count("✓") == 1
    # The bracket drawing carries the scores too, the winner's marked.
    assert re.search(r'class="score won">✓ [\d.]+</text>', page)


def test_tie_breaks_and_who_goes_on_are_spelled_out(client, make_user):
    course, instructor, bots = course_with_bots(make_user, "crazyking", 6, codes=("def act(o):\n    return 0\n",))
    league = entered(instructor, course, bots[:3], game="crazyking", format="round-robin", name="League")
    services.start(instructor, league)
    client.force_login(instructor)
    standings = client.get(f"/tournaments/{league.pk}/").content.decode().split('id="standings"')[1]
    assert "<th title=\"tie-break\">Sonneborn-Berger</th>" in standings and "Sonnebornberger" not in standings
    winner_only = entered(instructor, course, bots, game="crazyking", format="heats", players_per_game=3, advance=1,
                          name="Pods of three")
    assert "pods of 3, the winner goes on" in client.get(f"/tournaments/{winner_only.pk}/").content.decode()
    halves = entered(instructor, course, bots, game="crazyking", format="heats", players_per_game=4, name="Pods of four")
    assert "pods of 4, top 2 go on" in client.get(f"/tournaments/{halves.pk}/").content.decode()  # the default: half
