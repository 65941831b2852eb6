"""The recurrent building blocks (DynamicRNN, StaticRNN, While with gradients, the LoD rank table ops) recorded with
Paddle 1.8.5 (record_rnn_blocks.py) and replayed with paddle_exec (tests/ops/test_rnn_blocks.py), in the format of
sequence_cases.py: name -> (inputs, build(vars) -> output or (output, more fetches), what to differentiate).

The gradient recorded is that of sum(out * w) for the first output, w a fixed random projection.
"""
import numpy as np
from sequence_cases import arr


def cases(fluid) -> dict:
    L = fluid.layers
    CF = fluid.layers.control_flow          # 1.8 keeps the rank-table layers out of fluid.layers
    CASES = {}

    def case(name, inputs, build, grads=()):
        CASES[name] = (inputs, build, grads)

    def dynamic_rnn(v, memory_init=None, reverse_static=False):
        drnn = L.DynamicRNN()
        with drnn.block():
            w = drnn.step_input(v['x'])
            st = drnn.static_input(v['s'])
            if memory_init is None:
                mem = drnn.memory(shape=[4], value=0.5)
            else:
                mem = drnn.memory(init=v[memory_init], need_reorder=True)
            h = L.fc([w, mem, st], 4, act='tanh')
            drnn.update_memory(mem, h)
            drnn.output(h, L.scale(h, 2.0))
        out, doubled = drnn()
        return out, doubled, L.sequence_last_step(out)

    lod = [[2, 4, 1, 3]]
    x = arr((10, 3), 1)
    s = arr((4, 2), 2)
    case('dynamic_rnn', {'x': (x, lod), 's': (s, None)}, dynamic_rnn, ['x', 's', 'fc_0.w_0', 'fc_0.w_1', 'fc_0.w_2',
                                                                       'fc_0.b_0'])
    case('dynamic_rnn_memory_init', {'x': (x, lod), 's': (s, None), 'h0': (arr((4, 4), 3), None)},
         lambda v: dynamic_rnn(v, 'h0'), ['x', 's', 'h0', 'fc_0.w_1'])

    def dynamic_rnn_lstm(v):
        drnn = L.DynamicRNN()
        with drnn.block():
            w = drnn.step_input(v['x'])
            h_prev = drnn.memory(shape=[3])
            c_prev = drnn.memory(shape=[3])
            h, c = L.lstm_unit(w, h_prev, c_prev)
            drnn.update_memory(h_prev, h)
            drnn.update_memory(c_prev, c)
            drnn.output(h)
        return drnn()
    case('dynamic_rnn_lstm_unit', {'x': (x, lod)}, dynamic_rnn_lstm, ['x', 'fc_0.w_0', 'fc_0.b_0'])

    def static_rnn(v):
        rnn = L.StaticRNN()
        with rnn.step():
            w = rnn.step_input(v['x'])
            prev = rnn.memory(init=v['h0'])
            c = rnn.memory(shape=[-1, 5], batch_ref=w, init_value=0.25)
            h = L.fc([w, prev], 5, act='tanh')
            c2 = L.elementwise_mul(c, h) + 0.1
            rnn.update_memory(prev, h)
            rnn.update_memory(c, c2)
            rnn.step_output(h)
            rnn.step_output(c2)
        out, cs = rnn()
        return out, cs
    case('static_rnn', {'x': (arr((4, 2, 3), 4), None), 'h0': (arr((2, 5), 5), None)}, static_rnn,
         ['x', 'h0', 'fc_0.w_0', 'fc_0.w_1', 'fc_0.b_0'])

    def while_square(v):
        i = L.fill_constant([1], 'int64', 0)
        three = L.fill_constant([1], 'int64', 3)
        _, acc = L.while_loop(lambda i, a: L.less_than(i, three),
                              lambda i, a: [L.increment(i, 1, in_place=False), L.tanh(a * v['y'])], [i, v['x']])
        return acc
    case('while_loop_gradient', {'x': (arr((2, 3), 6), None), 'y': (arr((2, 3), 7), None)}, while_square,
         ['x', 'y'])

    def rank_table_ops(v):
        table = CF.lod_rank_table(v['x'])
        array = CF.lod_tensor_to_array(v['x'], table)
        back = CF.array_to_lod_tensor(array, table)
        first = L.array_read(array, L.fill_constant([1], 'int64', 0))
        reordered = L.reorder_lod_tensor_by_rank(v['s'], table)
        shrunk = CF.shrink_memory(reordered, L.fill_constant([1], 'int64', 2), table)
        return (L.elementwise_mul(back, back), first, reordered, shrunk, CF.max_sequence_len(table),
                L.array_length(array))
    case('rank_table_ops', {'x': (x, lod), 's': (s, None)}, rank_table_ops, ['x'])

    def reorder_lod(v):
        table = CF.lod_rank_table(v['y'])
        return L.reorder_lod_tensor_by_rank(v['x'], table)
    case('reorder_lod_tensor_by_rank_lod', {'x': (arr((6, 2), 8), [[1, 3, 2]]), 'y': (arr((7, 1), 9), [[1, 2, 4]])},
         reorder_lod, ['x'])

    def cell_rnn(cell_type, **kw):
        def build(v):
            cell = (L.GRUCell(4) if cell_type == 'gru' else L.LSTMCell(4, forget_bias=0.5))
            seq = {'sequence_length': v['lens']} if 'lens' in v else {}
            out, final = L.rnn(cell, v['x'], **seq, **kw)
            return (out,) + tuple(final if isinstance(final, list) else [final])
        return build
    xb = arr((3, 5, 2), 10)              # batch 3, 5 steps, width 2
    lens = (np.array([5, 2, 4], 'int64'), None)
    gru_params = ['GRUCell/BasicGRUUnit_0.w_0', 'GRUCell/BasicGRUUnit_0.w_1', 'GRUCell/BasicGRUUnit_0.b_0',
                  'GRUCell/BasicGRUUnit_0.b_1']
    lstm_params = ['LSTMCell/BasicLSTMUnit_0.w_0', 'LSTMCell/BasicLSTMUnit_0.b_0']
    case('rnn_gru_cell', {'x': (xb, None)}, cell_rnn('gru'), ['x'] + gru_params)
    case('rnn_lstm_cell_reverse', {'x': (xb, None)}, cell_rnn('lstm', is_reverse=True), ['x'] + lstm_params)
    case('rnn_gru_cell_sequence_length', {'x': (xb, None), 'lens': lens}, cell_rnn('gru'), ['x'] + gru_params)
    case('rnn_lstm_cell_time_major_lengths', {'x': (xb, None), 'lens': (np.array([3, 1, 2, 3, 2], 'int64'), None)},
         cell_rnn('lstm', time_major=True), ['x'] + lstm_params)

    def basic(kind, **kw):
        def build(v):
            lens = v.get('lens')
            if kind == 'gru':
                out, last = fluid.contrib.basic_gru(v['x'], v.get('h0'), 4, sequence_length=lens, **kw)
                return out, last
            out, last_h, last_c = fluid.contrib.basic_lstm(v['x'], v.get('h0'), v.get('c0'), 4,
                                                           sequence_length=lens, **kw)
            return out, last_h, last_c
        return build
    case('basic_gru_2_layers_bidirectional', {'x': (xb, None), 'lens': lens},
         basic('gru', num_layers=2, bidirectional=True),
         ['x', 'basic_gru_layers_0/BasicGRUUnit_0.w_0', 'basic_gru_reverse_layers_1/BasicGRUUnit_0.b_1'])
    case('basic_gru_init_hidden', {'x': (xb, None), 'h0': (arr((1, 3, 4), 11), None)}, basic('gru'),
         ['x', 'h0'])
    case('basic_lstm_2_layers', {'x': (xb, None), 'lens': lens}, basic('lstm', num_layers=2),
         ['x', 'basic_lstm_layers_1/BasicLSTMUnit_0.w_0'])
    case('basic_lstm_bidirectional_init', {'x': (xb, None), 'h0': (arr((2, 3, 4), 12), None),
                                           'c0': (arr((2, 3, 4), 13), None)},
         basic('lstm', bidirectional=True, batch_first=True), ['x', 'h0', 'c0'])
    return CASES
