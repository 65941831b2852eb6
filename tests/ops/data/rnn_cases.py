"""The recurrent-op cases recorded with Paddle 1.8.5 (record_rnn_ops.py) and replayed with paddle_exec
(tests/ops/test_rnn_ops.py): `cases(fluid)` builds the table with either framework's fluid module, in the format of
sequence_cases.py (name -> (inputs, build(vars) -> output or (output, more fetches), what to differentiate)), and
sequence_cases.run_case runs a case.

The gradient recorded is that of sum(out * w) for the first output, w a fixed random projection.
"""
from sequence_cases import arr


def cases(fluid) -> dict:
    L = fluid.layers
    CASES = {}

    def case(name, inputs, build, grads=()):
        CASES[name] = (inputs, build, grads)

    def both(outputs):
        return tuple(outputs)      # all fetched; the first one differentiated

    lod = [[2, 1, 4]]
    x8 = arr((7, 8), 1)
    case('lstm', {'x': (x8, lod)}, lambda v: both(L.dynamic_lstm(v['x'], 8)), ['x', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_reverse_no_peepholes', {'x': (x8, lod)},
         lambda v: both(L.dynamic_lstm(v['x'], 8, use_peepholes=False, is_reverse=True)),
         ['x', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_activations', {'x': (x8, lod)},
         lambda v: both(L.dynamic_lstm(v['x'], 8, gate_activation='sigmoid', cell_activation='relu',
                                       candidate_activation='identity')), ['x', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_h0_c0', {'x': (x8, lod), 'h0': (arr((3, 2), 2), None), 'c0': (arr((3, 2), 3), None)},
         lambda v: both(L.dynamic_lstm(v['x'], 8, h_0=v['h0'], c_0=v['c0'])),
         ['x', 'h0', 'c0', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_h0_c0_reverse', {'x': (x8, lod), 'h0': (arr((3, 2), 2), None), 'c0': (arr((3, 2), 3), None)},
         lambda v: both(L.dynamic_lstm(v['x'], 8, h_0=v['h0'], c_0=v['c0'], is_reverse=True)),
         ['x', 'h0', 'c0', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_empty_sequence', {'x': (arr((5, 8), 4), [[2, 0, 3]])}, lambda v: both(L.dynamic_lstm(v['x'], 8)),
         ['x', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_frame8', {'x': (arr((9, 32), 5), [[4, 5]])}, lambda v: both(L.dynamic_lstm(v['x'], 32)),
         ['x', 'lstm_0.w_0', 'lstm_0.b_0'])
    # Paddle 1.8.5's AVX kernel (float32, frame size a multiple of 8) loses the cell-state gradient: the same case
    # in float64 (the plain kernel) is the reference for the gradients (test_rnn_ops.py)
    case('lstm_frame8_float64', {'x': (arr((9, 32), 5).astype('float64'), [[4, 5]])},
         lambda v: both(L.dynamic_lstm(v['x'], 32, dtype='float64')), ['x', 'lstm_0.w_0', 'lstm_0.b_0'])
    case('lstm_lod2', {'x': (arr((6, 8), 6), [[1, 2], [2, 3, 1]])}, lambda v: both(L.dynamic_lstm(v['x'], 8)))
    case('lstmp', {'x': (x8, lod)}, lambda v: both(L.dynamic_lstmp(v['x'], 8, 3)),
         ['x', 'lstmp_0.w_0', 'lstmp_0.w_1', 'lstmp_0.b_0'])
    case('lstmp_identity_reverse', {'x': (x8, lod)},
         lambda v: both(L.dynamic_lstmp(v['x'], 8, 3, proj_activation='identity', is_reverse=True,
                                        use_peepholes=False)),
         ['x', 'lstmp_0.w_0', 'lstmp_0.w_1', 'lstmp_0.b_0'])
    case('lstmp_relu_cell', {'x': (x8, lod)},
         lambda v: both(L.dynamic_lstmp(v['x'], 8, 3, cell_activation='relu', proj_activation='tanh')),
         ['x', 'lstmp_0.w_0', 'lstmp_0.w_1', 'lstmp_0.b_0'])
    case('lstmp_clips', {'x': (x8 * 3, lod)},
         lambda v: both(L.dynamic_lstmp(v['x'], 8, 3, cell_clip=0.5, proj_clip=0.3)),
         ['x', 'lstmp_0.w_0', 'lstmp_0.w_1', 'lstmp_0.b_0'])
    case('lstmp_h0_c0', {'x': (x8, lod), 'h0': (arr((3, 3), 7), None), 'c0': (arr((3, 2), 8), None)},
         lambda v: both(L.dynamic_lstmp(v['x'], 8, 3, h_0=v['h0'], c_0=v['c0'])),
         ['x', 'h0', 'c0', 'lstmp_0.w_0', 'lstmp_0.w_1', 'lstmp_0.b_0'])
    x6 = arr((7, 6), 9)
    case('gru', {'x': (x6, lod)}, lambda v: L.dynamic_gru(v['x'], 2), ['x', 'gru_0.w_0', 'gru_0.b_0'])
    case('gru_reverse_origin', {'x': (x6, lod)}, lambda v: L.dynamic_gru(v['x'], 2, is_reverse=True, origin_mode=True),
         ['x', 'gru_0.w_0', 'gru_0.b_0'])
    case('gru_activations', {'x': (x6, lod)},
         lambda v: L.dynamic_gru(v['x'], 2, gate_activation='tanh', candidate_activation='relu'),
         ['x', 'gru_0.w_0', 'gru_0.b_0'])
    case('gru_h0', {'x': (x6, lod), 'h0': (arr((3, 2), 10), None)}, lambda v: L.dynamic_gru(v['x'], 2, h_0=v['h0']),
         ['x', 'h0', 'gru_0.w_0', 'gru_0.b_0'])
    case('gru_h0_without_its_gradient', {'x': (x6, lod), 'h0': (arr((3, 2), 10), None)},
         lambda v: L.dynamic_gru(v['x'], 2, h_0=v['h0']), ['x', 'gru_0.w_0', 'gru_0.b_0'])
    case('gru_no_bias_frame8', {'x': (arr((9, 24), 11), [[5, 4]])},
         lambda v: L.dynamic_gru(v['x'], 8, bias_attr=False), ['x', 'gru_0.w_0'])
    def lstm_unit(v, **kw):
        # Paddle 1.8's lstm_unit_grad needs the gradients of both outputs: the case uses h + 2 c
        h, c = L.lstm_unit(v['x'], v['h'], v['c'], **kw)
        return L.elementwise_add(h, L.scale(c, 2.0)), h, c

    units = {'x': (arr((3, 4), 12), None), 'h': (arr((3, 2), 13), None), 'c': (arr((3, 2), 14), None)}
    case('lstm_unit', units, lambda v: lstm_unit(v, forget_bias=0.5), ['x', 'h', 'c', 'fc_0.w_0', 'fc_0.b_0'])
    case('lstm_unit_named', units, lambda v: lstm_unit(v, param_attr=fluid.ParamAttr(name='unit_w'), name='unit'),
         ['x', 'h', 'c', 'unit_w'])
    case('gru_unit', {'x': (arr((3, 6), 15), None), 'h': (arr((3, 2), 16), None)},
         lambda v: both(L.gru_unit(v['x'], v['h'], 6)), ['x', 'h', 'gru_unit_0.w_0', 'gru_unit_0.b_0'])
    case('gru_unit_origin_no_bias', {'x': (arr((3, 6), 15), None), 'h': (arr((3, 2), 16), None)},
         lambda v: both(L.gru_unit(v['x'], v['h'], 6, bias_attr=False, origin_mode=True,
                                   activation='relu', gate_activation='tanh')), ['x', 'h', 'gru_unit_0.w_0'])
    return CASES
