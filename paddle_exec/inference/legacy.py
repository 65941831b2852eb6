"""Paddle 1.8's inference API (fluid.core): AnalysisConfig, create_paddle_predictor, PaddleTensor, on the same
Config and Predictor as paddle.inference (config.py, predictor.py).

    config = fluid.core.AnalysisConfig('model_dir')
    predictor = fluid.core.create_paddle_predictor(config)
    outputs = predictor.run([fluid.core.PaddleTensor(batch)])        # inputs in get_input_names() order
    outputs[0].as_ndarray()

    config.switch_use_feed_fetch_ops(False)                          # the zero-copy way
    predictor.get_input_tensor('x').copy_from_cpu(batch); predictor.zero_copy_run()
    predictor.get_output_tensor(predictor.get_output_names()[0]).copy_to_cpu()

As in 1.8, a config makes one predictor (a second create_paddle_predictor on it raises); clone() gives more.
"""
from __future__ import annotations

import enum

import numpy as np

from .config import Config
from .predictor import Predictor

__all__ = ['AnalysisConfig', 'PaddleDType', 'PaddleTensor', 'AnalysisPredictor', 'create_paddle_predictor']

AnalysisConfig = Config


class PaddleDType(enum.IntEnum):
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3


_DTYPES = {np.dtype('float32'): PaddleDType.FLOAT32, np.dtype('int64'): PaddleDType.INT64,
           np.dtype('int32'): PaddleDType.INT32, np.dtype('uint8'): PaddleDType.UINT8}


class PaddleTensor:
    """1.8's PaddleTensor: a named array with a LoD, passed to and returned by AnalysisPredictor.run."""

    def __init__(self, data=None, name: str = '', lod=None):
        self.data = np.ascontiguousarray(data) if data is not None else np.zeros(0, np.float32)
        if self.data.dtype not in _DTYPES:
            raise TypeError('PaddleTensor holds float32, int64, int32 or uint8 data, got %s' % self.data.dtype)
        self.name = name
        self.lod = [list(level) for level in (lod or [])]

    @property
    def shape(self) -> list[int]:
        return list(self.data.shape)

    @property
    def dtype(self) -> PaddleDType:
        return _DTYPES[self.data.dtype]

    def as_ndarray(self) -> np.ndarray:
        return self.data


class AnalysisPredictor(Predictor):
    """1.8's predictor: run() on PaddleTensors, or the zero-copy tensors and zero_copy_run()."""

    def run(self, inputs=None):
        if inputs is None:
            return super().run()
        names = self.get_input_names()
        if len(inputs) != len(names):
            raise ValueError('The model has %d inputs (%s), but %d PaddleTensors were given'
                             % (len(names), names, len(inputs)))
        for name, tensor in zip(names, inputs):
            handle = self.get_input_handle(tensor.name or name)
            handle.copy_from_cpu(tensor.as_ndarray())
            handle.set_lod(tensor.lod)
        super().run()
        outputs = []
        for name in self.get_output_names():
            handle = self.get_output_handle(name)
            outputs.append(PaddleTensor(handle.copy_to_cpu(), name, handle.lod()))
        return outputs

    def zero_copy_run(self) -> None:
        super().run()

    get_input_tensor = Predictor.get_input_handle
    get_output_tensor = Predictor.get_output_handle

    def clone(self, stream=None) -> AnalysisPredictor:
        return AnalysisPredictor(self._config, self._model)


def create_paddle_predictor(config: Config) -> AnalysisPredictor:
    """An AnalysisPredictor for `config`; each config makes one (1.8's rule)."""
    if getattr(config, '_predictor_made', False):
        raise RuntimeError('Note: Each config can only be used for one predictor.')
    predictor = AnalysisPredictor(config)
    config._predictor_made = True
    return predictor
