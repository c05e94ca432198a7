"""Celery tasks of the tables: a bot's decisions, the check at a person's deadline, the periodic sweep, letting
go of a finished table's bots. Each is idempotent: the database says whose turn it is (see services)."""

from celery import shared_task

from . import services


@shared_task(name="tables.tasks.play_bot_turns", acks_late=True, reject_on_worker_lost=True)
def play_bot_turns(table_id: int) -> int:
    return services.play_bot_turns(table_id)


@shared_task(name="tables.tasks.expire_turn", acks_late=True)
def expire_turn(table_id: int) -> None:
    services.expire_turn(table_id)


@shared_task(name="tables.tasks.resume_tables")
def resume_tables() -> int:
    return services.resume_tables()


@shared_task(name="tables.tasks.release_bots")
def release_bots(table_id: int) -> int:
    return services.release_bots(table_id)
