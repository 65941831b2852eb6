"""The `paddle` import alias: an import hook that makes `paddle` and every `paddle.*` module resolve to
paddle_exec's module of the same path, for scripts that cannot be edited.

    from paddle_exec.compat import install_paddle_alias
    install_paddle_alias()
    import paddle.fluid as fluid          # paddle_exec.fluid, the same module object

`PaddleAliasFinder` sits first on sys.meta_path, so it wins over a real Paddle installed beside. For `paddle.x.y`
it imports `paddle_exec.x.y` and hands that very module back (its loader creates nothing and executes nothing), so
`paddle.fluid is paddle_exec.fluid` and module state (default programs, scopes, unique names) is shared. A name
paddle_exec lacks raises ModuleNotFoundError naming both the `paddle` module asked for and the paddle_exec module
that would serve it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

ALIAS = 'paddle'
TARGET = 'paddle_exec'


def target_name(fullname: str) -> str | None:
    """The paddle_exec module that serves `fullname`, or None when `fullname` is not `paddle` or `paddle.*`."""
    if fullname == ALIAS:
        return TARGET
    if fullname.startswith(ALIAS + '.'):
        return TARGET + fullname[len(ALIAS):]
    return None


class _ExistingModuleLoader(importlib.abc.Loader):
    """Hands back a module imported already under its paddle_exec name."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        pass


class PaddleAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        name = target_name(fullname)
        if name is None:
            return None
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            raise ModuleNotFoundError("No module named '%s': paddle_exec has no '%s' to serve it (the paddle import "
                                      "alias maps paddle.* to paddle_exec.*)" % (fullname, name),
                                      name=fullname) from None
        return importlib.util.spec_from_loader(fullname, _ExistingModuleLoader(module),
                                               is_package=hasattr(module, '__path__'))


def install_paddle_alias() -> PaddleAliasFinder:
    """Puts the finder first on sys.meta_path (once) and returns it."""
    for finder in sys.meta_path:
        if isinstance(finder, PaddleAliasFinder):
            return finder
    finder = PaddleAliasFinder()
    sys.meta_path.insert(0, finder)
    return finder


def uninstall_paddle_alias() -> None:
    """Removes the finder and forgets the `paddle` names imported through it."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, PaddleAliasFinder)]
    for name in [n for n in sys.modules if target_name(n) is not None]:
        if getattr(sys.modules[name], '__name__', '').startswith(TARGET):
            del sys.modules[name]
