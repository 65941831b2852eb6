"""fluid.create_lod_tensor / create_random_int_lodtensor (fluid/lod_tensor.py), as Paddle 1.8.5 builds them."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid


def test_from_array_keeps_data_and_lod():
    t = fluid.create_lod_tensor(np.arange(10, dtype='float32').reshape(5, 2), [[2, 3]], fluid.CPUPlace())
    assert t.recursive_sequence_lengths() == [[2, 3]] and t.lod() == [[0, 2, 5]]
    np.testing.assert_array_equal(np.array(t), np.arange(10, dtype='float32').reshape(5, 2))


def test_from_list_of_sequences():
    # Paddle 1.8.5: create_lod_tensor([[np.int64(1)]], [[1]], place) -> int64 [1, 1]
    t = fluid.create_lod_tensor([[np.int64(1)]], [[1]], fluid.CPUPlace())
    assert np.array(t).shape == (1, 1) and np.array(t).dtype == np.int64
    t = fluid.create_lod_tensor([[1, 2, 3], [4, 5]], [[3, 2]], fluid.CPUPlace())
    np.testing.assert_array_equal(np.array(t), [[1], [2], [3], [4], [5]])
    with pytest.raises(AssertionError, match='do not match'):
        fluid.create_lod_tensor([[1, 2, 3], [4, 5]], [[2, 3]], fluid.CPUPlace())


def test_invalid_lod_and_types():
    # Paddle 1.8.5: EnforceNotMet "the provided recursive_sequence_lengths info is invalid"
    with pytest.raises(fluid.core.EnforceNotMet, match='the provided recursive_sequence_lengths info is invalid'):
        fluid.create_lod_tensor(np.zeros((4, 1)), [[2, 3]], fluid.CPUPlace())
    with pytest.raises(TypeError, match='LoDTensor, a Numpy array or a list'):
        fluid.create_lod_tensor('abc', [[3]], fluid.CPUPlace())
    nested = fluid.create_lod_tensor(np.zeros((5, 1)), [[1, 2], [1, 2, 2]], fluid.CPUPlace())
    assert nested.lod() == [[0, 1, 3], [0, 1, 3, 5]]


def test_lod_tensor_feeds_an_executor_like_word2vec_infer():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.data(name='w', shape=[1], dtype='int64')
        emb = fluid.layers.embedding(w, size=[10, 2], param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Constant(0.5)))
    exe = fluid.Executor(fluid.CPUPlace())
    word = fluid.create_lod_tensor(np.array([[3]], np.int64), [[1]], fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        # the embedding shares the ids' LoD, so (as in Paddle 1.8.5) it comes back as a LoDTensor only
        with pytest.raises(RuntimeError, match='Some of your fetched tensors hold LoD information'):
            exe.run(main, feed={'w': word}, fetch_list=[emb])
        out, = exe.run(main, feed={'w': word}, fetch_list=[emb], return_numpy=False)
    assert out.lod() == [[0, 1]]
    np.testing.assert_array_equal(np.asarray(out).reshape(-1), [0.5, 0.5])


def test_random_int_lodtensor_shape_and_range():
    t = fluid.create_random_int_lodtensor([[2, 3]], [4], fluid.CPUPlace(), low=0, high=9)
    arr = np.array(t)
    assert arr.shape == (5, 4) and arr.dtype == np.int64 and arr.min() >= 0 and arr.max() <= 9
