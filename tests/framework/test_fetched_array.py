"""FetchedArray (framework/fetched_array.py): fetched arrays holding one element convert to Python numbers as under
numpy 1.x, rows of larger fetches too, and they are plain ndarrays in every other respect."""
import io
import operator
import pickle

import numpy as np
import pytest

from paddle_exec.framework.fetched_array import FetchedArray, fetched_view
from paddle_exec.framework.scope import LoDTensor


@pytest.fixture(params=[(1,), (1, 1)], ids=['shape1', 'shape1x1'])
def loss(request):
    return fetched_view(np.full(request.param, 0.625, np.float32))


def test_view_for_one_element_and_multi_dim_arrays():
    for shape in ((1,), (1, 1, 1), (4, 1), (0, 3)):
        assert type(fetched_view(np.zeros(shape))) is FetchedArray
    for plain in (np.zeros(()), np.zeros(3), np.zeros(0)):     # 0-d converts already; 1-d rows are scalars
        assert fetched_view(plain) is plain
    base = np.arange(1.0)
    view = fetched_view(base)
    view[0] = 7.0
    assert base[0] == 7.0          # a view, not a copy


def test_rows_of_a_larger_fetch_convert():
    """fit_a_line's last line: each row of a fetched [N, 1] prediction is formatted with %.2f."""
    pred = fetched_view(np.array([[1.25], [2.5], [3.75]], np.float32))
    assert ['%d: %.2f' % (idx, val) for idx, val in enumerate(pred)] == ['0: 1.25', '1: 2.50', '2: 3.75']
    assert float(pred[2]) == 3.75 and int(pred[1]) == 2
    with pytest.raises(TypeError):
        float(pred)                # three elements: numpy's error


def test_float(loss):
    assert float(loss) == 0.625


def test_int_truncates(loss):
    assert int(loss) == 0
    assert int(fetched_view(np.array([[7]], np.int64))) == 7


def test_complex(loss):
    assert complex(loss) == 0.625 + 0j


def test_operator_index_on_integers_only(loss):
    count = fetched_view(np.array([[12]], np.int32))
    assert operator.index(count) == 12
    assert [10, 11, 12, 13][fetched_view(np.array([2]))] == 12
    with pytest.raises(TypeError, match='only integer scalar arrays'):
        operator.index(loss)


def test_percent_formatting(loss):
    count = fetched_view(np.array([3], np.int64))
    assert '%d: %.2f' % (count, loss) == '3: 0.62'
    assert '%.4f' % loss == '0.6250'
    assert '%d' % fetched_view(np.array([3.75])) == '3'
    assert '%e' % loss == '6.250000e-01'
    assert '%s' % loss == str(np.asarray(loss))


def test_format_with_spec(loss):
    assert format(loss, '.3f') == '0.625'
    assert '{:.1f}'.format(loss) == '0.6'
    assert f'{loss:>8.2f}' == '    0.62'
    assert '{}'.format(loss) == str(np.asarray(loss))     # an empty spec prints the array


def test_round(loss):
    assert round(loss, 1) == 0.6 and round(fetched_view(np.array([2.5]))) == 2


def test_results_are_plain_arrays(loss):
    for result in (loss * 2, loss + loss, -loss, abs(loss), np.exp(loss), loss > 0, np.concatenate([loss, loss]),
                   np.stack([loss, loss]), np.array(loss), np.asarray(loss),
                   np.where(loss > 0, loss, 0)):
        assert type(result) is np.ndarray, type(result)
    assert type(loss.mean()) is np.float32 and type(loss.sum()) is np.float32
    np.testing.assert_array_equal(loss * 2, np.full(loss.shape, 1.25, np.float32))


def test_shape_dtype_isinstance_repr(loss):
    assert isinstance(loss, np.ndarray) and loss.dtype == np.float32 and loss.size == 1
    assert repr(loss) == repr(np.asarray(loss)) and repr(loss).startswith('array(')
    assert loss.tolist() in ([0.625], [[0.625]])


def test_pickle_gives_plain_array(loss):
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(loss, protocol=protocol))
        assert type(back) is np.ndarray and back.shape == loss.shape and back.dtype == loss.dtype
        np.testing.assert_array_equal(back, loss)
    assert b'FetchedArray' not in pickle.dumps(loss)


def test_np_save_round_trip(loss):
    buf = io.BytesIO()
    np.save(buf, loss)
    buf.seek(0)
    back = np.load(buf)
    assert type(back) is np.ndarray and back.shape == loss.shape
    np.testing.assert_array_equal(back, loss)


def test_copies_and_views_of_the_one_element_keep_the_conversions(loss):
    for same in (loss.copy(), loss.astype(np.float64), loss[:], loss.reshape(1, 1, 1)):
        assert float(same) == 0.625 and '%.3f' % same == '0.625'


def test_views_of_other_sizes_keep_numpy_errors(loss):
    empty = loss.reshape(-1)[:0]
    with pytest.raises(TypeError):
        float(empty)
    with pytest.raises(TypeError):
        int(empty)


# --- LoDTensor: the same conversions where Python allows them --------------------------------------------------

def test_lodtensor_one_element_conversions():
    t = LoDTensor(np.array([[4.5]], np.float32))
    assert float(t) == 4.5 and int(t) == 4 and complex(t) == 4.5 + 0j
    assert '%.2f' % t == '4.50' and '%d' % t == '4' and format(t, '.1f') == '4.5'
    assert round(t) == 4
    assert operator.index(LoDTensor(np.array([5], np.int64))) == 5


def test_lodtensor_conversion_errors_are_numpys():
    with pytest.raises(TypeError):
        float(LoDTensor(np.zeros(3, np.float32)))
    with pytest.raises(TypeError):
        float(LoDTensor())          # uninitialised: an empty array


def test_np_array_of_lodtensor_is_a_plain_array():
    """numpy builds a base-class array for np.array(t) whatever __array__ returns: the size-1 conversions of a
    fetched array do not carry over to it (docs/compat.md)."""
    arr = np.array(LoDTensor(np.array([1.5], np.float32)))
    assert type(arr) is np.ndarray
