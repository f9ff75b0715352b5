"""The .pyi stubs describe the runtime surface exactly: every public name,
every public member, coroutine-ness and parameter names; every public name
has a docstring."""

import ast
import inspect
from pathlib import Path

import weida
import weida.sync
from support import BoundedCase


def stub_classes(module):
    tree = ast.parse(Path(module.__file__).with_suffix(".pyi").read_text())
    classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = {}
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    members[item.name] = item
                elif isinstance(item, ast.AnnAssign):
                    members[item.target.id] = item
            classes[node.name] = members
    return tree, classes


def public_members(cls):
    return {n for n in dir(cls) if not n.startswith("_") and not (
        isinstance(cls, type) and issubclass(cls, BaseException) and hasattr(Exception, n))}


class Stubs(BoundedCase):
    def check(self, module):
        tree, classes = stub_classes(module)
        stub_names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))} | {
            n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
        for name in module.__all__:
            self.assertIn(name, stub_names, f"{module.__name__}.{name} has no stub")
            obj = getattr(module, name)
            if not isinstance(obj, type):
                continue
            self.assertTrue(obj.__doc__, f"{name} has no docstring")
            if issubclass(obj, BaseException):
                continue
            stubbed = classes[name]
            self.assertEqual(public_members(obj) - {"errno", "cause"}, set(stubbed) - {"__init__"},
                             f"{module.__name__}.{name}")
            for member, node in stubbed.items():
                attr = inspect.getattr_static(obj, member, None)
                if not callable(attr) or member == "__init__" or isinstance(attr, (classmethod, type)):
                    continue
                with self.subTest(cls=name, member=member):
                    self.assertTrue(attr.__doc__, f"{name}.{member} has no docstring")
                    self.assertEqual(inspect.iscoroutinefunction(attr), isinstance(node, ast.AsyncFunctionDef))
                    params = list(inspect.signature(attr).parameters)
                    self.assertEqual(params, [a.arg for a in node.args.args])

    def test_asyncio_stub(self):
        self.check(weida)

    def test_sync_stub(self):
        self.check(weida.sync)
