"""Top-level conveniences: paddle.seed and its default generator, set_device / get_device, and the re-exports
paddle.batch / paddle.reader / paddle.metric / paddle.topk."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec import utils_compat
from paddle_exec.framework import random as framework_random
from paddle_exec.utils_compat import Generator, op_seed


@pytest.fixture
def restore_default_generator():
    saved = framework_random._default_cpu_generator
    framework_random._default_cpu_generator = Generator()
    yield
    framework_random._default_cpu_generator = saved


def test_unseeded_generator_hands_out_no_seed():
    g = Generator()
    assert not g.is_seeded and g.initial_seed() is None and g.next_op_seed() is None


def test_generator_draws_a_repeatable_stream_of_op_seeds():
    a, b = Generator().manual_seed(7), Generator().manual_seed(7)
    seeds = [a.next_op_seed() for _ in range(5)]
    assert seeds == [b.next_op_seed() for _ in range(5)]
    assert all(1 <= s <= 2 ** 31 - 1 for s in seeds) and len(set(seeds)) == 5
    assert Generator().manual_seed(8).next_op_seed() != seeds[0]
    assert Generator().manual_seed(-3).is_seeded      # Paddle takes any integer (as uint64)


def test_generator_seed_from_entropy_is_reported():
    g = Generator()
    s = g.seed()
    assert g.initial_seed() == s and g.is_seeded


def test_paddle_seed_seeds_the_default_generator(restore_default_generator):
    assert op_seed(0) is None                         # before paddle.seed: fresh entropy
    g = paddle.seed(2021)
    assert g is utils_compat.default_cpu_generator() and g.initial_seed() == 2021
    first = [op_seed(0) for _ in range(3)]
    paddle.seed(2021)
    assert [op_seed(0) for _ in range(3)] == first
    assert op_seed(42) == 42                          # an op's own seed always wins


def test_paddle_seed_rejects_non_integers():
    with pytest.raises(TypeError, match='integer seed'):
        paddle.seed(1.5)


def _startup_values(seed):
    paddle.seed(seed)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.fc(fluid.data('x', [None, 4], 'float32'), size=3)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        return np.array(scope.find_var(main.global_block().all_parameters()[0].name).get_tensor())


def test_paddle_seed_makes_random_initialisers_repeatable(restore_default_generator):
    np.testing.assert_array_equal(_startup_values(5), _startup_values(5))
    assert not np.array_equal(_startup_values(5), _startup_values(6))


def test_set_device_cpu_and_get_device():
    place = paddle.set_device('cpu')
    assert isinstance(place, paddle.CPUPlace) and paddle.get_device() == 'cpu'
    assert isinstance(paddle.set_device('CPU'), paddle.CPUPlace)
    assert paddle.is_compiled_with_cuda() is False
    assert paddle.device.set_device is paddle.set_device and paddle.device.get_device() == 'cpu'
    assert paddle.device.is_compiled_with_cuda() is False


@pytest.mark.parametrize('device', ['gpu', 'gpu:1', 'GPU:0'])
def test_set_device_gpu_raises(device):
    with pytest.raises(ValueError, match="The device should not be '%s', since PaddlePaddle is not compiled with "
                                         "CUDA" % device):
        paddle.set_device(device)
    assert paddle.get_device() == 'cpu'


@pytest.mark.parametrize('device', ['tpu', 'gpu0', '', 3])
def test_set_device_rejects_unknown_names(device):
    with pytest.raises(ValueError, match='The device must be a string which is like'):
        paddle.set_device(device)


def test_top_level_reexports():
    from paddle_exec.reader import decorator
    from paddle_exec.static import metric as static_metric
    assert paddle.batch is decorator.batch and paddle.reader.shuffle is decorator.shuffle
    assert paddle.topk is static_metric.topk and callable(paddle.metric.accuracy)
    assert paddle.static.accuracy is fluid.layers.accuracy and paddle.static.auc is fluid.layers.auc
