"""The generated tables of weida.h's codes, levels and report modes
(weida/_abi.py, and Node's lib/abi.js) are what build/gen-bindings-tables.py
writes from the checkout's header, and agree with the library itself."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import weida
from weida import _abi, _errors, _ffi

from support import REPO, BoundedCase, header_path

GENERATOR = REPO / "build" / "gen-bindings-tables.py"


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_bindings_tables", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class GeneratedTablesTest(BoundedCase):
    def setUp(self):
        self.gen = load_generator()
        self.tables = self.gen.read(header_path())

    def test_the_installed_table_is_the_one_the_header_gives(self):
        # The installed package's file, not the tree's: a wheel built from a
        # stale table fails here too.
        installed = Path(_abi.__file__).read_text(encoding="utf-8")
        self.assertEqual(installed, self.gen.render_python(self.tables),
                         "weida/_abi.py is stale: run build/gen-bindings-tables.py")

    def test_the_node_table_is_the_one_the_header_gives(self):
        checked_in = (REPO / "bindings" / "node" / "lib" / "abi.js").read_text(encoding="utf-8")
        self.assertEqual(checked_in, self.gen.render_node(self.tables),
                         "bindings/node/lib/abi.js is stale: run build/gen-bindings-tables.py")

    def test_the_tables_hold_what_the_bindings_name(self):
        self.assertEqual(len(_abi.KINDS), 26)
        self.assertEqual((_ffi.OK, _ffi.EINVAL, _ffi.END, _ffi.ETRUNCATED), (0, 101, 103, 105))
        self.assertEqual([weida.TRANSPORT_RECEIPT, weida.ACCEPTED, weida.STORED, weida.REPLICATED,
                          weida.PROCESSED, weida.APPLICATION_FLOOR], [1, 2, 3, 4, 5, 16])
        self.assertEqual((weida.PROGRESS, weida.FINAL_ONLY), (0, 1))

    def test_every_code_the_library_names_is_in_the_table(self):
        # Read from the library, header or not: weida_strerror names each
        # code it knows and says "WEIDA_E?" for any other.
        named = {}
        for code in range(1024):
            name = _ffi.lib.weida_strerror(code).decode().split(":", 1)[0]
            if name != "WEIDA_E?":
                named[name] = code
        table = {"WEIDA_" + c.name: c.value for c in self.tables.codes}
        self.assertEqual(named, table)
        self.assertEqual(table, {"WEIDA_" + name: getattr(_abi, name) for name in
                                 (n[len("WEIDA_"):] for n in table)})

    def test_each_kind_is_its_class(self):
        for code, c_name, variant, cls in _abi.KINDS:
            error = getattr(weida, cls)("x")
            self.assertEqual((error.code, error.errno), (code, variant), c_name)
            self.assertIs(type(_errors.error_for(code, "x")), type(error), c_name)
