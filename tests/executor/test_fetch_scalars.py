"""Fetched one-element values convert to Python numbers as numpy 1.x allowed (issue 14): a mean loss of shape [1]
and a [1, 1] fetch, through Executor.run, ParallelExecutor.run, CompiledProgram, return_numpy=False and the scope.
Every other use sees plain ndarrays."""
import operator
import pickle

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import LoDTensor


def _programs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        pred = fluid.layers.fc(x, size=1, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)))
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))    # shape [1], as Paddle 1.8
        count = fluid.layers.reduce_sum(fluid.layers.cast(x > 0.5, 'int64'), keep_dim=True)   # shape [1, 1]
        fluid.optimizer.SGD(0.01).minimize(loss)
    return main, startup, loss, count


FEED = {'x': np.array([[1.0, 0.0, 1.0], [0.2, 0.9, 0.1]], np.float32), 'y': np.array([[1.0], [0.0]], np.float32)}
# pred = 0.5 * sum(x) = [1.0, 0.6]; loss = ((1.0 - 1)^2 + (0.6 - 0)^2) / 2 = 0.18; three elements > 0.5
LOSS, COUNT = 0.18, 3


@pytest.fixture
def run_plain():
    main, startup, loss, count = _programs()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        yield lambda **kw: exe.run(main, feed=FEED, fetch_list=[loss, count], **kw)


def _check_conversions(loss_val, count_val):
    assert loss_val.shape == (1,) and count_val.shape == (1, 1)
    assert float(loss_val) == pytest.approx(LOSS) and int(count_val) == COUNT
    assert int(loss_val) == 0 and float(count_val) == 3.0
    assert complex(loss_val) == pytest.approx(complex(LOSS, 0))
    assert operator.index(count_val) == COUNT
    assert '%d: %.2f' % (count_val, loss_val) == '3: 0.18'
    assert '%.4f' % loss_val == '0.1800' and '%d' % count_val == '3'
    assert format(loss_val, '.3f') == '0.180' and '{:d}'.format(count_val) == '3'


def _check_plain(loss_val):
    assert isinstance(loss_val, np.ndarray) and loss_val.dtype == np.float32
    for result in (loss_val * 2, loss_val - 1, np.sqrt(loss_val), np.concatenate([loss_val, loss_val])):
        assert type(result) is np.ndarray
    back = pickle.loads(pickle.dumps(loss_val))
    assert type(back) is np.ndarray and back.shape == (1,)
    assert repr(loss_val).startswith('array(')


def test_executor_fetches_convert(run_plain):
    loss_val, count_val = run_plain()
    _check_conversions(loss_val, count_val)
    _check_plain(loss_val)


def test_rows_of_a_fetched_prediction_convert():
    """The last line of the book's fit_a_line: `print("%d: %.2f" % (idx, val))` for each row of a fetched [N, 1]."""
    main, startup, loss, _ = _programs()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        pred_name = main.global_block().ops[0].output('Out')[0]
        pred_val, = exe.run(main, feed=FEED, fetch_list=[pred_name])
    assert isinstance(pred_val, np.ndarray) and pred_val.shape == (2, 1)
    assert ['%d: %.2f' % (idx, val) for idx, val in enumerate(pred_val)] == ['0: 1.00', '1: 0.60']
    with pytest.raises(TypeError):
        float(pred_val)      # two elements: numpy's own error
    assert type(pred_val + 1) is np.ndarray


def test_return_numpy_false_gives_lodtensors_that_convert(run_plain):
    loss_t, count_t = run_plain(return_numpy=False)
    assert isinstance(loss_t, LoDTensor)
    assert float(loss_t) == pytest.approx(LOSS) and int(count_t) == COUNT
    assert '%.2f' % loss_t == '0.18' and format(count_t, 'd') == '3'
    assert type(np.array(loss_t)) is np.ndarray       # numpy's constructor always returns the base class


def test_scope_tensor_converts():
    main, startup, loss, _ = _programs()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        lr_name = [v.name for v in main.list_vars() if v.persistable and 'learning_rate' in v.name][0]
        lr = scope.find_var(lr_name).get_tensor()
        assert float(lr) == pytest.approx(0.01) and '%.3f' % lr == '0.010'


@pytest.mark.parametrize('merged', [True, False])
def test_parallel_executor_fetches_convert(merged):
    main, startup, loss, count = _programs()
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                                  places=fluid.cpu_places(1))
        loss_val, count_val = exe.run(compiled, feed=FEED, fetch_list=[loss, count], return_merged=merged)
        if not merged:
            loss_val, count_val = loss_val[0], count_val[0]
        _check_conversions(loss_val, count_val)
        _check_plain(loss_val)
        pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
        loss_val, count_val = pe.run(fetch_list=[loss.name, count.name], feed=FEED)
        assert float(loss_val) < LOSS and int(count_val) == COUNT     # one SGD step later
        assert '%.3f' % loss_val == '%.3f' % loss_val.item()
