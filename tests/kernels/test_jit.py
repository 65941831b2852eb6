"""kernels/jit.py: kernels release the GIL by default; PADDLE_EXEC_KERNEL_GIL=hold compiles them holding it, from
renamed copies (separate numba cache files), with the same numbers; a bad value is a clear error."""
import os
import subprocess
import sys

import numpy as np
import pytest

from paddle_exec.kernels import elementwise, jit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# builds and runs a small program; prints the kernel's nogil flag, its qualified name and the fetched numbers
CHILD = """
import numpy as np
import paddle_exec.fluid as fluid
from paddle_exec.kernels import elementwise
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.layers.data(name='x', shape=[3], dtype='float32', append_batch_size=False)
    y = fluid.layers.relu(fluid.layers.elementwise_add(x, x))
out, = fluid.Executor(fluid.CPUPlace()).run(main, feed={'x': np.array([-1.0, 0.5, 2.0], 'float32')}, fetch_list=[y])
print(elementwise._binary_loop.targetoptions['nogil'], elementwise._binary_loop.py_func.__qualname__, out.tolist())
"""


def run_child(mode):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop(jit.GIL_ENV_VAR, None)
    if mode is not None:
        env[jit.GIL_ENV_VAR] = mode
    return subprocess.run([sys.executable, '-c', CHILD], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_default_kernels_release_the_gil():
    assert jit.release_gil() or os.environ.get(jit.GIL_ENV_VAR) == 'hold'
    if jit.release_gil():
        assert elementwise._binary_loop.targetoptions['nogil'] is True
        assert elementwise._binary_loop.py_func.__qualname__ == '_binary_loop'


def test_hold_mode_compiles_renamed_gil_holding_kernels_with_the_same_numbers():
    held, released = run_child('hold'), run_child(None)
    assert held.returncode == 0, held.stderr
    assert released.returncode == 0, released.stderr
    assert held.stdout.split()[:2] == ['False', '_binary_loop__gil_held']
    assert released.stdout.split()[:2] == ['True', '_binary_loop']
    assert held.stdout.split(None, 2)[2] == released.stdout.split(None, 2)[2] == '[0.0, 1.0, 4.0]\n'


def test_an_unknown_mode_is_a_clear_error():
    bad = run_child('sometimes')
    assert bad.returncode != 0
    assert "PADDLE_EXEC_KERNEL_GIL must be 'release'" in bad.stderr and "'sometimes'" in bad.stderr


def test_held_copy_keeps_the_function_but_not_its_name():
    def f(a, b=2, *, c=3):
        return a + b + c
    g = jit._held_copy(f)
    assert g(1) == f(1) == 6 and g(1, c=0) == 3
    assert g.__qualname__ == f.__qualname__ + '__gil_held' and g.__code__ is f.__code__
    assert np.isclose(jit.kernel_jit()(lambda v: v * 2.0)(1.5), 3.0)


def test_the_mode_cannot_change_once_kernels_exist():

    with pytest.raises(RuntimeError, match='before the first kernel is compiled'):
        jit.configure(release_gil=not jit.release_gil())
    jit.configure(release_gil=jit.release_gil())          # setting the same mode again is harmless
