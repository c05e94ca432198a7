from django.apps import AppConfig


class SimilarityConfig(AppConfig):
    name = "similarity"
    verbose_name = "Similarity of submissions"
