import importlib.util
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "bots" / "examples"


@pytest.fixture
def example_bot():
    """A fresh instance of the documented example bot of a game: example_bot("crazyking")."""

    def load(game: str):
        path = EXAMPLES / f"{game}_example.py"
        spec = importlib.util.spec_from_file_location(f"{game}_example", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.Bot()

    return load
