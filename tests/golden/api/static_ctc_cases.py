"""paddle.nn.functional.ctc_loss and paddle.nn.CTCLoss (2.6, static mode): the warpctc op on padded time-major
logits followed by the reductions Paddle 2.6 appends ('mean' divides each loss by its label length); forward values
and gradients of sum(out * proj), recorded with paddlepaddle 2.6.2 (record_api_cases.py)."""
import numpy as np

API = 'static'
RTOL, ATOL = 2e-5, 2e-6
MAX_T, BATCH, CLASSES, MAX_L = 6, 3, 5, 3


def _inputs(paddle, rng, dtype='float32'):
    logits = paddle.static.data(name='logits', shape=[MAX_T, BATCH, CLASSES], dtype=dtype)
    logits.stop_gradient = False
    labels = paddle.static.data(name='labels', shape=[BATCH, MAX_L], dtype='int32')
    input_lengths = paddle.static.data(name='input_lengths', shape=[BATCH], dtype='int64')
    label_lengths = paddle.static.data(name='label_lengths', shape=[BATCH], dtype='int64')
    feeds = {'logits': (rng.randn(MAX_T, BATCH, CLASSES) * 2).astype(dtype),
             'labels': np.array([[1, 2, 2], [3, 0, 0], [4, 4, 1]], 'int32'),
             'input_lengths': np.array([6, 2, 5], 'int64'), 'label_lengths': np.array([3, 1, 3], 'int64')}
    return (logits, labels, input_lengths, label_lengths), feeds


def case_ctc_loss_reductions(paddle, rng):
    F = paddle.nn.functional
    args, feeds = _inputs(paddle, rng)
    none = F.ctc_loss(*args, reduction='none')
    return {'fetch': [none, F.ctc_loss(*args), F.ctc_loss(*args, reduction='sum')], 'feeds': feeds, 'out': none,
            'wrt': [args[0]]}


def case_ctc_loss_norm_by_times_blank(paddle, rng):
    F = paddle.nn.functional
    args, feeds = _inputs(paddle, rng)
    feeds['labels'] = np.array([[1, 2, 2], [3, 1, 1], [4, 4, 1]], 'int32')
    out = F.ctc_loss(*args, blank=0, reduction='none', norm_by_times=True)
    return {'fetch': [out], 'feeds': feeds, 'out': out, 'wrt': [args[0]]}


def case_ctc_loss_layer_f64(paddle, rng):
    args, feeds = _inputs(paddle, rng, 'float64')
    feeds['labels'] = np.array([[0, 1, 2], [3, 3, 3], [2, 1, 0]], 'int32')
    loss = paddle.nn.CTCLoss(blank=4, reduction='sum')(*args)
    return {'fetch': [loss], 'feeds': feeds, 'out': loss, 'wrt': [args[0]]}
