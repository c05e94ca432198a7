from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "arena.accounts"
    label = "accounts"  # the label of the tables, migrations and content types before the package move
    verbose_name = "Accounts and courses"

    def ready(self):
        from . import tokens

        tokens.connect()
