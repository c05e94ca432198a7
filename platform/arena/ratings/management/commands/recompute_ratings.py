"""Recompute every rating from the match history and check it against the stored ratings."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from arena.matches.models import Match, MatchSeat
from arena.ratings.models import Rating
from arena.ratings.services import recompute

FIELDS = ("mu", "sigma", "value", "played", "wins", "draws", "losses")


class Command(BaseCommand):
    help = ("Recompute every rating (mu, sigma) from the rated match history; fail if it disagrees with the stored "
            "ratings (--fix overwrites them).")

    def add_arguments(self, parser):
        parser.add_argument("--fix", action="store_true", help="overwrite the stored ratings, and the seats' "
                            "before/after, with the recomputed ones")

    def handle(self, *args, fix=False, **options):
        with transaction.atomic():
            history = Match.objects.rated_history().prefetch_related("seats__bot__owner")
            recomputed, wrong_seats = recompute(history)
            mismatches = [f"match {seat.match_id} seat {seat.seat} ({seat.bot}): stored {seat.stored[0]} -> "
                          f"{seat.stored[1]}, recomputed {seat.rating_before:.4f} -> {seat.rating_after:.4f}"
                          for seat in wrong_seats]
            stored = {r.bot_id: r for r in Rating.objects.select_for_update(of=("self",)).select_related("bot__owner")}
            for bot_id, rating in recomputed.items():
                current = stored.get(bot_id)
                if current is None or any(abs(getattr(current, f) - getattr(rating, f)) > 1e-6 for f in FIELDS):
                    mismatches.append(f"{rating.bot}: stored {_show(current)}, recomputed {_show(rating)}")
            for bot_id, current in stored.items():
                if bot_id not in recomputed and current.played:
                    mismatches.append(f"{current.bot}: stored {_show(current)} but it played no rated match")
            if fix:
                # The seats' before/after and rated numbers draw each bot's history chart: fixed with the ratings.
                MatchSeat.objects.bulk_update(wrong_seats, ["rating_before", "rating_after", "rated_number"])
                for rating in recomputed.values():
                    rating.save()
                Rating.objects.exclude(bot_id__in=list(recomputed)).filter(played__gt=0).delete()
        for line in mismatches:
            self.stdout.write(line)
        summary = f"{len(recomputed)} bots over {history.count()} rated matches"
        if mismatches and not fix:
            raise CommandError(f"{len(mismatches)} disagreements ({summary}); run with --fix to overwrite")
        self.stdout.write(self.style.SUCCESS(f"ratings {'fixed' if mismatches else 'agree'}: {summary}"))


def _show(rating) -> str:
    if rating is None:
        return "nothing"
    return (f"{rating.value:.2f} = {rating.mu:.3f} - k {rating.sigma:.3f} ({rating.played} played, "
            f"{rating.wins}-{rating.draws}-{rating.losses})")
