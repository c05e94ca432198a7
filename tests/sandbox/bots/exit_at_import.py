"""Exits while being imported."""
import sys

sys.exit(3)
