"""Signals of the tournaments app: how other apps learn that a tournament started, paused, resumed, finished
or was cancelled.

`tournament_status_changed` is sent by services.change_status, the one way a tournament's status changes,
with `tournament=` (as written: its status and the fields changed with it), `previous=` (its status before)
and `status=` (its status now), inside the transaction that writes the change: a receiver's database writes
commit with it or not at all; anything outside the database (mail, a task) waits for the commit
(`transaction.on_commit`), as for matches.signals. The tournaments app imports none of the receivers; they are
connected in their own app's `AppConfig.ready`.
"""

from django.dispatch import Signal

tournament_status_changed = Signal()
