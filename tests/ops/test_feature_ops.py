"""fluid 1.8's feature ops (ops/features.py: similarity_focus, hash, fsp, filter_by_instag), random_crop
(ops/sampling.py), 1.8's tiling expand_as and the LoDTensorArray value type: numpy references written from
Paddle's definitions and finite-difference gradients (the values Paddle 1.8.5 computed for the same layers are
replayed by tests/api/test_fluid_rest_golden.py)."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from paddle_exec.kernels import features as KF
from tests.ops.test_math_ops import check_op_grad, run_op


def _run(build, feed, scope=None, return_numpy=True):
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        fetch = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = scope or Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope, return_numpy=return_numpy)


# --- fsp ---------------------------------------------------------------------------------------------------------

def test_fsp_against_numpy_and_gradients():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 2, 4, 5))
    (out,) = run_op('fsp', {'X': x, 'Y': y})
    want = np.einsum('nahw,nbhw->nab', x, y) / 20
    np.testing.assert_allclose(out, want, rtol=1e-12)
    check_op_grad('fsp', {'X': x, 'Y': y}, wrt=('x', 'y'))


def test_fsp_matrix_rejects_different_sizes():
    with pytest.raises(ValueError, match='same height and width'):
        _run(lambda: [fluid.layers.fsp_matrix(fluid.data('a', [1, 2, 3, 3]), fluid.data('b', [1, 2, 4, 3]))], {})


# --- similarity_focus --------------------------------------------------------------------------------------------

def _focus_reference(x, axis, indexes):
    """Paddle's similarity_focus: on each selected plane, pick the largest values greedily, one per row and column,
    and set the mask to 1 along `axis` at every picked (row, col)."""
    out = np.zeros_like(x)
    for n in range(x.shape[0]):
        for index in indexes:
            plane = np.take(x[n], index, axis=axis - 1)
            used_r, used_c = set(), set()
            for flat in np.argsort(-plane.reshape(-1), kind='stable'):
                r, c = divmod(int(flat), plane.shape[1])
                if r in used_r or c in used_c:
                    continue
                used_r.add(r)
                used_c.add(c)
                sl = [n, slice(None), slice(None), slice(None)]
                others = [d for d in (1, 2, 3) if d != axis]
                sl[others[0]], sl[others[1]] = r, c
                out[tuple(sl)] = 1
    return out


@pytest.mark.parametrize('axis,indexes', [(1, [0, 2]), (2, [1]), (3, [0, 3])])
def test_similarity_focus_against_numpy(axis, indexes):
    x = np.random.default_rng(axis).permutation(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype(np.float32)
    (out,) = run_op('similarity_focus', {'X': x}, {'axis': axis, 'indexes': indexes})
    np.testing.assert_array_equal(out, _focus_reference(x, axis, indexes))


def test_similarity_focus_checks_its_attributes():
    x = np.zeros((1, 2, 3, 3), np.float32)
    with pytest.raises(ValueError, match='axis'):
        run_op('similarity_focus', {'X': x}, {'axis': 0, 'indexes': [0]})
    with pytest.raises(Exception, match='less than'):
        run_op('similarity_focus', {'X': x}, {'axis': 1, 'indexes': [2]})
    with pytest.raises(ValueError, match='indexes can not be empty'):
        fluid.layers.similarity_focus(None, 1, [])


# --- hash --------------------------------------------------------------------------------------------------------

def test_xxh64_known_vectors():
    # XXH64 reference values (xxHash's own test vectors)
    assert int(KF.xxh64(np.zeros(0, np.uint8), 0)) == 0xEF46DB3751D8E999
    assert int(KF.xxh64(np.frombuffer(b'abc', np.uint8), 0)) == 0x44BC2CF5AD770999


def test_hash_op_hashes_each_row_with_seeds():
    x = np.array([[1, 2], [3, 4], [1, 2]], np.int64)
    (out,) = run_op('hash', {'X': x}, {'num_hash': 3, 'mod_by': 1000})
    assert out.shape == (3, 3, 1) and out.dtype == np.int64
    for r in range(3):
        row = np.frombuffer(x[r].tobytes(), np.uint8)
        np.testing.assert_array_equal(out[r, :, 0], [int(KF.xxh64(row, k)) % 1000 for k in range(3)])
    np.testing.assert_array_equal(out[0], out[2])


# --- filter_by_instag --------------------------------------------------------------------------------------------

def test_filter_by_instag_keeps_tagged_instances_and_routes_gradients():
    rng = np.random.default_rng(3)
    ins = rng.standard_normal((6, 3)).astype(np.float32)
    ins_t = fluid.LoDTensor()
    ins_t.set(ins, fluid.CPUPlace())
    ins_t.set_recursive_sequence_lengths([[2, 1, 3]])
    tag = fluid.LoDTensor()
    tag.set(np.array([[1], [5], [3], [2], [5]], np.int64), fluid.CPUPlace())
    tag.set_recursive_sequence_lengths([[2, 1, 2]])

    def build():
        a = fluid.data('ins', [-1, 3], 'float32', lod_level=1)
        a.stop_gradient = False
        t = fluid.data('tag', [-1, 1], 'int64', lod_level=1)
        f = fluid.data('want', [-1], 'int64')
        out, weight = fluid.layers.filter_by_instag(a, t, f, True)
        loss = fluid.layers.reduce_sum(out * fluid.layers.assign(np.arange(15, dtype=np.float32).reshape(5, 3)))
        (grad,) = fluid.gradients([loss], [a])
        return [out, weight, grad]
    out, weight, grad = _run(build, {'ins': ins_t, 'tag': tag, 'want': np.array([5, 7], np.int64)},
                             return_numpy=False)
    # instances 0 (tags 1, 5) and 2 (tags 2, 5) carry tag 5: rows 0-1 and 3-5
    np.testing.assert_allclose(np.array(out), ins[[0, 1, 3, 4, 5]])
    assert out.recursive_sequence_lengths() == [[2, 3]]
    np.testing.assert_array_equal(np.array(weight), [[1], [1]])
    want_grad = np.zeros((6, 3), np.float32)
    want_grad[[0, 1, 3, 4, 5]] = np.arange(15).reshape(5, 3)
    np.testing.assert_allclose(np.array(grad), want_grad)


# --- random_crop -------------------------------------------------------------------------------------------------

def test_random_crop_takes_a_window_of_every_instance_and_advances_its_seed():
    x = np.arange(2 * 3 * 5 * 6, dtype=np.float32).reshape(2, 3, 5, 6)

    def build():
        return [fluid.layers.random_crop(fluid.data('x', [2, 3, 5, 6]), [3, 4], seed=11)]
    scope = Scope()
    (first,) = _run(build, {'x': x}, scope)
    assert first.shape == (2, 3, 3, 4)
    for n in range(2):
        for c in range(3):
            window = first[n, c]
            r0, c0 = np.argwhere(x[n, c] == window[0, 0])[0]
            np.testing.assert_array_equal(window, x[n, c, r0:r0 + 3, c0:c0 + 4])
    (again,) = _run(build, {'x': x})   # the same startup seed crops the same windows
    np.testing.assert_array_equal(again, first)


def test_random_crop_rejects_a_larger_shape():
    with pytest.raises(ValueError, match='larger'):
        _run(lambda: [fluid.layers.random_crop(fluid.data('x', [2, 3, 4]), [5, 4], seed=1)], {})


# --- expand_as (1.8: tiles) --------------------------------------------------------------------------------------

def test_expand_as_tiles_whole_times_and_sums_the_tiles_back():
    rng = np.random.default_rng(4)
    x, target = rng.standard_normal((2, 3)), np.zeros((4, 6))
    (out,) = run_op('expand_as', {'X': x, 'target_tensor': target})
    np.testing.assert_allclose(out, np.tile(x, (2, 2)))
    check_op_grad('expand_as', {'X': x, 'target_tensor': target}, wrt=('x',))
    with pytest.raises(Exception, match='multiple'):
        run_op('expand_as', {'X': x, 'target_tensor': np.zeros((4, 5))})


# --- LoDTensorArray ----------------------------------------------------------------------------------------------

def test_lod_tensor_array_value_type():
    assert fluid.LoDTensorArray is fluid.core.LoDTensorArray
    arr = fluid.LoDTensorArray()
    t = fluid.LoDTensor()
    t.set(np.ones((2, 2), np.float32), fluid.CPUPlace())
    arr.append(t)
    arr.append(np.zeros(3, np.float32))
    assert len(arr) == 2
    items = arr._move_to_list()
    assert len(arr) == 0 and len(items) == 2
    np.testing.assert_array_equal(items[0], np.ones((2, 2)))


def test_a_fetched_tensor_array_is_a_list_of_its_tensors():
    def build():
        x = fluid.data('x', [2, 3], 'float32')
        arr = fluid.layers.create_array('float32')
        fluid.layers.array_write(x, fluid.layers.fill_constant([1], 'int64', 0), array=arr)
        fluid.layers.array_write(x * 2, fluid.layers.fill_constant([1], 'int64', 1), array=arr)
        return [arr]
    x = np.ones((2, 3), np.float32)
    (got,) = _run(build, {'x': x})     # Paddle 1.8.5: [array, array]
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_array_equal(got[1], 2 * x)
    (got,) = _run(build, {'x': x}, return_numpy=False)
    assert isinstance(got[0], fluid.LoDTensor)
