"""Runs one API case on a Paddle-like module: real Paddle (to record) or paddle_exec (to compare).

A case is a small static program: data variables fed with fixed arrays, `build(P, v)` calling the API under test
(P is `paddle` / `paddle_exec` for 2.x cases, `paddle.fluid` / `paddle_exec.fluid` for fluid 1.8 cases; v maps
feed names to their data variables), returning one output or a list of them. With `grads`, the program also
gets `loss = sum_k sum(out_k * w_k)` over the float outputs named by `grad_outs` (w_k fixed arrays of the
outputs' run-time shapes, found by a first forward run) and fetches d loss / d v for each name in `grads`.

`run(P, case, backend)` returns {'out0': ..., 'out1': ..., 'grad_x': ..., 'loss': ...} as numpy arrays; a complex
output is stored as it is. The recorder (record.py) saves these under '<case name>/<key>' in one .npz per family;
tests/api/test_golden_api.py runs every case on paddle_exec and compares.

This file is imported by Python 3.8 with Paddle 1.8.5 as well: plain syntax, no paddle import at the top.
"""
import numpy as np

GRAD_WEIGHT_SEED = 1234


class Case(object):
    """One recorded program. `tol` is (rtol, atol) for the comparison; `ref(feeds) -> list of arrays` an optional
    numpy reference for the outputs; `fd` whether the gradient is also checked against finite differences of
    the forward program (float64 inputs only)."""

    def __init__(self, name, build, feeds, grads=(), grad_outs=(0,), tol=(1e-5, 1e-6), ref=None, fd=True,
                 api='paddle', check=None, paddle_grads=True, record=True):
        self.name = name
        self.build = build
        self.feeds = feeds
        self.grads = tuple(grads)
        self.grad_outs = tuple(grad_outs)
        self.tol = tol
        self.ref = ref
        self.fd = fd
        self.api = api
        self.check = check      # outputs compared; None: all
        # False where Paddle's static graph has no gradient for the op (2.6.2's diag_v2): the recording keeps the
        # outputs only, and paddle_exec's gradient is checked against finite differences alone
        self.paddle_grads = paddle_grads
        # False where Paddle's static graph computes something wrong (a bug of that version): no recording, the
        # case is checked against its numpy reference and finite differences
        self.record = record

    def __repr__(self):
        return 'Case(%s)' % self.name


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _weights(shapes):
    rng = np.random.RandomState(GRAD_WEIGHT_SEED)
    return [rng.uniform(-1.0, 1.0, s) for s in shapes]


def _program(P, case, weight_specs):
    """(main, startup, outputs, loss, grads) of the case; with weight_specs ([(shape, dtype)] of the outputs in
    grad_outs), also the loss and the gradients."""
    fluid_api = case.api == 'fluid'
    static = P if fluid_api else P.static
    main, startup = static.Program(), static.Program()
    loss, grads = None, []
    with static.program_guard(main, startup):
        v = {}
        for name, arr in case.feeds.items():
            arr = np.asarray(arr)
            if fluid_api:
                var = P.data(name, list(arr.shape), str(arr.dtype))
            else:
                var = static.data(name, list(arr.shape), str(arr.dtype))
            var.stop_gradient = name not in case.grads
            v[name] = var
        outs = _as_list(case.build(P, v))
        if weight_specs is not None and case.grads:
            terms = []
            for k, (shape, dtype) in zip(case.grad_outs, weight_specs):
                w = (P.data if fluid_api else static.data)('w_%d' % k, list(shape), dtype)
                w.stop_gradient = True
                if fluid_api:
                    terms.append(P.layers.reduce_sum(P.layers.elementwise_mul(outs[k], w)))
                else:
                    terms.append(P.sum(P.multiply(outs[k], w)))
            loss = terms[0]
            for t in terms[1:]:
                loss = (P.layers.elementwise_add(loss, t) if fluid_api else P.add(loss, t))
            grads = (P.gradients if fluid_api else static.gradients)([loss], [v[n] for n in case.grads])
    return main, startup, outs, loss, grads


def _grad_program(P, case, forward_values):
    """The program with loss and gradients, and the weights' feed, for the forward run's output values."""
    specs = [(np.shape(forward_values[k]), str(np.asarray(forward_values[k]).dtype)) for k in case.grad_outs]
    weights = _weights([shape for shape, _ in specs])
    main, startup, _, loss, grads = _program(P, case, specs)
    wfeed = {'w_%d' % k: w.astype(dtype) for k, w, (_, dtype) in zip(case.grad_outs, weights, specs)}
    return main, startup, loss, grads, wfeed


def _executor(P, case):
    return (P if case.api == 'fluid' else P.static).Executor(P.CPUPlace())


def run(P, case, with_grads=True):
    """Runs the case on module P; returns the named results (see the module docstring)."""
    feed = {k: np.asarray(a) for k, a in case.feeds.items()}
    main, startup, outs, _, _ = _program(P, case, None)
    exe = _executor(P, case)
    exe.run(startup)
    got = exe.run(main, feed=feed, fetch_list=outs)
    result = {'out%d' % i: np.asarray(g) for i, g in enumerate(got)}
    if case.grads and with_grads:
        main, startup, loss, grads, wfeed = _grad_program(P, case, got)
        wfeed.update(feed)
        exe.run(startup)
        fetched = exe.run(main, feed=wfeed, fetch_list=[loss] + list(grads))
        result['loss'] = np.asarray(fetched[0])
        for name, g in zip(case.grads, fetched[1:]):
            result['grad_' + name] = np.asarray(g)
    return result


def loss_of(P, case):
    """A function feeds -> loss value, running the case's forward program with its weights (for finite
    differences); the weights come from one forward run on the case's own feeds."""
    feed = {k: np.asarray(a) for k, a in case.feeds.items()}
    main, startup, outs, _, _ = _program(P, case, None)
    exe = _executor(P, case)
    exe.run(startup)
    got = exe.run(main, feed=feed, fetch_list=outs)
    main, startup, loss, _, wfeed = _grad_program(P, case, got)
    exe.run(startup)

    def f(values):
        fetched = exe.run(main, feed=dict(wfeed, **values), fetch_list=[loss])
        return float(np.asarray(fetched[0]).reshape(-1)[0])
    return f
