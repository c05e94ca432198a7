"""Build the solver's compiled core (core.c) with cffi: `python games/sprouts/build_core.py [--when-changed]`.

scripts/setup runs it with --when-changed, which builds only when core.c or this file changed since the
module beside it was built (or it is missing): a build takes a few seconds of CPU, and scripts/test runs
setup each time. Without a C compiler, or when the build fails, the solver runs in pure Python (solver.py is
the reference the tests compare the core with), only slower.
"""

import hashlib
import importlib.machinery
import os
import sys
import shutil
import tempfile
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent

ffibuilder = FFI()
ffibuilder.cdef("""
    long sp_options(const uint8_t *key, int n);
    long sp_normalise(const uint8_t *key, int n);
    const uint8_t *sp_result(void);
    int sp_misere(const uint8_t *game, int len, double deadline);
    void sp_misere_learn(const uint8_t *game, int len, int wins);
    void sp_normal_learn(const uint8_t *comp, int len, int heap, int wins);
    void sp_misere_small(int lives);
    int sp_form(const int *opts, int n);
    int sp_form_sum(int a, int b);
    int sp_form_wins(int id);
    int sp_normal(const uint8_t *game, int len, int heap, double deadline);
    long sp_listed(void);
    void sp_export_from(int min_lives);
    long sp_export(void);
    void sp_import(const uint8_t *records, long len);
    void sp_table_limits(long outcomes_limit, long listings);
    void sp_reset(void);
""")
ffibuilder.set_source("games.sprouts._core", (HERE / "core.c").read_text(), extra_compile_args=["-O2"])


# What the built module was built from, beside it (left out by .gitignore as the module is).
BUILT_FROM = HERE / "_core.built-from"


def sources_digest() -> str:
    """The digest of what a build reads: the C source, this file (the declarations and compiler flags) and
    the interpreter's extension ABI (part of the module's file name)."""
    digest = hashlib.sha256()
    for source in (HERE / "core.c", Path(__file__).resolve()):
        digest.update(source.read_bytes())
    digest.update(importlib.machinery.EXTENSION_SUFFIXES[0].encode())
    return digest.hexdigest()


def built_and_current() -> Path | None:
    """The module beside this file, if it was built from today's sources; else None."""
    module = HERE / f"_core{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    try:
        current = module.exists() and BUILT_FROM.read_text().strip() == sources_digest()
    except OSError:
        return None
    return module if current else None


def build() -> Path:
    """Compile in a scratch directory and put only the extension module beside this file."""
    with tempfile.TemporaryDirectory() as scratch:
        built = Path(ffibuilder.compile(tmpdir=scratch, verbose=False))
        target = HERE / built.name
        # A new file renamed over the old one: a process that has the old one loaded keeps it intact.
        shutil.copy(built, target.with_suffix(".new"))
        os.replace(target.with_suffix(".new"), target)
    BUILT_FROM.write_text(sources_digest() + "\n")
    return target


if __name__ == "__main__":
    if "--when-changed" in sys.argv[1:] and (module := built_and_current()) is not None:
        print(f"up to date: {module}")
    else:
        print(f"built {build()}")
