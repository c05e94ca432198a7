"""The rubric as a form: each part kind declares typed, bounded, labelled options; the editor shows them as
fields (no JSON), a wrong value is refused at its field, and students read the rubric in words."""

import pytest

from arena.grading import parts, services
from grading_helpers import course_with_people, open_assignment

pytestmark = pytest.mark.django_db


@pytest.fixture
def assignment(make_user):
    course, people = course_with_people(make_user)
    return open_assignment(people["instructor"], course), people


def test_every_option_of_every_kind_is_typed_bounded_and_labelled():
    for part_type in parts.KINDS.values():
        for option in part_type.options:
            assert option.label and option.cast in (int, float) and option.low <= option.default <= option.high


def test_the_editor_is_a_form_of_each_kinds_fields_and_students_read_the_rubric_in_words(client, assignment):
    assignment, people = assignment
    client.force_login(people["instructor"])
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert 'name="params"' not in page and "JSON" not in page
    assert 'id="add-win_rate"' in page and 'name="win_rate-games"' in page and 'name="win_rate-full_at"' in page
    assert "Full marks from this share of games won" in page
    assert 'id="add-team_score"' not in page  # Sorted! only: not offered for End Game
    answer = client.post(f"/assignments/{assignment.pk}/rubric/",
                         {"kind": "win_rate", "win_rate-weight": "10", "win_rate-opponent": "greedy",
                          "win_rate-games": "20", "win_rate-full_at": "0.8"})
    assert answer.status_code == 302 and assignment.rubric.get().params == {"opponent": "greedy", "games": 20,
                                                                            "full_at": 0.8}
    client.force_login(people["ann"])
    student = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert "Win at least 80% of 20 games against greedy for full marks" in student
    assert "{&quot;" not in student and '{"' not in student.split('id="rubric"')[1].split("</table>")[0]


def test_a_wrong_value_is_refused_at_its_field(client, make_user):
    course, people = course_with_people(make_user)
    client.force_login(people["instructor"])
    endgame = open_assignment(people["instructor"], course)
    answer = client.post(f"/assignments/{endgame.pk}/rubric/", {"kind": "win_rate", "win_rate-weight": "10",
                                                                 "win_rate-opponent": "greedy", "win_rate-games": "1",
                                                                 "win_rate-full_at": "0.8"})
    assert answer.status_code == 400 and not endgame.rubric.exists()
    form = answer.content.decode().split('id="add-win_rate" open')[1].split("</form>")[0]
    games_field = form.split('name="win_rate-games"')[1].split("</div>")[0]
    assert "greater than or equal to 2" in games_field
    # A check only the kind can make (zero_at above full_at) lands on its field too.
    sorted_game = open_assignment(people["instructor"], course, game="sorted", title="Sorted")
    answer = client.post(f"/assignments/{sorted_game.pk}/rubric/", {"kind": "team_score", "team_score-weight": "10",
                                                                     "team_score-games": "4", "team_score-full_at": "5",
                                                                     "team_score-zero_at": "2"})
    assert answer.status_code == 400
    zero_at = answer.content.decode().split('name="team_score-zero_at"')[1].split("</div>")[0]
    assert "zero_at must be worse (higher) than full_at" in zero_at
    with pytest.raises(services.PartRefused) as refused:
        services.add_part(people["instructor"], sorted_game, "team_score", 10, {"full_at": 5, "zero_at": 2})
    assert refused.value.field == "zero_at"
