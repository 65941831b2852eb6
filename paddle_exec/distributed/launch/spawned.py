"""The program each trainer of paddle.distributed.spawn runs (spawn.py): `python spawned.py PAYLOAD`, PAYLOAD a
pickle of where the function is (the main script's path, or a module name, and its qualified name), then a pickle
of its args.

The main script is loaded as the module `__mp_main__`, also registered as `__main__` while the args are
unpickled (they may hold the script's own classes), as multiprocessing's spawn does.
"""
import importlib
import pickle
import runpy
import sys
import types


def _load(where: dict):
    if where['path'] is None:
        return importlib.import_module(where['module'])
    module = types.ModuleType('__mp_main__')
    module.__file__ = where['path']
    sys.modules['__mp_main__'] = sys.modules['__main__'] = module
    module.__dict__.update(runpy.run_path(where['path'], run_name='__mp_main__'))
    return module


def main(path: str) -> None:
    with open(path, 'rb') as f:
        where = pickle.load(f)
        module = _load(where)
        args = pickle.load(f)
    func = module
    for name in where['qualname'].split('.'):
        func = getattr(func, name)
    func(*args)


if __name__ == '__main__':
    main(sys.argv[1])
