"""The hook through which other apps (the pairing room) learn that a table's game ended.

`table_finished` is sent with `table=` (a Table whose status is now `finished`, its `winners` and `facts`
final) inside the transaction that records the last change, after its compare-and-set: once per table. A
receiver's database writes commit with the result or not at all; anything outside the database goes in
`transaction.on_commit`.
"""

from django.dispatch import Signal

table_finished = Signal()
