from django.apps import AppConfig


class VariantsConfig(AppConfig):
    name = "arena.variants"
    label = "variants"  # the label of the tables, migrations and content types before the package move
    verbose_name = "Course variants of the games"
