"""The one hook through which other apps learn that a match ended.

`match_finished` is sent with `match=` (a Match whose status is `finished`, or `set_aside`: the platform
failed to run it ARENA_MATCH_MAX_ATTEMPTS times, see services) inside the very transaction that records
it, after the compare-and-set that makes the recording happen exactly once. A set-aside match may be
queued again by the staff, and then ends (and is announced) once more. A receiver's database writes therefore commit with the result or not at all: ratings, validation
verdicts and tournament progress are never applied twice nor lost when a worker dies between the two.
A receiver that does anything outside the database (dispatching a Celery task, sending mail) must wrap
it in `transaction.on_commit`. The match comes with its seats loaded, in seat order, each with its bot,
owner and version: read them through `match.seats.all()`, which asks the database nothing (a worker
records thousands of matches an hour, each holding its rating rows locked). Receivers are connected
in their app's `AppConfig.ready`; the matches app imports none of them, so apps depend on matches and
never the other way round.

The bots app's `version_uploaded` (bots.signals) is answered here by queueing the validation match, so
that bots never import matches either.
"""

from django.dispatch import Signal

match_finished = Signal()

# Sent by services.change_status, the one way a match's status changes for others to hear, with `match=`
# (as for match_finished), `previous=` (its status before) and `status=` (its status now): every ending,
# and also a cancel (by the staff, a tournament's pause or cancel) and a queueing again (a platform fault
# retried, a worker lost, the staff's re-queue). match_finished is sent after it for an ending. A receiver
# reads what it needs from these arguments and the database, never from what another receiver wrote: the
# order receivers run in is not part of the contract.
match_status_changed = Signal()

# Sent by services.challenge with user=, bots= (the table), rated= (always False: challenges are unrated
# practice) and variant= before the match is queued; a receiver refuses the challenge by raising
# services.ChallengeError with the reason. Nothing is written before every receiver agreed.
challenge_requested = Signal()
