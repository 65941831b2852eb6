"""`python -m paddle_exec.compat script.py args`: `paddle`, `paddle.fluid` and their submodules resolve to
paddle_exec (alias.py), the script runs as __main__ with its arguments; and Paddle 1.8's paddle.compat helpers."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import paddle_exec
from paddle_exec import compat
from paddle_exec.compat import alias


def _run(tmp_path, body, *args, options=()):
    script = tmp_path / 'script.py'
    script.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, '-m', 'paddle_exec.compat', *options, str(script), *args],
                          capture_output=True, text=True, cwd=str(tmp_path), timeout=300)


def test_runner_maps_paddle_and_runs_script_as_main(tmp_path):
    (tmp_path / 'helper.py').write_text('VALUE = 42\n')
    done = _run(tmp_path, """
        import sys
        import numpy as np
        import paddle
        import paddle.fluid as fluid
        import paddle.fluid.layers as layers
        from paddle.fluid.layers import fc
        import paddle_exec
        import helper                                   # the script's folder is on sys.path
        assert paddle is paddle_exec and fluid is paddle_exec.fluid and layers is paddle_exec.fluid.layers
        assert fc is paddle_exec.fluid.layers.fc
        x = fluid.layers.data(name='x', shape=[1], dtype='float32')
        loss = fluid.layers.mean(x)
        exe = fluid.Executor(fluid.CPUPlace())
        val, = exe.run(feed={'x': np.full((2, 1), 0.25, 'float32')}, fetch_list=[loss])
        print(__name__, sys.argv[1:], helper.VALUE, '%.2f' % val)
        """, 'first', '--flag', 'x')
    assert done.returncode == 0, done.stderr
    assert done.stdout.split('\n')[0] == "__main__ ['first', '--flag', 'x'] 42 0.25"


def test_runner_reports_a_missing_paddle_module(tmp_path):
    done = _run(tmp_path, 'import paddle.no_such_part\n')
    assert done.returncode != 0
    assert "No module named 'paddle.no_such_part'" in done.stderr and 'paddle_exec.no_such_part' in done.stderr


def test_runner_exit_code_and_no_md5_check(tmp_path):
    body = 'import sys, paddle.dataset.common as c\nsys.exit(3 if c.verify_md5 else 0)\n'
    assert _run(tmp_path, body).returncode == 3
    assert _run(tmp_path, body, options=['--no-md5-check']).returncode == 0


def test_runner_runs_a_module(tmp_path):
    (tmp_path / 'mymod.py').write_text('import sys, paddle\nprint(paddle.__name__, sys.argv[1:])\n')
    done = subprocess.run([sys.executable, '-m', 'paddle_exec.compat', '-m', 'mymod', 'a', 'b'],
                          capture_output=True, text=True, cwd=str(tmp_path), timeout=300,
                          env={'PYTHONPATH': str(tmp_path), 'PATH': ''})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "paddle_exec ['a', 'b']"


def test_runner_needs_a_script():
    done = subprocess.run([sys.executable, '-m', 'paddle_exec.compat'], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and 'give a script' in done.stderr


@pytest.fixture
def installed():
    if 'paddle' in sys.modules:
        pytest.skip('a real paddle is imported in this process')
    finder = compat.install_paddle_alias()
    yield finder
    compat.uninstall_paddle_alias()


def test_alias_in_process(installed):
    import paddle
    import paddle.fluid.layers as layers
    import paddle.static as static
    assert paddle is paddle_exec and layers is paddle_exec.fluid.layers and static is paddle_exec.static
    assert sys.modules['paddle.fluid'] is paddle_exec.fluid
    assert compat.install_paddle_alias() is installed            # once only
    assert sum(isinstance(f, alias.PaddleAliasFinder) for f in sys.meta_path) == 1


def test_uninstall_forgets_the_alias(installed):
    import paddle.fluid  # noqa: F401
    compat.uninstall_paddle_alias()
    assert 'paddle.fluid' not in sys.modules and not any(isinstance(f, alias.PaddleAliasFinder)
                                                         for f in sys.meta_path)
    assert sys.modules['paddle_exec.fluid'] is paddle_exec.fluid


def test_target_names():
    assert alias.target_name('paddle') == 'paddle_exec'
    assert alias.target_name('paddle.fluid.layers') == 'paddle_exec.fluid.layers'
    assert alias.target_name('paddlex') is None and alias.target_name('numpy') is None


def test_paddle_compat_helpers_match_paddle_1_8():
    # values from Paddle 1.8.5's paddle.compat
    assert compat.to_text(b'abc') == 'abc' and compat.to_text([b'a', 'b']) == ['a', 'b']
    assert compat.to_text({b'k': b'v'}) == {'k': 'v'} and compat.to_text({b'x'}) == {'x'}
    assert compat.to_bytes('abc') == b'abc' and compat.to_bytes(['a', b'b']) == [b'a', b'b']
    items = [b'a']
    assert compat.to_text(items, inplace=True) is items and items == ['a']
    assert compat.to_text(None) is None and compat.to_text(1.5) == 1.5
    assert compat.round(2.5) == 3.0 and compat.round(-2.5) == -3.0 and compat.round(1.25, 1) == 1.3
    assert compat.round(0.0) == 0.0
    assert compat.floor_division(7, 2) == 3 and compat.long_type is int
    assert compat.get_exception_message(ValueError('boom')) == 'boom'


def test_numpy_scalar_error_of_the_scripts_own_array_gets_a_hint(tmp_path):
    done = _run(tmp_path, """
        import numpy as np
        import paddle.fluid as fluid
        label = np.array([[1.5], [2.5]], 'float32')
        for idx, val in enumerate(label):
            print('%d: %.2f' % (idx, val))
        """)
    if np.lib.NumpyVersion(np.__version__) < '2.3.0':
        assert done.returncode == 0, done.stderr              # older numpy only warns
    else:
        assert done.returncode != 0 and 'only 0-dimensional arrays' in done.stderr
        if sys.version_info >= (3, 11):
            assert 'numpy<2.3' in done.stderr and 'made by the script itself' in done.stderr
