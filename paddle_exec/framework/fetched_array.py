"""FetchedArray: the ndarray the executors return, whose one-element arrays convert to Python numbers as numpy 1.x
did.

Paddle 1.8 fetches a mean loss with shape [1], and its scripts write `float(loss)`, `int(acc)`, `'%.4f' % loss`,
`'%d' % count` and `'{:.4f}'.format(loss)`; the book's fit_a_line prints `"%d: %.2f" % (idx, val)` for each row
`val` (shape [1]) of a fetched [N, 1] prediction. numpy 2.x refuses the first four for arrays with ndim > 0
("only 0-dimensional arrays can be converted to Python scalars"), and `format()` with a spec never worked on arrays.
The executors hand fetched arrays back as views of this class (those of one element, and those of two or more
dimensions, whose rows are arrays), so those scripts keep working on any numpy: a fetched value and every view of
it (a row, a slice, a reshape) converts when it holds exactly one element. A 1-d fetch of several elements stays
a plain array (the very object the run produced): iterating it already gives numpy scalars.

Everything else is a plain ndarray: the class adds no state and is a view of the fetched array (no copy).
- conversions, for exactly one element: `float`, `int`, `complex`, `operator.index` (integer dtypes only, as
  Python's own `index`), `round`, `%` formatting (`%f`, `%d`, `%s`, ...) and `format(x, spec)`. An empty spec
  formats the array as numpy does, so `print(loss)` and `'{}'.format(loss)` still show `[0.5]`. Any other size
  raises numpy's own errors.
- results: ufuncs and operators (`loss * 2`, `np.exp(loss)`, `loss.mean()`) return plain ndarrays or numpy
  scalars (`__array_wrap__`), pickling stores a plain ndarray (the unpickled value does not need paddle_exec),
  `repr` reads `array([...])`, and `np.save` / `np.array(x)` / `np.asarray(x)` give plain arrays as always.
- views and copies keep the class (`pred[0]`, `loss[:]`, `loss.reshape(1, 1)`, `loss.copy()`,
  `loss.astype('float64')`): numpy makes them without asking the class; that is what makes the rows convert.

Cost: one view creation per fetched array (the benchmark runner's `fetch` row; docs/compat.md).
"""
from __future__ import annotations

import numpy as np

_INDEX_KINDS = 'iu'


class FetchedArray(np.ndarray):
    """A fetched array: a plain ndarray whose one-element values `float()`, `int()`, `%` and `format()` accept."""

    def __float__(self) -> float:
        if self.size != 1:
            return np.ndarray.__float__(self)
        return float(self.item())

    def __int__(self) -> int:
        if self.size != 1:
            return np.ndarray.__int__(self)
        return int(self.item())

    def __complex__(self) -> complex:
        if self.size != 1:
            return np.ndarray.__complex__(self)
        return complex(self.item())

    def __index__(self) -> int:
        if self.size != 1 or self.dtype.kind not in _INDEX_KINDS:
            raise TypeError('only integer scalar arrays can be converted to a scalar index')
        return int(self.item())

    def __round__(self, ndigits: int | None = None):
        if self.size != 1:
            raise TypeError("type numpy.ndarray doesn't define __round__ method")
        return round(self.item(), ndigits)

    def __format__(self, spec: str) -> str:
        if spec and self.size == 1:
            return format(self.item(), spec)
        return np.ndarray.__format__(self.view(np.ndarray), spec)

    def __repr__(self) -> str:
        return repr(self.view(np.ndarray))

    def __reduce__(self):
        return self.view(np.ndarray).__reduce__()

    def __reduce_ex__(self, protocol):
        return self.view(np.ndarray).__reduce_ex__(protocol)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        if return_scalar:
            return array[()]
        return array.view(np.ndarray) if isinstance(array, FetchedArray) else array


def fetched_view(array: np.ndarray) -> np.ndarray:
    """`array` as a FetchedArray view when one of its values or views can be a one-element array of ndim > 0: it
    holds one element, or it has two or more dimensions (its rows are arrays). Otherwise `array` itself: 0-d
    arrays convert already, a 1-d array of several elements yields numpy scalars when iterated, and subclasses of
    the caller's own stay what they are."""
    if type(array) is np.ndarray and views_when_fetched(array.ndim, array.size):
        return array.view(FetchedArray)
    return array


def views_when_fetched(ndim: int, size: int) -> bool:
    """Whether a fetched ndarray of this rank and size is handed back as a FetchedArray view (`fetched_view`)."""
    return ndim >= 2 or (ndim == 1 and size == 1)
