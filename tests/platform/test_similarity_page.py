"""The similarity page of an assignment: its course's staff see the most similar pairs of graded submissions
and read a pair side by side; to students and outsiders the page does not exist."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.urls import reverse

from arena.bots.models import BotVersion

from grading_helpers import course_with_people, open_assignment, submitted_bots

pytestmark = pytest.mark.django_db

CASES = Path(__file__).parent / "similarity_cases"


def case(name: str) -> str:
    return (CASES / f"{name}.py").read_text(encoding="utf-8")


@pytest.fixture
def assignment(make_user):
    """ann wrote the minimax bot, ben handed in a renamed copy of it, cat wrote her own DP bot on the starter."""
    course, people = course_with_people(make_user)
    assignment = open_assignment(people["instructor"], course, starter_code=case("starter"))
    bots = submitted_bots(assignment, people, {"ann": case("minimax_erin"), "ben": case("minimax_erin_renamed"),
                                               "cat": case("starter_frank")})
    submissions = {name: bot.submissions.get() for name, bot in bots.items()}
    return assignment, people, submissions


def rows(html: str) -> list[list[str]]:
    """The pairs table: each row's cells as text."""
    body = html.split('<table id="pairs">', 1)[1].split("</table>", 1)[0]
    return [[re.sub(r"<[^>]+>|\s+", " ", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S)]


def test_the_course_staff_see_the_report_and_students_and_outsiders_get_404(client, make_user, assignment):
    assignment, people, submissions = assignment
    outsider_course, outsiders = course_with_people(make_user, code="other")
    pages = [reverse("grading:similarity", args=[assignment.pk]),
             reverse("grading:similarity_pair", args=[assignment.pk, submissions["ann"].pk, submissions["ben"].pk])]
    for who, status in (("instructor", 200), ("assistant", 200), ("ann", 404), ("ben", 404)):
        client.force_login(people[who])
        assert [client.get(url).status_code for url in pages] == [status, status], who
    for who in ("instructor", "ann"):
        client.force_login(outsiders[who])
        assert [client.get(url).status_code for url in pages] == [404, 404], f"another course's {who}"
    # The assignment page links the report for staff only.
    client.force_login(people["assistant"])
    assert pages[0] in client.get(reverse("grading:assignment", args=[assignment.pk])).content.decode()
    client.force_login(people["ann"])
    assert pages[0] not in client.get(reverse("grading:assignment", args=[assignment.pk])).content.decode()


def test_a_renamed_copy_ranks_first_and_the_starter_code_does_not_count(client, assignment):
    assignment, people, _ = assignment
    client.force_login(people["assistant"])
    html = client.get(reverse("grading:similarity", args=[assignment.pk])).content.decode()
    table = rows(html)
    assert len(table) == 3  # every pair of three graded submissions
    first = table[0]
    assert {first[1].split()[0], first[2].split()[0]} == {"algo-ann", "algo-ben"}
    assert float(first[0]) > 0.9
    # cat's bot shares the starter with nobody else's: what she was given is not counted against her.
    assert all(float(row[0]) < 0.3 for row in table[1:]), table
    assert "accuses no one" in html
    assert 'id="similarity-histogram"' in html
    assert "from the starter code and the game" in html


def test_the_api_gives_the_same_report_with_the_same_access(client, api_client, make_user, assignment):
    assignment, people, submissions = assignment
    url = f"/api/assignments/{assignment.pk}/similarity/"
    outsiders = course_with_people(make_user, code="other")[1]
    for who, status in ((people["assistant"], 200), (people["instructor"], 200), (people["ann"], 404),
                        (outsiders["instructor"], 404)):
        api_client.force_authenticate(who)
        assert api_client.get(url).status_code == status, who.username
    api_client.force_authenticate(people["assistant"])
    report = api_client.get(url).json()
    assert report["compared"] == 3 and report["pair_count"] == len(report["pairs"]) == 3
    first = report["pairs"][0]
    assert {first["a"]["submission"], first["b"]["submission"]} == {submissions["ann"].pk, submissions["ben"].pk}
    assert first["similarity"] > 0.9 and first["regions"] and first["a"]["version"] == 1
    assert "starter code" in report["ignored"]
    # The page lists the same pairs in the same order.
    client.force_login(people["assistant"])
    page = rows(client.get(reverse("grading:similarity", args=[assignment.pk])).content.decode())
    assert [float(row[0]) for row in page] == [round(pair["similarity"], 2) for pair in report["pairs"]]


def test_a_version_uploaded_after_the_deadline_is_not_compared(client, assignment):
    """cat uploads ann's bot after the deadline (no late period): the graded version is still her own."""
    assignment, people, submissions = assignment
    copy = case("minimax_erin")
    BotVersion.objects.create(bot=submissions["cat"].bot, number=2, filename="bot.py", code=copy, size=len(copy),
                              sha256="late", status=BotVersion.Status.ACCEPTED)
    client.force_login(people["instructor"])
    table = rows(client.get(reverse("grading:similarity", args=[assignment.pk])).content.decode())
    assert [row for row in table if "algo-cat v1" in row and float(row[0]) > 0.3] == []
    assert not any("v2" in cell for row in table for cell in row)


def test_the_report_is_worked_out_once_until_a_graded_version_changes(client, assignment, monkeypatch):
    from arena.grading import code_similarity

    assignment, people, submissions = assignment
    worked_out = []
    real = code_similarity.fingerprint_all
    monkeypatch.setattr(code_similarity, "fingerprint_all", lambda *args: worked_out.append(1) or real(*args))
    client.force_login(people["instructor"])
    url = reverse("grading:similarity", args=[assignment.pk])
    first = rows(client.get(url).content.decode())
    client.force_login(people["assistant"])
    assert rows(client.get(url).content.decode()) == first and len(worked_out) == 1

    # cat's graded version becomes ann's bot (uploaded in time): the next visit compares it at once.
    copy = case("minimax_erin")
    version = BotVersion.objects.create(bot=submissions["cat"].bot, number=2, filename="bot.py", code=copy,
                                        size=len(copy), sha256="in-time", status=BotVersion.Status.ACCEPTED)
    BotVersion.objects.filter(pk=version.pk).update(uploaded_at=assignment.deadline - timedelta(minutes=1))
    table = rows(client.get(url).content.decode())
    assert len(worked_out) == 2, table
    assert [row for row in table if "algo-cat v2" in " ".join(" ".join(row).split()) and float(row[0]) > 0.9], table


def test_the_pair_page_highlights_the_matching_lines_on_both_sides(client, assignment):
    assignment, people, submissions = assignment
    client.force_login(people["instructor"])
    url = reverse("grading:similarity_pair", args=[assignment.pk, submissions["ann"].pk, submissions["ben"].pk])
    html = client.get(url).content.decode()
    assert "accuses no one" in html
    lines = re.findall(r'<td class="line-number">(\d*)</td><td class="code( match match-\d+)?">', html)
    a_marked = [number for index, (number, match) in enumerate(lines) if index % 2 == 0 and match]
    b_marked = [number for index, (number, match) in enumerate(lines) if index % 2 == 1 and match]
    total_a = len(case("minimax_erin").splitlines())
    # Most of each side lies in a match; the opening docstring (not code) does not.
    assert len(a_marked) > total_a / 2 and len(b_marked) > total_a / 2
    assert "1" not in a_marked and "1" not in b_marked


def test_a_pair_from_another_assignment_is_not_found(client, make_user, assignment):
    assignment, people, submissions = assignment
    other = open_assignment(people["instructor"], assignment.course, title="Another")
    client.force_login(people["instructor"])
    url = reverse("grading:similarity_pair", args=[other.pk, submissions["ann"].pk, submissions["ben"].pk])
    assert client.get(url).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_pages_read_on_a_wide_screen_and_a_phone(live_server, assignment, browser_page, tmp_path):
    """The report and a pair in Debian's chromium: the coloured regions show, and a phone does not scroll
    sideways (long lines wrap). Screenshots are saved for a reviewer (the path is printed)."""
    assignment, people, submissions = assignment
    page = browser_page
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", people["instructor"].username)
    page.fill("input[name=password]", f"{people['instructor'].username}-pass-1234")
    page.click("main button[type=submit]")
    page.goto(f"{live_server.url}{reverse('grading:similarity', args=[assignment.pk])}")
    page.click("#pairs tbody tr:first-child a.pair")
    page.wait_for_selector("#sources td.match")
    assert page.locator("#sources td.match").count() > 20
    for name, url in (("report", reverse("grading:similarity", args=[assignment.pk])), ("pair", page.url)):
        page.goto(url if url.startswith("http") else f"{live_server.url}{url}")
        for label, size in (("wide", {"width": 1280, "height": 900}), ("phone", {"width": 390, "height": 844})):
            page.set_viewport_size(size)
            page.screenshot(path=str(tmp_path / f"similarity-{name}-{label}.png"), full_page=True)
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 1, f"the {name} page scrolls sideways by {overflow}px at {label} width"
    print(f"\nscreenshots: {tmp_path}")
