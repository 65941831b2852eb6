"""fluid.layers.py_reader / create_py_reader_by_data / double_buffer / read_file (Paddle 1.8's in-graph reader):
the program gets create_py_reader, create_double_buffer_reader and read ops, and runs until EOFException."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name


def _epochs(exe, main, reader, fetch, scope, n=2):
    out = []
    with fluid.scope_guard(scope):          # start() puts the queue in the scope current then
        for _ in range(n):
            reader.start()
            try:
                while True:
                    out.append(float(exe.run(main, fetch_list=[fetch])[0]))
            except fluid.core.EOFException:
                reader.reset()
    return out


def test_py_reader_with_a_paddle_reader():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        reader = fluid.layers.py_reader(capacity=4, shapes=[(-1, 3), (-1, 1)], dtypes=['float32', 'int64'],
                                        name='train')
        x, y = fluid.layers.read_file(reader)
        s = fluid.layers.reduce_sum(x) + fluid.layers.cast(fluid.layers.reduce_sum(y), 'float32')
    assert [op.type for op in main.global_block().ops][:3] == ['create_py_reader', 'create_double_buffer_reader',
                                                               'read']
    assert main.global_block().ops[0].output('Out') == ['train_reader']
    assert x.shape == (-1, 3) and y.dtype == fluid.core.VarDesc.VarType.INT64
    batches = [[(np.full(3, k, 'float32'), np.array([k]))] * 2 for k in range(3)]
    reader.decorate_paddle_reader(lambda: iter(batches))
    exe = fluid.Executor(fluid.CPUPlace())
    assert _epochs(exe, main, reader, s, Scope()) == [0.0, 8.0, 16.0] * 2


def test_create_py_reader_by_data_and_tensor_provider():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        a = fluid.data('a', [-1, 2], 'float32')
        reader = fluid.layers.create_py_reader_by_data(capacity=2, feed_list=[a], use_double_buffer=False)
        reader = fluid.layers.double_buffer(reader)
        got = fluid.layers.read_file(reader)
        total = fluid.layers.reduce_sum(got)
    assert [op.type for op in main.global_block().ops][:3] == ['create_py_reader', 'create_double_buffer_reader',
                                                               'read']
    reader.decorate_tensor_provider(lambda: iter([[np.ones((2, 2), 'float32')], [np.zeros((1, 2), 'float32')]]))
    exe = fluid.Executor(fluid.CPUPlace())
    assert _epochs(exe, main, reader, total, Scope(), n=1) == [4.0, 0.0]


def test_read_file_needs_a_py_reader():
    with program_guard(Program(), Program()):
        with pytest.raises(TypeError, match='py_reader'):
            fluid.layers.read_file(fluid.data('z', [1]))
        with pytest.raises(ValueError, match='same length'):
            fluid.layers.py_reader(2, [(-1, 1)], ['float32', 'int64'])
