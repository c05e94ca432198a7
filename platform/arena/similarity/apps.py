from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    name = "arena.similarity"
    label = "similarity"  # the label of the tables, migrations and content types before the package move
    verbose_name = "Similarity of submissions"
