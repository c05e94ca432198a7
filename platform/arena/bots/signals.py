"""Signals of the bots app: `version_uploaded` (see matches.signals for who answers it and why)."""

from django.dispatch import Signal

# Sent with version= inside the transaction that stores a new BotVersion.
version_uploaded = Signal()
