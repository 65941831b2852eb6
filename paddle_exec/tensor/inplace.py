"""The in-place `*_` functions of Paddle 2.x (paddle.tanh_, paddle.reshape_, paddle.addmm_, ...) as 2.6.2 runs
them in static mode: a static graph has no in-place tensors, so each warns "In static graph mode, tanh_() is the
same as tanh() and does not perform inplace operation." and returns what the function without the underscore
returns (2.6.2's inplace_apis_in_dygraph_only). The three 2.6.2 runs only in dygraph (cauchy_, geometric_,
normal_: in-place random fills) are declined (_declined.py).
"""
from __future__ import annotations

import warnings

from . import complex as _complex
from . import creation, elementwise, gather_scatter, manipulation, math, matrix, ops, reduction, search

_NAMES = ['abs_', 'acos_', 'addmm_', 'atan_', 'bitwise_and_', 'bitwise_not_', 'bitwise_or_', 'bitwise_xor_', 'cast_',
          'cos_', 'cumprod_', 'cumsum_', 'digamma_', 'divide_', 'equal_', 'erf_', 'expm1_', 'floor_divide_',
          'floor_mod_', 'frac_', 'gcd_', 'greater_equal_', 'greater_than_', 'hypot_', 'i0_', 'index_add_',
          'index_fill_', 'index_put_', 'lcm_', 'ldexp_', 'less_equal_', 'less_than_', 'lgamma_', 'log10_', 'log2_',
          'log_', 'logical_and_', 'logical_not_', 'logical_or_', 'logit_', 'masked_fill_', 'mod_', 'multigammaln_',
          'multiply_', 'nan_to_num_', 'neg_', 'polygamma_', 'pow_', 'remainder_', 'renorm_', 'reshape_', 'scatter_',
          'sin_', 'sinh_', 'square_', 'squeeze_', 't_', 'tan_', 'tanh_', 'transpose_', 'tril_', 'triu_', 'trunc_',
          'unsqueeze_', 'where_']
_MODULES = (math, ops, elementwise, manipulation, creation, matrix, reduction, gather_scatter, search, _complex)


def _base(name: str):
    for module in _MODULES:
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    raise AttributeError('no out-of-place function %r for %s_' % (name, name))


def in_place_variant(name: str, base):
    """The static-mode `name` (ending in '_') of the function `base`: 2.6.2's warning, then base's result. Used here
    and by paddle.nn.functional (relu_, elu_, ...)."""
    def api(*args, **kwargs):
        warnings.warn('In static graph mode, %s() is the same as %s() and does not perform inplace operation.'
                      % (name, name[:-1]))
        return base(*args, **kwargs)
    api.__name__ = api.__qualname__ = name
    api.__doc__ = 'paddle.%s: %s (no in-place update in a static graph; see the module docstring).' % (name,
                                                                                                     name[:-1])
    return api


globals().update({name: in_place_variant(name, _base(name[:-1])) for name in _NAMES})
__all__ = list(_NAMES)
