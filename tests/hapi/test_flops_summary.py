"""paddle.flops of static Programs and paddle.summary of a Layer, against what Paddle 2.6.2 printed and returned
for the same programs (tests/golden/api/hapi.npz, recorded by record_hapi.py)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import paddle_exec as paddle
from tests.golden.api import hapi_cases as C

GOLDEN = dict(np.load(os.path.join(os.path.dirname(C.__file__), 'hapi.npz')))


@pytest.fixture(scope='module')
def programs():
    with paddle.utils.unique_name.guard():
        return C.flops_programs(paddle)


@pytest.mark.parametrize('name', ['lenet', 'conv_bn'])
def test_flops_count_and_table_as_paddle_262(programs, name, capsys):
    assert paddle.flops(programs[name], [1, 1, 28, 28]) == int(GOLDEN['flops.' + name])
    assert capsys.readouterr().out == ''
    assert paddle.flops(programs[name], [1, 1, 28, 28], print_detail=True) == int(GOLDEN['flops.' + name])
    assert capsys.readouterr().out == str(GOLDEN['flops.%s.table' % name])


def test_flops_of_a_layer_is_refused_as_in_static_262():
    with paddle.utils.unique_name.guard():
        with pytest.raises(TypeError, match='dygraph mode'):
            paddle.flops(C.make_lenet(paddle), [1, 1, 28, 28])
    with pytest.raises(TypeError, match='must be an instance of paddle.nn.Layer or paddle.static.Program'):
        paddle.flops('net', [1, 1])


def test_flops_table_cells_are_centred():
    from paddle_exec.hapi.static_flops import Table
    table = Table(['A', 'Name'])
    table.add_row(['conv2d', 7])
    with pytest.raises(ValueError, match='should be equal the length of table heads'):
        table.add_row([1])


def test_summary_table_and_counts_as_paddle_262(capsys):
    main = paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, paddle.static.Program()):
        net = C.make_lenet(paddle)
        ops_before = len(main.global_block().ops)
        with pytest.warns(UserWarning, match='created in static graph mode'):
            info = paddle.summary(net, (1, 1, 28, 28))
    assert capsys.readouterr().out == str(GOLDEN['summary.lenet'])
    assert [info['total_params'], info['trainable_params']] == list(GOLDEN['summary.lenet.params'])
    assert len(main.global_block().ops) == ops_before        # the user's program is left as it was


def test_summary_input_forms_and_checks(capsys):
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(paddle.static.Program(),
                                                                       paddle.static.Program()):
        net = C.make_mlp(paddle)
        spec = paddle.static.InputSpec([None, 4], 'float32', 'x')
        with pytest.warns(UserWarning):
            assert paddle.summary(net, spec)['total_params'] == 4 * 8 + 8 + 8 * 3 + 3
            assert paddle.summary(net, input=paddle.static.data('x', [2, 4]))['trainable_params'] == 67
            model = paddle.Model(net, inputs=[spec])
            assert model.summary()['total_params'] == 67
        assert '[[1, 4]]' in capsys.readouterr().out
        with pytest.raises(ValueError, match='input_size and input cannot be None at the same time'):
            paddle.summary(net)
        with pytest.raises(ValueError, match='only the dim of batch_size can be None or -1'), \
                pytest.warns(UserWarning):
            paddle.summary(net, (None, -1))
