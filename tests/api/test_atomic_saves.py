"""A checkpoint is replaced whole or not at all: atomic_files.FileSet and recover(), and a subprocess saving a
200 MB parameter killed at random moments."""
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.static import atomic_files
from paddle_exec.static.atomic_files import JOURNAL_PREFIX, TMP_PREFIX, FileSet, recover


def listing(folder):
    return sorted(os.listdir(folder))


def strays(folder):
    return [n for n in os.listdir(folder) if n.startswith((TMP_PREFIX, JOURNAL_PREFIX))]


def contents(folder, names):
    return {n: (folder / n).read_bytes() for n in names}


def dead_tag():
    """The tag of a writer whose process has exited."""
    child = subprocess.Popen([sys.executable, '-c', 'pass'])
    child.wait()
    return '%d-%d-0badf00d' % (child.pid, 12345)


@pytest.fixture(params=['unnamed', 'named'])
def temp_mode(request, monkeypatch):
    """Both ways of holding a new file before its commit: O_TMPFILE, and named temporaries (platforms without)."""
    if request.param == 'named':
        monkeypatch.setattr(atomic_files, '_open_unnamed', lambda folder: None)
    elif atomic_files._open_unnamed('.') is None:
        pytest.skip('no O_TMPFILE here')
    else:
        os.close(atomic_files._open_unnamed('.'))
    return request.param


def test_a_file_set_replaces_the_old_files_together(tmp_path, temp_mode):
    with FileSet(str(tmp_path)) as files:
        files.add('a', b'old a')
        files.add('b', [b'old ', memoryview(b'b')])
    with FileSet(str(tmp_path)) as files:
        files.add('a', b'new a')
        files.add('b', lambda f: f.write(b'new b'))
        files.add('c', b'')
        assert listing(tmp_path) == ['a', 'b'] or temp_mode == 'named'      # nothing visible before commit
    assert contents(tmp_path, ['a', 'b', 'c']) == {'a': b'new a', 'b': b'new b', 'c': b''}
    assert strays(tmp_path) == []


def test_a_big_set_holds_few_descriptors(tmp_path):
    """A save_persistables of thousands of variables must not run out of file descriptors."""
    def open_fds():
        return len(os.listdir('/proc/self/fd'))
    before = open_fds()
    with FileSet(str(tmp_path)) as files:
        for i in range(300):
            files.add('v%d' % i, b'%d' % i)
            assert open_fds() - before <= atomic_files.MAX_UNNAMED + 1
    assert len(listing(tmp_path)) == 300 and (tmp_path / 'v299').read_bytes() == b'299'
    assert strays(tmp_path) == [] and open_fds() == before


def test_a_failure_before_the_commit_point_leaves_the_old_files(tmp_path, temp_mode, monkeypatch):
    with FileSet(str(tmp_path)) as files:
        files.add('a', b'old a')
        files.add('b', b'old b')

    def failing_writer(f):
        f.write(b'half')
        raise OSError('disk full')
    with pytest.raises(OSError, match='disk full'):
        with FileSet(str(tmp_path)) as files:
            files.add('a', b'new a')
            files.add('b', failing_writer)
    assert contents(tmp_path, ['a', 'b']) == {'a': b'old a', 'b': b'old b'} and strays(tmp_path) == []

    def no_rename(src, dst):
        raise OSError('no rename today')
    real_replace = os.replace
    monkeypatch.setattr(os, 'replace', no_rename)
    with pytest.raises(OSError, match='no rename today'):         # the first rename fails: nothing replaced yet
        with FileSet(str(tmp_path)) as files:
            files.add('a', b'new a')
            files.add('b', b'new b')
    monkeypatch.setattr(os, 'replace', real_replace)
    assert contents(tmp_path, ['a', 'b']) == {'a': b'old a', 'b': b'old b'} and listing(tmp_path) == ['a', 'b']


def test_a_failure_after_the_commit_point_is_finished_by_the_next_load(tmp_path, monkeypatch):
    """The journal is the commit point: past it, a load rolls the save forward."""
    with FileSet(str(tmp_path)) as files:
        for name in 'abc':
            files.add(name, b'old ' + name.encode())
    real_replace, calls = os.replace, []

    def second_rename_fails(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError('the disk went away')
        real_replace(src, dst)
    monkeypatch.setattr(os, 'replace', second_rename_fails)
    with pytest.raises(OSError, match='the disk went away'):
        with FileSet(str(tmp_path)) as files:
            for name in 'abc':
                files.add(name, b'new ' + name.encode())
    monkeypatch.setattr(os, 'replace', real_replace)
    journal, = [n for n in os.listdir(tmp_path) if n.startswith(JOURNAL_PREFIX)]
    assert [target for _, target in json.loads((tmp_path / journal).read_text())['files']] == ['a', 'b', 'c']
    assert contents(tmp_path, 'abc') == {'a': b'new a', 'b': b'old b', 'c': b'old c'}    # a mix, until ...
    monkeypatch.setattr(atomic_files, 'COMMIT_WAIT', 0.0)     # a journal this old was abandoned
    recover(str(tmp_path))                                      # ... any load or save of the folder
    assert contents(tmp_path, 'abc') == {'a': b'new a', 'b': b'new b', 'c': b'new c'}
    assert strays(tmp_path) == []


def test_recover_finishes_dead_writers_and_leaves_live_ones(tmp_path):
    dead, live = dead_tag(), atomic_files._new_tag()
    (tmp_path / 'w').write_bytes(b'old w')
    (tmp_path / 'v').write_bytes(b'old v')
    # a dead writer past its commit point: its journal is rolled forward
    (tmp_path / (TMP_PREFIX + dead + '-0')).write_bytes(b'new w')
    (tmp_path / (TMP_PREFIX + dead + '-1')).write_bytes(b'new v')
    journal = {'format': 'paddle_exec.commit', 'version': 1,
               'files': [[TMP_PREFIX + dead + '-0', 'w'], [TMP_PREFIX + dead + '-1', 'v']]}
    (tmp_path / (JOURNAL_PREFIX + dead)).write_text(json.dumps(journal))
    # a dead writer before its commit point, and a writer still at work
    other_dead = dead.replace('0badf00d', 'feedf00d')
    (tmp_path / (TMP_PREFIX + other_dead + '-0')).write_bytes(b'never committed')
    (tmp_path / (TMP_PREFIX + live + '-0')).write_bytes(b'being written')
    recover(str(tmp_path))
    assert contents(tmp_path, ['w', 'v']) == {'w': b'new w', 'v': b'new v'}
    assert listing(tmp_path) == sorted(['v', 'w', TMP_PREFIX + live + '-0'])


def test_a_journal_that_cannot_be_read_is_reported(tmp_path):
    (tmp_path / (JOURNAL_PREFIX + dead_tag())).write_text('{"files": [[')
    with pytest.raises(atomic_files.JournalError, match='cannot be read.*may mix two saves'):
        recover(str(tmp_path))


def test_names_that_leave_the_folder_are_refused(tmp_path):
    for name in ('../x', '/abs', 'a/../../b', 'a//b', 'a/./b', '..', '.', '', 'a\0b', 'back\\slash'):
        with pytest.raises(ValueError, match='cannot be used as a file name'):
            FileSet(str(tmp_path)).add(name, b'')
    assert listing(tmp_path) == []


# --- killed while saving ---------------------------------------------------------------------------------------

BIG = 50_000_000            # float32: 200 MB

SAVER = textwrap.dedent('''
    import sys
    import numpy as np
    import paddle_exec.fluid as fluid
    from paddle_exec.framework import unique_name

    def build(big):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), unique_name.guard():
            fluid.layers.create_parameter([big], 'float32', name='big')
            fluid.layers.create_parameter([1], 'float32', name='gen')
        return main, startup

    if __name__ == '__main__':
        folder, mode, first, count, big = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        main, startup = build(big)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        scope = fluid.global_scope()
        values = np.empty(big, 'float32')
        print('ready', flush=True)
        for gen in range(first, first + count):
            values.fill(gen)
            scope.var('big').get_tensor().set(values)
            scope.var('gen').get_tensor().set(np.full(1, gen, 'float32'))
            if mode == 'persistables':
                fluid.io.save_persistables(exe, folder, main)
            else:
                fluid.save(main, folder + '/model')
            print('saved', gen, flush=True)
''')


def load_checkpoint(saver, folder, mode):
    main, _ = saver['build'](BIG)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        if mode == 'persistables':
            fluid.io.load_persistables(exe, str(folder), main)
        else:
            static.load(main, str(folder / 'model'), exe)
        scope = fluid.global_scope()
        big = np.array(scope.find_var('big').get_tensor())
        gen = float(np.array(scope.find_var('gen').get_tensor())[0])
    return gen, float(big.min()), float(big.max())


@pytest.mark.parametrize('mode', ['persistables', 'static_save'])
def test_a_save_killed_at_random_moments_leaves_a_whole_checkpoint(tmp_path, mode):
    saver = {}
    exec(compile(SAVER, 'saver', 'exec'), saver)
    script = tmp_path / 'saver.py'
    script.write_text(SAVER)
    folder = tmp_path / 'ckpt'

    def start(first, count):
        return subprocess.Popen([sys.executable, str(script), str(folder), mode, str(first), str(count), str(BIG)],
                                stdout=subprocess.PIPE, text=True)
    first = start(1, 2)                                     # the checkpoint to keep: two whole saves, timed
    assert first.stdout.readline().strip() == 'ready'
    t0 = time.monotonic()
    assert first.stdout.readline().split() == ['saved', '1']
    save_time = time.monotonic() - t0
    assert first.stdout.readline().split() == ['saved', '2'] and first.wait(60) == 0
    committed = 2.0
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    for round_ in range(1, 5):
        gen0 = 100.0 * round_
        saver_process = start(int(gen0), 100)
        assert saver_process.stdout.readline().strip() == 'ready'
        delay = rng.uniform(0.0, 2.5 * save_time)
        time.sleep(delay)
        saver_process.send_signal(signal.SIGKILL)
        out, _ = saver_process.communicate()
        saved = [float(line.split()[1]) for line in out.splitlines() if line.startswith('saved')]
        where = 'seed %d, round %d, killed after %.3f s (save takes %.3f s), saved %s' % (seed, round_, delay,
                                                                                         save_time, saved)
        # strays may be left by a kill in the commit phase (it names the unnamed files before writing its journal,
        # a window a loaded machine stretches): the load below must finish or discard them
        gen, low, high = load_checkpoint(saver, folder, mode)
        assert low == high == gen, where                       # never a mix of two saves
        # the last save reported whole, or the one after it if the kill came past its commit point
        assert gen in ({saved[-1], saved[-1] + 1} if saved else {committed, gen0}), where
        assert strays(folder) == [], where                     # the load finished or discarded the killed save
        committed = gen
