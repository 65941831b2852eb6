"""Cases of paddle.* reductions, scans and order statistics (2.x names), recorded with Paddle 2.6.2 into stat.npz.
Inputs avoid ties where Paddle leaves the chosen index unspecified (kthvalue, nanmedian)."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(5)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


X = U(-2, 2, (3, 4))
POS = U(0.5, 1.5, (3, 4))
TIES = np.array([[1.0, 3, 3, 2, 3, 0], [2, 2, 1, 1, 5, 5]])
NANS = np.array([[1.0, np.nan, 3, 2], [np.nan, np.nan, 1, 4], [0.5, 2, -1, 7]])
INTS = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], 'int64')

CASES = []


def _trapz(y, x=None, dx=1.0, axis=-1):
    """numpy's trapezoid (np.trapz before numpy 2, np.trapezoid after)."""
    d = np.diff(x) if x is not None else dx
    y = np.moveaxis(y, axis, -1)
    return ((y[..., 1:] + y[..., :-1]) * d / 2.0).sum(-1)


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


add('amax_amin', lambda P, v: [P.amax(v['t'], axis=1), P.amin(v['t']), P.amax(v['x'], axis=[0, 1], keepdim=True)],
    {'t': TIES, 'x': X}, grads=['t', 'x'], grad_outs=(0, 1, 2), fd=False)
add('amax_fd', lambda P, v: [P.amax(v['x'], axis=0), P.amin(v['x'], axis=-1, keepdim=True)], {'x': X}, grads=['x'],
    grad_outs=(0, 1), ref=lambda f: [f['x'].max(0), f['x'].min(-1, keepdims=True)])
add('nansum_nanmean', lambda P, v: [P.nansum(v['n']), P.nansum(v['n'], axis=1), P.nanmean(v['n'], axis=0),
                                    P.nanmean(v['n'])],
    {'n': NANS}, ref=lambda f: [np.nansum(f['n']), np.nansum(f['n'], 1), np.nanmean(f['n'], 0),
                                np.nanmean(f['n'])])
add('nansum_grad', lambda P, v: [P.nansum(v['x'], axis=1), P.nanmean(v['x'], axis=0, keepdim=True)], {'x': X},
    grads=['x'], grad_outs=(0, 1))
add('count_nonzero', lambda P, v: [P.count_nonzero(v['z']), P.count_nonzero(v['z'], axis=1, keepdim=True)],
    {'z': np.array([[0.0, 1, 2], [0, 0, 3]])}, ref=lambda f: [np.count_nonzero(f['z']),
                                                            np.count_nonzero(f['z'], 1)[:, None]])
add('cumprod', lambda P, v: [P.cumprod(v['x'], dim=1), P.cumprod(v['z'], dim=0)],
    {'x': X, 'z': np.array([[1.5, 0.0, 2.0], [0.0, 3.0, -1.0], [2.0, 4.0, 0.5]])}, grads=['x', 'z'],
    grad_outs=(0, 1), ref=lambda f: [np.cumprod(f['x'], 1), np.cumprod(f['z'], 0)])
add('cummax_cummin', lambda P, v: list(P.cummax(v['t'], axis=1)) + list(P.cummin(v['t'], axis=1))
    + list(P.cummax(v['t'])), {'t': TIES}, grads=['t'], grad_outs=(0, 2, 4), fd=False)
add('cummax_fd', lambda P, v: [P.cummax(v['x'], axis=0)[0], P.cummin(v['x'], axis=-1)[0]], {'x': X}, grads=['x'],
    grad_outs=(0, 1), ref=lambda f: [np.maximum.accumulate(f['x'], 0), np.minimum.accumulate(f['x'], -1)])
add('logcumsumexp', lambda P, v: [P.logcumsumexp(v['x'], axis=1), P.logcumsumexp(v['x']),
                                  P.logcumsumexp(v['b'], axis=0)],
    {'x': X, 'b': np.array([[800.0, -800], [801, 0], [-np.inf, 1]])}, grads=['x'], grad_outs=(0, 1),
    ref=lambda f: [np.logaddexp.accumulate(f['x'], 1), np.logaddexp.accumulate(f['x'].reshape(-1)),
                   np.logaddexp.accumulate(f['b'], 0)])
add('median', lambda P, v: [P.median(v['x']), P.median(v['x'], axis=1), P.median(v['x'], axis=0, keepdim=True),
                            P.median(v['n'], axis=1)],
    {'x': X, 'n': NANS}, grads=['x'], grad_outs=(0, 1, 2),
    ref=lambda f: [np.median(f['x']), np.median(f['x'], 1), np.median(f['x'], 0, keepdims=True),
                   np.median(f['n'], 1)])
add('nanmedian', lambda P, v: [P.nanmedian(v['n'], axis=1), P.nanmedian(v['n']), P.nanmedian(v['x'], axis=[0, 1]),
                               P.nanmedian(v['x'], axis=0, keepdim=True)],
    {'n': NANS, 'x': X}, grads=['x'], grad_outs=(2, 3),
    ref=lambda f: [np.nanmedian(f['n'], 1), np.nanmedian(f['n']), np.median(f['x']),
                   np.median(f['x'], 0, keepdims=True)])
add('quantile', lambda P, v: [P.quantile(v['x'], 0.3), P.quantile(v['x'], [0.25, 0.75], axis=1),
                              P.quantile(v['x'], 0.5, axis=[0, 1], keepdim=True), P.quantile(v['n'], 0.4, axis=1),
                              P.nanquantile(v['n'], 0.4, axis=1)],
    {'x': X, 'n': NANS}, grads=['x'], grad_outs=(0, 1, 2),
    ref=lambda f: [np.quantile(f['x'], 0.3), np.quantile(f['x'], [0.25, 0.75], 1),
                   np.quantile(f['x'], 0.5, keepdims=True), np.quantile(f['n'], 0.4, 1),
                   np.nanquantile(f['n'], 0.4, 1)])
add('kthvalue', lambda P, v: list(P.kthvalue(v['x'], 2, axis=1)) + list(P.kthvalue(v['x'], 3, axis=0))
    + list(P.kthvalue(v['x'], 1)), {'x': X}, grads=['x'], grad_outs=(0, 2, 4),
    ref=lambda f: [np.sort(f['x'], 1)[:, 1], np.argsort(f['x'], 1)[:, 1]])
# 2.6.2's static kthvalue drops keepdim (its builder never passes it): numpy is the reference
add('kthvalue_keepdim', lambda P, v: P.kthvalue(v['x'], 3, axis=0, keepdim=True)[0], {'x': X}, grads=['x'],
    record=False, ref=lambda f: [np.sort(f['x'], 0)[2:3]])
add('mode', lambda P, v: list(P.mode(v['t'])) + list(P.mode(v['t'], axis=0, keepdim=True)), {'t': TIES},
    grads=['t'], grad_outs=(0, 2), fd=False)
add('histogram', lambda P, v: [P.histogram(v['x'], bins=4), P.histogram(v['x'], bins=3, min=-1, max=1),
                               P.histogram(v['i'], bins=5, min=0, max=10)], {'x': X, 'i': INTS},
    ref=lambda f: [np.histogram(f['x'], 4)[0], np.histogram(f['x'], 3, (-1, 1))[0],
                   np.histogram(f['i'], 5, (0, 10))[0]])
add('bincount', lambda P, v: [P.bincount(v['i']), P.bincount(v['i'], weights=v['w'], minlength=12)],
    {'i': INTS, 'w': U(0, 1, (10,))}, ref=lambda f: [np.bincount(f['i']), np.bincount(f['i'], f['w'], 12)])
add('searchsorted', lambda P, v: [P.searchsorted(v['s'], v['q']), P.searchsorted(v['s'], v['q'], right=True),
                                  P.searchsorted(v['s2'], v['q2'], out_int32=True), P.bucketize(v['q'], v['s'])],
    {'s': np.array([1.0, 2, 2, 4, 7]), 'q': np.array([[0.5, 2, 3], [7, 8, 4]]),
     's2': np.array([[1.0, 3, 5], [2, 4, 6]]), 'q2': np.array([[3.0, 6], [1, 4]])},
    ref=lambda f: [np.searchsorted(f['s'], f['q']), np.searchsorted(f['s'], f['q'], 'right')])
add('unique', lambda P, v: list(P.unique(v['i'], return_index=True, return_inverse=True, return_counts=True))
    + [P.unique(v['m'], axis=0), P.unique(v['m'], axis=1, return_inverse=True)[1], P.unique(v['x'])],
    {'i': INTS, 'm': np.array([[1, 2], [3, 4], [1, 2], [0, 5]], 'int32'), 'x': TIES},
    ref=lambda f: list(np.unique(f['i'], True, True, True)))
add('unique_consecutive', lambda P, v: list(P.unique_consecutive(v['i'], return_inverse=True, return_counts=True))
    + [P.unique_consecutive(v['m'], axis=0)], {'i': np.array([1, 1, 2, 2, 2, 1, 3, 3], 'int64'),
                                              'm': np.array([[1, 2], [1, 2], [3, 4], [1, 2]], 'int64')})
add('trapezoid', lambda P, v: [P.trapezoid(v['y']), P.trapezoid(v['y'], dx=0.5, axis=0),
                               P.trapezoid(v['y'], x=v['t']), P.cumulative_trapezoid(v['y'], axis=1),
                               P.cumulative_trapezoid(v['y'], x=v['t'])],
    {'y': X, 't': np.array([0.0, 0.5, 1.5, 3.0])}, grads=['y', 't'], grad_outs=(0, 1, 2, 3, 4),
    paddle_grads=False,    # 2.6.2's gathers along axis 1 give every row the first row's gradient (a bug)
    ref=lambda f: [_trapz(f['y']), _trapz(f['y'], dx=0.5, axis=0), _trapz(f['y'], f['t'])])
add('diff', lambda P, v: [P.diff(v['x']), P.diff(v['x'], n=2, axis=0), P.diff(v['x'], prepend=v['p'], append=v['p']),
                          P.diff(v['b'])],
    {'x': X, 'p': U(-1, 1, (3, 1)), 'b': np.array([True, False, False, True])}, grads=['x', 'p'], grad_outs=(0, 1, 2),
    ref=lambda f: [np.diff(f['x']), np.diff(f['x'], 2, 0), np.diff(f['x'], prepend=f['p'], append=f['p']),
                   np.diff(f['b'])])
# 2.6.2's static nan_to_num leaves the infinities (its full_like(x, inf) never compares equal): numpy is the
# reference
add('nan_to_num', lambda P, v: [P.nan_to_num(v['s']), P.nan_to_num(v['s'], nan=1.5, posinf=9.0, neginf=-9.0),
                                P.nan_to_num(P.cast(v['s'], 'float32'))],
    {'s': np.array([[1.0, np.nan, np.inf], [-np.inf, 0, 2]])}, record=False,
    ref=lambda f: [np.nan_to_num(f['s']), np.nan_to_num(f['s'], nan=1.5, posinf=9, neginf=-9)])
add('multigammaln', lambda P, v: [P.multigammaln(v['x'], 1), P.multigammaln(v['x'], 3)], {'x': POS + 1.5},
    grads=['x'], grad_outs=(0, 1))
add('renorm', lambda P, v: [P.renorm(v['x'], 2.0, 0, 1.5), P.renorm(v['x'], 1.0, 1, 2.0)], {'x': X}, grads=['x'],
    grad_outs=(0, 1))
