"""Declined names (paddle_exec/_declined.py): every entry raises AttributeError with its reason and what to use
instead, is one of real Paddle's names for its module, and docs/compatibility.md lists exactly the table."""
import importlib
import json
import os

import pytest

from paddle_exec import _declined

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PADDLE_NAMES = {}
for _file in ('fluid-1.8.5.json', 'paddle-2.6.2.json'):
    with open(os.path.join(HERE, 'paddle_names', _file)) as _f:
        PADDLE_NAMES.update(json.load(_f))

# submodules Paddle has at these paths without listing them in __all__
NOT_IN_ALL = {'paddle.utils': ['cpp_extension']}
for _path, _names in NOT_IN_ALL.items():
    PADDLE_NAMES[_path] = PADDLE_NAMES.get(_path, []) + _names

ENTRIES = [(path, name) for path in sorted(_declined.DECLINED) for name in _declined.declined_names(path)]


def _module(path: str):
    return importlib.import_module('paddle_exec' + path[len('paddle'):])


@pytest.mark.parametrize('path,name', ENTRIES)
def test_declined_name_raises_with_its_reason(path, name):
    module = _module(path)
    reason, instead = _declined.DECLINED[path][name]
    with pytest.raises(AttributeError) as info:
        getattr(module, name)
    text = str(info.value)
    assert text.startswith('%s.%s is declined by paddle_exec: ' % (path, name))
    assert reason in text and ('Use %s instead.' % instead) in text
    assert not hasattr(module, name)
    assert name not in getattr(module, '__all__', ())


@pytest.mark.parametrize('path,name', ENTRIES)
def test_declined_name_is_a_paddle_name(path, name):
    assert name in PADDLE_NAMES.get(path, ()), (path, name)


def test_every_declined_table_is_sorted_and_reads_its_module_getattr():
    for path, table in _declined.DECLINED.items():
        assert list(table) == sorted(table), path
        module = _module(path)
        assert getattr(module, '__getattr__', None) is not None, path


def test_unknown_name_is_a_plain_attribute_error():
    module = _module('paddle.device')
    with pytest.raises(AttributeError, match="module 'paddle_exec.device' has no attribute 'no_such_name'"):
        module.no_such_name


def test_doc_lists_exactly_the_table():
    with open(os.path.join(ROOT, 'docs', 'compatibility.md')) as f:
        doc = f.read()
    assert _declined.BEGIN in doc and _declined.END in doc
    section = doc.split(_declined.BEGIN, 1)[1].split(_declined.END, 1)[0]
    assert section.strip() == _declined.markdown().strip(), 'run: ' + _declined.UPDATE_COMMAND
    listed = set()
    current = None
    for line in section.splitlines():
        if line.startswith('### '):
            current = line[4:].strip()
        elif line.startswith('| `'):
            listed.add((current, line.split('`')[1]))
    assert listed == set(ENTRIES)


SURFACES = [os.path.join(ROOT, 'tools', 'api', f) for f in ('fluid-1.8.5.json', 'paddle-2.6.2.json')]


@pytest.mark.parametrize('surface', SURFACES, ids=os.path.basename)
def test_every_name_of_paddles_surface_resolves_or_is_declined(surface):
    """Issue 12's contract: of real Paddle's public surface (tools/api_surface.py's dumps, with the names scripts
    import from outside `__all__`), what does not resolve here is exactly the declined table."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, 'tools'))
    try:
        from api_surface import EXTRA
    finally:
        sys.path.pop(0)
    with open(surface) as f:
        want = json.load(f)
    unexplained = []
    for path, names in sorted(want.items()):
        module = _module(path)
        for name in sorted(set(names) | set(EXTRA.get(path, ()))):
            if not hasattr(module, name) and name not in _declined.DECLINED.get(path, {}):
                unexplained.append('%s.%s' % (path, name))
    assert not unexplained, 'neither implemented nor declined: %s' % ', '.join(unexplained)
