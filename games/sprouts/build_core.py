"""Build the solver's compiled core (core.c) with cffi: `python games/sprouts/build_core.py`.

scripts/setup runs it; without a C compiler, or when it fails, the solver runs in pure Python
(solver.py is the reference the tests compare the core with), only slower.
"""

import os
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
    void sp_reset(void);
""")
ffibuilder.set_source("games.sprouts._core", (HERE / "core.c").read_text(), extra_compile_args=["-O2"])


def build() -> Path:
    """Compile in a scratch directory and put only the extension module beside this file."""
    with tempfile.TemporaryDirectory() as scratch:
        built = Path(ffibuilder.compile(tmpdir=scratch, verbose=False))
        target = HERE / built.name
        # A new file renamed over the old one: a process that has the old one loaded keeps it intact.
        shutil.copy(built, target.with_suffix(".new"))
        os.replace(target.with_suffix(".new"), target)
    return target


if __name__ == "__main__":
    print(f"built {build()}")
