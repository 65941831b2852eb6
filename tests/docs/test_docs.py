"""Every code block and command in docs/ runs (docs_blocks.py says how a page is read and which markers steer it).

One test per page, found by walking docs/, so pages added later are tested without touching this file. A page runs
in a fresh folder that links the checkout's top-level entries (tests/, examples/, docs/, ...), so its commands use
paths relative to the checkout and whatever they write stays out of it. The console script `paddle-exec` and
`python` are those of the interpreter running the tests. Python blocks run in this process inside fresh default
programs, a fresh global scope and unique-name counter, with the environment restored afterwards, so a page cannot
leak state into the tests that follow.
"""
import os
import subprocess
import sys
import traceback

import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name

from .docs_blocks import RUN_PYTHON, RUN_SHELL, MarkerError, read_blocks

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, 'docs')
COMMAND_TIMEOUT = 900


def pages() -> list:
    found = []
    for folder, _, files in os.walk(DOCS):
        found += [os.path.relpath(os.path.join(folder, f), ROOT) for f in files if f.endswith('.md')]
    return sorted(found)


def _workdir(tmp_path) -> str:
    for entry in os.listdir(ROOT):
        if entry.startswith('.'):
            continue
        os.symlink(os.path.join(ROOT, entry), os.path.join(tmp_path, entry))
    return str(tmp_path)


def _env() -> dict:
    env = dict(os.environ)
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    env['PYTHONPATH'] = ROOT + os.pathsep + env.get('PYTHONPATH', '')
    return env


def run_block(block, namespace: dict, cwd: str) -> None:
    if block.lang in RUN_PYTHON:
        try:
            exec(compile(block.code, block.where, 'exec'), namespace)
        except Exception:
            pytest.fail('%s: the python block failed:\n%s\n%s' % (block.where, block.code, traceback.format_exc()))
        return
    for command in block.commands():
        result = subprocess.run(['bash', '-c', command], cwd=cwd, env=_env(), capture_output=True, text=True,
                                timeout=COMMAND_TIMEOUT)
        if result.returncode != block.exit_status:
            pytest.fail('%s: `%s` exited %d (expected %d)\nstdout:\n%s\nstderr:\n%s'
                        % (block.where, command, result.returncode, block.exit_status, result.stdout[-3000:],
                           result.stderr[-3000:]))


@pytest.mark.parametrize('page', pages())
def test_docs_page_runs(page, tmp_path, monkeypatch):
    with open(os.path.join(ROOT, page)) as f:
        blocks = read_blocks(f.read(), page)
    cwd = _workdir(tmp_path)
    monkeypatch.chdir(cwd)
    namespace = {'__name__': '__docs__'}
    skipped = []
    saved_env = dict(os.environ)
    try:
        with fluid.program_guard(fluid.Program(), fluid.Program()), fluid.scope_guard(fluid.Scope()), \
                unique_name.guard():
            for block in blocks:
                if block.file:
                    with open(os.path.join(cwd, block.file), 'w') as f:
                        f.write(block.code)
                    continue
                if block.lang not in RUN_PYTHON + RUN_SHELL:
                    continue
                if block.skip:
                    skipped.append('%s: %s' % (block.where, block.skip))
                    continue
                missing = block.missing()
                if missing:
                    skipped.append('%s: needs %s' % (block.where, ', '.join(missing)))
                    continue
                run_block(block, namespace, cwd)
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
    if skipped:
        print('blocks not run:\n  ' + '\n  '.join(skipped))


def test_pages_are_found():
    assert 'docs/cli.md' in pages() and 'docs/migration.md' in pages()


# --- the reader itself ------------------------------------------------------------------------------------------

PAGE = '''# A page

```python
x = 1
```

<!-- docs-test: skip: a fragment of a larger script -->
```python
undefined_name
```

<!-- docs-test: needs: no_such_module_here, cmd:no-such-program -->
```bash
paddle-exec inspect somewhere \\
    --json
# a comment
echo done
```

<!-- docs-test: exit: 2 -->
```console
$ paddle-exec trace x.py
output lines are not run
```

```text
not run
```

<!-- docs-test: file: conf.py -->
```python
written, not run
```

- a list item with a block:

  ```python
  y = x + 1
  ```
'''


def test_reader_markers_and_commands():
    blocks = read_blocks(PAGE, 'page.md')
    assert [b.lang for b in blocks] == ['python', 'python', 'bash', 'console', 'text', 'python', 'python']
    assert blocks[5].file == 'conf.py' and blocks[5].code == 'written, not run\n'
    blocks = blocks[:5] + blocks[6:]
    assert blocks[0].skip is None and blocks[1].skip == 'a fragment of a larger script'
    assert blocks[2].commands() == ['paddle-exec inspect somewhere --json', 'echo done']
    assert blocks[2].missing() == ['the no_such_module_here module', 'the no-such-program program']
    assert blocks[3].commands() == ['paddle-exec trace x.py'] and blocks[3].exit_status == 2
    assert blocks[5].code == 'y = x + 1\n' and blocks[5].line == 37
    assert blocks[0].where == 'page.md:3'


def test_reader_rejects_bad_markers():
    with pytest.raises(MarkerError, match='needs a reason'):
        read_blocks('<!-- docs-test: skip -->\n```python\nx\n```\n', 'p.md')
    with pytest.raises(MarkerError, match="unknown docs-test marker 'sometimes'"):
        read_blocks('<!-- docs-test: sometimes: yes -->\n```python\nx\n```\n', 'p.md')
