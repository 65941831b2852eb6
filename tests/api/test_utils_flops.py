"""paddle.utils.flops (one op's FLOPs from its input shapes and attributes) against the values Paddle 2.6.2's
paddle.utils.flops.flops gave for the same arguments (recorded as literals below)."""
from __future__ import annotations

import pytest

import paddle_exec as paddle

CASES = [   # (op type, input shapes, attrs, 2.6.2's count)
    ('conv2d', {'Input': [[2, 3, 16, 16]], 'Filter': [[8, 3, 3, 3]], 'Bias': []},
     {'paddings': [1, 1], 'strides': [1, 1], 'dilations': [1, 1], 'groups': 1}, 221184),
    ('conv2d', {'Input': [[2, 4, 9, 9]], 'Filter': [[4, 2, 3, 3]], 'Bias': [[4]]},
     {'paddings': 0, 'strides': 2, 'dilations': 1, 'groups': 2}, 4736),
    ('matmul_v2', {'X': [[3, 4, 5]], 'Y': [[5, 6]]}, {'trans_x': False, 'trans_y': False}, 720),
    ('matmul_v2', {'X': [[2, 1, 5, 4]], 'Y': [[3, 6, 5]]}, {'trans_x': True, 'trans_y': True}, 1440),
    ('matmul', {'X': [[7, 5]], 'Y': [[5, 2]]}, {'transpose_X': False}, 140),
    ('elementwise_add', {'X': [[4, 1, 3]], 'Y': [[5, 1]]}, {}, 60),
    ('elementwise_mul', {'X': [[4, 3]], 'Y': [[3]]}, {}, 12),
    ('elementwise_div', {'X': [[2, 3]], 'Y': [[2, 3]]}, {}, 6),
    ('gelu', {'X': [[4, 5]]}, {}, 100),
    ('layer_norm', {'X': [[4, 5]]}, {'epsilon': 1e-5}, 160),
    ('layer_norm', {'X': [[4, 5]]}, {'epsilon': 0}, 140),
    ('relu', {'X': [[3, 3]]}, {}, 9), ('silu', {'X': [[2, 2]]}, {}, 4), ('elu', {'X': [[2]]}, {}, 2),
    ('leaky_relu', {'X': [[6]]}, {}, 6), ('prelu', {'X': [[6, 2]]}, {}, 12), ('relu6', {'X': [[1, 2]]}, {}, 2),
    ('softmax', {'X': [[4, 5]]}, {}, 60), ('pool', {'X': [[2, 3, 4]]}, {}, 24),
    ('dropout', {'X': [[9]]}, {}, 0), ('reshape2', {'X': [[9]]}, {}, 0), ('transpose2', {'X': [[9]]}, {}, 0),
    ('c_embedding', {}, {}, 0),
    ('pool2d', {'X': [[9]]}, {}, 0),          # no rule
    ('relu', {}, {}, 0),                      # the rule fails on the shapes: 0
]


@pytest.mark.parametrize('op_type, shapes, attrs, expected', CASES)
def test_op_flops_as_paddle_262(op_type, shapes, attrs, expected):
    assert paddle.utils.flops.flops(op_type, shapes, attrs) == expected


def test_register_flops_adds_a_rule():
    from paddle_exec.utils import flops as flops_module

    @flops_module.register_flops('my_op_for_test')
    def _(shapes, attrs):
        return flops_module.prod(shapes['X'][0]) * attrs['k']
    try:
        assert flops_module.flops('my_op_for_test', {'X': [[2, 3]]}, {'k': 4}) == 24
    finally:
        del flops_module._FLOPS_COMPUTE_FUNC_MAP['my_op_for_test']
