from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from arena.accounts.courses import grant_instructor


class Command(BaseCommand):
    help = "Let a user create courses on the site (the course page's New course), or no longer (--revoke)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true", help="take the permission back")

    def handle(self, username, revoke=False, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        grant_instructor(user, revoke=revoke)
        self.stdout.write(f"{username} {'can no longer' if revoke else 'can now'} create courses")
