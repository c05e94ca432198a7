"""Each game's bot guide on the site, rendered from docs/bots/GAME.md, with its example bot and the
assignment's starter code as downloads."""

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from games import available_games

from arena.bots.models import Bot
from grading_helpers import course_with_people, open_assignment
from arena.variants import game_docs

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", sorted(available_games()))
def test_every_game_has_a_public_guide_naming_its_rule_book_with_a_downloadable_example(client, game):
    page = client.get(f"/games/{game}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<h2 id="rule-book">Rule book</h2>' in html and "seed 00" not in html
    assert "legal_actions" in html, "the observation is explained"
    assert "<table>" in html and '<div class="table-scroll"><table>' in html, "tables rendered, in a scroll box"

    download = client.get(f"/games/{game}/example.py")
    assert download["Content-Disposition"] == f'attachment; filename="{game}_example.py"'
    source = download.content.decode()
    assert source == (ROOT / "docs" / "bots" / "examples" / f"{game}_example.py").read_text()
    compile(source, f"{game}_example.py", "exec")


def test_the_guides_cite_rule_books_by_name_never_by_seed_number():
    for path in (ROOT / "docs" / "bots").glob("*.md"):
        text = path.read_text()
        assert "seed 00" not in text and "## Rule book" in text, path.name


def test_a_guide_is_sanitised_whatever_its_markdown_holds():
    html = game_docs.render_markdown("# Hi\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) "
                                     "<img src=x onerror=alert(1)> <a href=\"javascript:alert(2)\">y</a>\n\n| a |\n|---|\n| b |\n")
    assert "<script" not in html and "href=\"javascript" not in html and "onerror" not in html and "<img" not in html
    assert '<h1 id="hi">Hi</h1>' in html and "<td>b</td>" in html


def test_an_unknown_game_has_no_guide(client):
    assert client.get("/games/chess/").status_code == 404
    assert client.get("/games/chess/example.py").status_code == 404


def test_the_starter_downloads_byte_for_byte_as_the_instructor_saved_it(client, api_client, make_user):
    course, people = course_with_people(make_user)
    typed = "def act(observation):\n    return 'left'   \n\n\n"  # its last newlines and spaces are part of it
    form = {"title": "Lab", "game": "endgame", "opens_at": "2030-01-01T09:00", "deadline": "2030-01-15T23:59",
            "team_size": 1, "late_penalty_per_day": 0, "late_cutoff_days": 0}
    client.force_login(people["instructor"])
    # From the course's page: a browser sends a textarea's lines ended by CRLF.
    client.post(f"/courses/{course.pk}/assignments/", {**form, "starter_code": typed.replace("\n", "\r\n")})
    assignment = course.assignments.get()
    assert client.get(f"/assignments/{assignment.pk}/starter.py").content == typed.encode()
    client.post(f"/assignments/{assignment.pk}/edit/", {**form, "starter_code": "x = 1\r\n"})
    assert client.get(f"/assignments/{assignment.pk}/starter.py").content == b"x = 1\n"
    client.post(f"/assignments/{assignment.pk}/edit/", {**form, "starter_code": " \r\n"})  # blanked: none
    assert client.get(f"/assignments/{assignment.pk}/starter.py").status_code == 404

    # Through the API, whatever its line ends, exactly as sent.
    api_client.force_authenticate(people["instructor"])
    sent = "\r\n# windows\r\ndef act(observation):\r\n    return 'right'\r\n"
    answer = api_client.patch(f"/api/assignments/{assignment.pk}/", {"starter_code": sent}, format="json")
    assert answer.status_code == 200 and answer.json()["starter_code"] == sent
    assert client.get(f"/assignments/{assignment.pk}/starter.py").content == sent.encode()


def test_the_new_bot_form_and_the_upload_form_link_the_guide_and_the_starter(client, make_user):
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, starter_code="def act(observation):\n    return 'left'\n")
    client.force_login(people["ann"])
    home = client.get("/").content.decode()
    assert 'href="/games/endgame/"' in home

    client.post("/bots/new/", {"name": "first", "game": "endgame"})
    bot = Bot.objects.get(owner=people["ann"])
    page = client.get(f"/bots/{bot.pk}/").content.decode()
    assert 'href="/games/endgame/"' in page and 'href="/games/endgame/example.py"' in page
    assert f'href="/assignments/{assignment.pk}/starter.py"' in page
    assert f'href="/assignments/{assignment.pk}/starter.py"' in client.get("/games/endgame/").content.decode()

    starter = client.get(f"/assignments/{assignment.pk}/starter.py")
    assert starter.content.decode() == assignment.starter_code
    # The example downloaded from the site uploads as it is.
    example = client.get("/games/endgame/example.py").content
    client.post(f"/bots/{bot.pk}/upload/", {"file": SimpleUploadedFile("endgame_example.py", example)})
    assert bot.versions.count() == 1

    client.force_login(make_user("outsider"))
    assert client.get(f"/assignments/{assignment.pk}/starter.py").status_code == 404
    client.logout()
    assert client.get(f"/assignments/{assignment.pk}/starter.py").status_code == 302


def test_the_downloaded_example_bot_plays_offline(client, tmp_path):
    bot = tmp_path / "endgame_example.py"
    bot.write_bytes(client.get("/games/endgame/example.py").content)
    result = subprocess.run([sys.executable, "-m", "games", "match", "endgame", str(bot), "builtin:greedy",
                             "--seed", "3", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert '"status": "ok"' in result.stdout
