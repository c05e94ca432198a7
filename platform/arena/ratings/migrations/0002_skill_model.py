"""Elo to the Weng-Lin skill model (issue 43): every rating recomputed from the recorded rated matches.

The seats keep their history (rating before/after, now the ladder value mu - k sigma, and rated number), the
ratings get mu and sigma; `manage.py recompute_ratings` checks the result against the same replay afterwards.
"""

from django.conf import settings
from django.db import migrations, models
from games import get_game

from arena.ratings.skill import Model, RecordedMatch, replay

NO_SCORE = 1e6  # as ratings.services.NO_SCORE (a migration keeps its own copy of what it relies on)


def recompute_from_history(apps, schema_editor):
    Match, MatchSeat, Rating = (apps.get_model("matches", "Match"), apps.get_model("matches", "MatchSeat"),
                                apps.get_model("ratings", "Rating"))
    model = Model(mu=settings.ARENA_RATING_MU, sigma=settings.ARENA_RATING_SIGMA, k=settings.ARENA_RATING_K)
    matches = Match.objects.filter(status="finished", rated=True).order_by("finished_at", "id")
    MatchSeat.objects.filter(rating_after__isnull=False).update(rating_before=None, rating_after=None,
                                                                 rated_number=None)

    def history():
        for match in matches.iterator(chunk_size=500):
            seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
            keyed = [(seat, seat.bot_id, seat.placing or len(seats)) for seat in seats]
            rules = get_game(match.game)
            if not rules.cooperative:
                yield RecordedMatch(keyed)
                continue
            # Rated now as the ladder rates it from here on (services.over_optimum): the Elo ladder skipped it.
            scores = [seat.score for seat in seats if seat.score is not None]
            yield RecordedMatch(keyed, over_optimum=abs(scores[0] - rules.perfect_score) if scores else NO_SCORE)

    states, changed = {}, []
    for seat, before, after, number in replay(model, history(), states):
        seat.rating_before = None if before is None else before.conservative(model.k)
        seat.rating_after = None if after is None else after.conservative(model.k)
        seat.rated_number = number
        changed.append(seat)
        if len(changed) >= 1000:
            MatchSeat.objects.bulk_update(changed, ["rating_before", "rating_after", "rated_number"])
            changed = []
    MatchSeat.objects.bulk_update(changed, ["rating_before", "rating_after", "rated_number"])
    Rating.objects.all().delete()  # a bot with no rated match gets its row at its first one
    Rating.objects.bulk_create(
        [Rating(bot_id=bot_id, mu=state.skill.mu, sigma=state.skill.sigma,
                value=state.skill.conservative(model.k), played=state.played, wins=state.wins,
                draws=state.draws, losses=state.losses) for bot_id, state in states.items()],
        batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ("ratings", "0001_initial"),
        ("matches", "0008_spectating"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating", name="mu",
            field=models.FloatField(default=25.0, help_text="Skill estimate (Weng-Lin / OpenSkill Plackett-Luce)."),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="rating", name="sigma",
            field=models.FloatField(default=25.0 / 3, help_text="Uncertainty of mu; the bot is provisional while it "
                                                                "is above ARENA_PROVISIONAL_SIGMA."),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="rating", name="value",
            field=models.FloatField(help_text="mu - ARENA_RATING_K * sigma: the conservative estimate the ladder "
                                              "orders by."),
        ),
        migrations.RunPython(recompute_from_history, migrations.RunPython.noop),
    ]
