"""scripts/setup builds the Sprouts core only when what the build reads has changed (build_core.py
--when-changed): a pull that changes core.c gets a new module, a run of scripts/test with nothing changed
pays no compile."""

import importlib.machinery

from games.sprouts import build_core


def test_the_core_counts_as_current_only_when_built_from_todays_sources(tmp_path, monkeypatch):
    (tmp_path / "core.c").write_bytes((build_core.HERE / "core.c").read_bytes())
    monkeypatch.setattr(build_core, "HERE", tmp_path)
    monkeypatch.setattr(build_core, "BUILT_FROM", tmp_path / "_core.built-from")
    module = tmp_path / f"_core{importlib.machinery.EXTENSION_SUFFIXES[0]}"

    assert build_core.built_and_current() is None  # never built
    build_core.BUILT_FROM.write_text(build_core.sources_digest() + "\n")
    assert build_core.built_and_current() is None  # its record, but no module
    module.write_bytes(b"a module built from these sources")
    assert build_core.built_and_current() == module

    (tmp_path / "core.c").write_text((tmp_path / "core.c").read_text() + "\n/* a pulled change */\n")
    assert build_core.built_and_current() is None
    build_core.BUILT_FROM.write_text("a digest of other sources\n")
    assert build_core.built_and_current() is None
