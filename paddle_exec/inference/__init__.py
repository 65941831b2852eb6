"""paddle.inference (Paddle 2.6's module path): Config, create_predictor, Predictor and its Tensor handles,
PredictorPool, and the enums, running a saved inference model on this executor (see predictor.py and config.py).
XpuConfig and convert_to_mixed_precision are declined (paddle_exec/_declined.py).

    import paddle_exec.inference as paddle_infer
    config = paddle_infer.Config('model/inference.pdmodel', 'model/inference.pdiparams')
    predictor = paddle_infer.create_predictor(config)
"""
from .._declined import declined_getattr
from ..utils.version import PADDLE_2_VERSION
from .config import Config, DataType, PlaceType, PrecisionType
from .predictor import Predictor, PredictorPool, Tensor, create_predictor, get_num_bytes_of_data_type

__all__ = ['Config', 'DataType', 'PlaceType', 'PrecisionType', 'Predictor', 'PredictorPool', 'Tensor',
           '_get_phi_kernel_name', 'create_predictor', 'get_num_bytes_of_data_type', 'get_trt_compile_version',
           'get_trt_runtime_version', 'get_version']

__getattr__ = declined_getattr(__name__)

# Paddle's fluid op type -> phi kernel name, where they differ (the rest keep their name)
_PHI_KERNEL_NAMES = {
    'elementwise_add': 'add', 'elementwise_sub': 'subtract', 'elementwise_mul': 'multiply',
    'elementwise_div': 'divide', 'elementwise_max': 'maximum', 'elementwise_min': 'minimum',
    'elementwise_pow': 'elementwise_pow', 'elementwise_mod': 'remainder', 'elementwise_floordiv': 'floor_divide',
    'mul': 'matmul_with_flatten', 'matmul_v2': 'matmul', 'reshape2': 'reshape', 'transpose2': 'transpose',
    'squeeze2': 'squeeze', 'unsqueeze2': 'unsqueeze', 'flatten_contiguous_range': 'flatten',
    'lookup_table_v2': 'embedding', 'fill_constant': 'full', 'reduce_sum': 'sum', 'reduce_mean': 'mean',
    'reduce_max': 'max', 'reduce_min': 'min', 'reduce_prod': 'prod', 'arg_max': 'argmax', 'arg_min': 'argmin',
    'top_k_v2': 'topk', 'expand_v2': 'expand', 'softmax_with_cross_entropy': 'cross_entropy_with_softmax',
    'uniform_random': 'uniform', 'gaussian_random': 'gaussian', 'range': 'arange', 'hard_swish': 'hardswish',
    'hard_sigmoid': 'hardsigmoid', 'size': 'numel', 'where_index': 'nonzero',
}


def _get_phi_kernel_name(op_type: str) -> str:
    """The name Paddle 2.6's phi library gives the kernel of a fluid op type."""
    return _PHI_KERNEL_NAMES.get(op_type, op_type)


def get_version() -> str:
    """The version text, laid out as Paddle's (the Paddle API paddle_exec implements for paddle.inference)."""
    return 'version: %s\ncommit: paddle_exec\nbranch: HEAD\n' % PADDLE_2_VERSION


def get_trt_compile_version() -> tuple:
    """(0, 0, 0): not built with TensorRT."""
    return (0, 0, 0)


def get_trt_runtime_version() -> tuple:
    return (0, 0, 0)
