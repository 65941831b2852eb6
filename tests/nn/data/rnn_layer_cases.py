"""paddle.nn's recurrent layers in static mode, recorded with Paddle 2.6.2 (record_rnn_layers.py) and replayed with
paddle_exec (tests/nn/test_rnn_layers.py): `run_cases(paddle)` builds each case with either framework's paddle
module, sets every parameter to fixed values, and returns the parameter names and shapes, the outputs, the final
states and the gradients of mean(y * y) + sum(mean(state)) with respect to the input and every parameter.
"""
import numpy as np


def _flat_states(st):
    if isinstance(st, (list, tuple)):
        return [leaf for s in st for leaf in _flat_states(s)]
    return [st]


def _layers(paddle):
    nn = paddle.nn
    return {
        'lstm_2_layers_bidirect': lambda: nn.LSTM(3, 4, num_layers=2, direction='bidirect'),
        'gru_time_major': lambda: nn.GRU(3, 4, time_major=True),
        'simple_rnn_relu_2_layers': lambda: nn.SimpleRNN(3, 4, activation='relu', num_layers=2),
        'simple_rnn_tanh_bidirectional': lambda: nn.SimpleRNN(3, 4, direction='bidirectional'),
        'rnn_gru_cell_reverse': lambda: nn.RNN(nn.GRUCell(3, 4), is_reverse=True),
        'rnn_simple_cell': lambda: nn.RNN(nn.SimpleRNNCell(3, 4)),
        'birnn_lstm_cells': lambda: nn.BiRNN(nn.LSTMCell(3, 4), nn.LSTMCell(3, 4)),
    }


def run_cases(paddle) -> dict:
    paddle.enable_static()
    rng = np.random.RandomState(3)
    xv = rng.uniform(-1, 1, (2, 5, 3)).astype('float32')
    out = {}
    for name, make in _layers(paddle).items():
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            x = paddle.static.data('x', [2, 5, 3], 'float32')
            x.stop_gradient = False
            layer = make()
            y, st = layer(x)
            states = _flat_states(st)
            loss = paddle.mean(y * y)
            for s in states:
                loss = loss + paddle.mean(s)
            params = layer.parameters()
            grads = paddle.static.gradients([loss], [x] + params)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            for k, p in enumerate(params):
                shape = np.array(scope.find_var(p.name).get_tensor()).shape
                value = np.random.RandomState(10 + k).uniform(-0.5, 0.5, shape).astype('float32')
                scope.find_var(p.name).get_tensor().set(value, paddle.CPUPlace())
            res = exe.run(main, feed={'x': xv}, fetch_list=[y] + states + grads)
        out[name] = {'params': [[p.name, list(p.shape)] for p in params], 'n_states': len(states),
                     'values': [np.asarray(r).tolist() for r in res]}
    return out
