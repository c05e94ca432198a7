"""Celery tasks: running a match (idempotent, see services) and re-queueing stuck ones."""

import logging

from celery import shared_task
from celery.signals import worker_process_init, worker_process_shutdown, worker_ready

from . import runner, services
from .transient import TRANSIENT_ERRORS, retrying

log = logging.getLogger(__name__)

# Seconds a task keeps retrying its claim in process before handing the retry back to the broker.
CLAIM_PATIENCE = 30.0


# Named as before the platform became the arena package: queued messages and the beat schedule name them.
@shared_task(name="matches.tasks.run_match", bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def run_match(self, match_id: int, passes: int = 0) -> None:
    """Play `match_id`, or, routed to the host's warm containers (services.claim), a queued match free of
    the containers in use, having been passed over `passes` times already; or wait a moment for them.

    Each wait counts as a pass. One that runs out (the match holding them is longer than a start) is the
    last: the next claim starts containers rather than wait again. One that ends with that match may
    find them taken again at once (the process that played it claimed the next match of the same bots
    first) and waits again, within MAX_PASSES."""
    claimed = _claim(self, match_id, services.Route(passes))
    while isinstance(claimed, services.Busy):
        try:
            ended = services.wait_for_containers(claimed)
        except TRANSIENT_ERRORS:
            ended = False  # (the claim that follows retries the database)
        passes += 1
        # The match the claim chose for this message (services._next_to_play: a more urgent one, whose
        # message's own match was sent again) is the one it waited for.
        claimed = _claim(self, claimed.match_id, services.Route(passes, wait=ended and passes < services.MAX_PASSES))
    if isinstance(claimed, float):
        # Another attempt holds the match: come back at its deadline, when it is presumed lost if still running.
        raise self.retry(countdown=claimed + 1)
    if claimed is not None:
        services.run(claimed)


def _claim(task, match_id: int, route: services.Route):
    try:
        return retrying(services.claim, match_id, route, patience=CLAIM_PATIENCE)
    except TRANSIENT_ERRORS as exc:
        # The database is still unavailable: come back soon through the broker rather than at the deadline.
        raise task.retry(exc=exc, countdown=5)


@shared_task(name="matches.tasks.warm_up_version")
def warm_up_version(version_id: int) -> None:
    """Start the warm container of a version that passed its validation before its first match (queued by
    matches.validation): that match then finds it warm instead of starting it on its own clock. Idempotent
    (a version with a container already gets none); a warm-up that fails costs that match the start only."""
    from arena.bots.models import BotVersion

    version = BotVersion.objects.select_related("bot").filter(pk=version_id, status=BotVersion.Status.ACCEPTED).first()
    if version is None:  # deleted, or its validation played again and rejected it meanwhile
        return
    try:
        started = runner.warm_up(version)
    except Exception:  # noqa: BLE001 - an engine that fails here fails the match too, where it is reported
        log.exception("could not warm up version %s", version_id)
        return
    # (none started: no warm sandbox here, the version has a container on the host already, or the pool is
    # full of containers in matches; the operator reads which from the pool's state)
    log.info("version %s: %s", version_id, f"warm container {started[:12]} started ahead of its first match"
             if started else "no container started ahead of its first match")


@shared_task(name="matches.tasks.requeue_stuck_matches")
def requeue_stuck_matches() -> int:
    clean_sandbox_leftovers()
    return services.requeue_stuck()


@worker_ready.connect
def clean_sandbox_leftovers(**kwargs) -> None:
    """Remove sandboxes and match folders that killed workers left on this host (never those of live workers)."""
    import sandbox

    try:
        sandbox.cleanup_leftovers()
    except Exception:  # a host without Docker or bwrap has nothing to clean; never stop the worker for it
        log.exception("could not clean sandbox leftovers")
    runner.remove_stale_folders()


@worker_process_init.connect
def share_warm_sandboxes(**kwargs) -> None:
    """Every worker process on this host (of this database) shares its idle warm containers: a bot version is
    warmed up once per host, not once per pool process (sandbox/pool.py)."""
    from django.db import connection
    from sandbox import pool

    database = connection.settings_dict
    pool.share_default_pool(f"{database['HOST']}:{database['PORT']}/{database['NAME']}")


@worker_process_shutdown.connect
def close_warm_sandboxes(**kwargs) -> None:
    """A pool process ending in a warm shutdown removes its idle warm containers and their folders.

    Its pool's atexit hook never runs: Celery's pool processes end with os._exit. Without this every
    stop of a worker left its warm containers behind until the next worker on the host started.
    """
    from sandbox import pool

    try:
        pool.close_default_pool()
    except Exception:  # the Docker engine gone: the next worker's cleanup removes what is left
        log.exception("could not remove the warm sandboxes")
