"""fluid.contrib (Paddle 1.8's module path): the contributed tools that mean something on a CPU executor.

memory_usage (an estimate of a program's activation memory), op_freq_statistic (op and op-pair counts),
extend_with_decoupled_weight_decay (AdamW-style decay for any optimizer) and ctr_metric_bundle. Quantization and
slim (QuantizeTranspiler, Compressor), mixed precision, HDFS and the parameter-server helpers are declined:
reaching one raises AttributeError with the reason (paddle_exec/_declined.py). The decoder and rnn_impl names are
recurrent nets (issue 11), the multi-process reader issue 16's.
"""
from ..._declined import declined_getattr
from . import decoder, extend_optimizer, layers, memory_usage_calc, model_stat, op_frequence, reader
from .decoder import *
from .extend_optimizer import *
from .layers import *
from .memory_usage_calc import *
from .op_frequence import *
from .reader import *

__all__ = (decoder.__all__ + memory_usage_calc.__all__ + op_frequence.__all__ + extend_optimizer.__all__
           + layers.__all__ + reader.__all__)

__getattr__ = declined_getattr(__name__)
