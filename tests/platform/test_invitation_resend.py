"""An instructor sends a pending invitation again: a new link is mailed, the old link opens nothing."""

import pytest

from arena.accounts import people as people_services
from arena.accounts.models import Invitation
from grading_helpers import course_with_people

pytestmark = pytest.mark.django_db


def test_a_resent_invitation_has_a_new_link_and_the_old_one_is_dead(client, make_user, mailoutbox,
                                                                   django_capture_on_commit_callbacks):
    course, people = course_with_people(make_user)
    people_services.import_roster(people["instructor"], course, "student_id,email,name\ns9,zoe@example.org,Zoe\n")
    invitation = Invitation.objects.get(course=course)
    old = invitation.token
    client.force_login(people["instructor"])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/courses/{course.pk}/people/invitations/{invitation.pk}/resend/")
    assert response.status_code == 302
    invitation.refresh_from_db()
    assert invitation.token != old and invitation.token in mailoutbox[-1].body
    with pytest.raises(people_services.PeopleError):
        people_services.pending_invitation(old)
    assert people_services.pending_invitation(invitation.token) == invitation
    zoe = make_user("zoe")
    assert people_services.accept_invitation(zoe, invitation.token) == course
    with pytest.raises(people_services.PeopleError, match="no pending invitation"):
        people_services.resend_invitation(people["instructor"], course, invitation.pk)  # accepted: nothing to resend
    client.force_login(people["ann"])
    assert client.post(f"/courses/{course.pk}/people/invitations/{invitation.pk}/resend/").status_code in (403, 404)
