"""Who sees a variant match's rules. A match played on a course's variant has that course's rules: its
options (a deck of the instructor's own) and its replay, which shows them card by card, are the course's
material, for whoever attends the course (and operators). Anyone else sees the match and its result, and
that it had rules of its own, not which."""

from .models import Variant


class RulesSeen:
    """Whether `user` may see a match's rules and replay; asks the database once, however many matches."""

    def __init__(self, user):
        self.user = user
        self._variants: set[int] | None = None

    def __call__(self, match) -> bool:
        if match.variant_id is None:
            return True
        if self._variants is None:
            self._variants = set(Variant.objects.visible_to(self.user).values_list("pk", flat=True))
        return match.variant_id in self._variants
