"""paddle.inference's Predictor: a saved inference model run on this executor, as Paddle's serving users run one.

    predictor = create_predictor(Config('model_dir'))
    x = predictor.get_input_handle(predictor.get_input_names()[0])
    x.reshape(batch.shape); x.copy_from_cpu(batch)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()

A Predictor loads the program and its parameters (Paddle's formats, static/io.py) into a Scope of its own and runs
with DeepRec's inline policy: the whole run on the calling thread, no hand-off to a pool, which is what serving
many small requests at once wants. A Predictor (its handles) is for one thread at a time; `clone()` gives another
one that shares the program and the parameter values (read-only at inference) but has its own handles, so each
serving thread takes a clone (or a PredictorPool slot). Temporaries never enter the scope (runs keep them in their
plan's slots), so clones running at once do not see each other's values.

Tensor handles hold numpy arrays: copy_from_cpu copies (share_external_data does not), copy_to_cpu returns a copy.
"""
from __future__ import annotations

import threading

import numpy as np

from ..executor import Executor
from ..executor.config import ExecutorPolicy
from ..executor.strategy import ExecutionStrategy
from ..framework.dtype import to_numpy
from ..framework.place import CPUPlace
from ..framework.scope import LoDTensor, Scope, scope_guard
from ..static.io import load_inference_model
from .config import Config, DataType, PlaceType

__all__ = ['Tensor', 'Predictor', 'PredictorPool', 'create_predictor', 'get_num_bytes_of_data_type']

_DATA_TYPES = {np.dtype('float32'): DataType.FLOAT32, np.dtype('int64'): DataType.INT64,
               np.dtype('int32'): DataType.INT32, np.dtype('uint8'): DataType.UINT8, np.dtype('int8'): DataType.INT8,
               np.dtype('float16'): DataType.FLOAT16, np.dtype('bool'): DataType.BOOL,
               np.dtype('float64'): DataType.FLOAT64}
_NUM_BYTES = {t: d.itemsize for d, t in _DATA_TYPES.items()}


def get_num_bytes_of_data_type(dtype: DataType) -> int:
    """Bytes per element of a DataType."""
    return _NUM_BYTES[DataType(dtype)]


class Tensor:
    """An input or output handle of a Predictor (paddle.inference.Tensor / ZeroCopyTensor)."""

    def __init__(self, name: str, dtype: np.dtype | None = None, is_input: bool = True):
        self.name = name
        self._dtype = dtype
        self._is_input = is_input
        self._array: np.ndarray | None = None
        self._shape: list[int] | None = None
        self._lod: list = []

    def reshape(self, shape) -> None:
        """Sets the shape of the data to come (an input) or reshapes the held data."""
        if not self._is_input:
            raise RuntimeError("The output tensor '%s' cannot be reshaped: its shape comes from the run" % self.name)
        self._shape = [int(d) for d in shape]
        if self._array is not None and self._array.size == int(np.prod(self._shape)):
            self._array = self._array.reshape(self._shape)

    def copy_from_cpu(self, data) -> None:
        """Copies a numpy array in (its dtype is kept; the run checks it against the model's variable)."""
        if not self._is_input:
            raise RuntimeError("copy_from_cpu on the output tensor '%s': outputs are written by run()" % self.name)
        if not isinstance(data, np.ndarray):
            raise TypeError('In copy_from_cpu, we only support numpy ndarray data type.')
        self._array = np.array(data, copy=True)
        self._shape = list(self._array.shape)

    def share_external_data(self, data) -> None:
        """Uses the array without copying it (the caller must keep it unchanged until run() returns)."""
        if isinstance(data, LoDTensor):
            data = data.value
        self._array = np.asarray(data)
        self._shape = list(self._array.shape)

    def copy_to_cpu(self) -> np.ndarray:
        if self._array is None:
            raise RuntimeError("The tensor '%s' holds no data yet%s" % (
                self.name, ': call run() first' if not self._is_input else ': call copy_from_cpu first'))
        return np.array(self._array, copy=True)

    def shape(self) -> list[int]:
        if self._shape is not None:
            return list(self._shape)
        return [] if self._array is None else list(self._array.shape)

    def set_lod(self, lod) -> None:
        self._lod = [list(level) for level in lod]

    def lod(self) -> list:
        return [list(level) for level in self._lod]

    def type(self) -> DataType:
        dtype = self._array.dtype if self._array is not None else self._dtype
        return _DATA_TYPES.get(np.dtype(dtype) if dtype is not None else np.dtype('float32'), DataType.FLOAT32)

    def place(self) -> PlaceType:
        return PlaceType.CPU

    def _set_output(self, value) -> None:
        if isinstance(value, LoDTensor):
            self._lod = [list(level) for level in (value.lod() or [])]
            value = value.value
        self._array = np.asarray(value)
        self._shape = list(self._array.shape)


class _LoadedModel:
    """What clones share: the program, feed and fetch names, and the scope holding the parameters."""

    def __init__(self, config: Config):
        folder, model_file, params_file = config._model_location()
        self.scope = Scope()
        loader = Executor(CPUPlace())
        with scope_guard(self.scope):
            self.program, self.feed_names, fetch_vars = load_inference_model(
                folder, loader, model_filename=model_file, params_filename=params_file)
        self.fetch_names = [v.name for v in fetch_vars]
        block = self.program.global_block()
        self.feed_dtypes = {n: np.dtype(to_numpy(block.var(n).dtype)) for n in self.feed_names}


class Predictor:
    """Runs one loaded model: input handles in, run(), output handles out. One thread at a time; clone() for more."""

    def __init__(self, config: Config, _model: _LoadedModel | None = None):
        if not isinstance(config, Config):
            raise TypeError('create_predictor expects a paddle.inference.Config, got %s' % type(config).__name__)
        self._config = config
        self._model = _model if _model is not None else _LoadedModel(config)
        strategy = ExecutionStrategy()
        strategy.executor_policy = ExecutorPolicy.USE_INLINE_EXECUTOR
        self._exe = Executor(CPUPlace(), exec_strategy=strategy)
        self._inputs = {n: Tensor(n, self._model.feed_dtypes[n], True) for n in self._model.feed_names}
        self._outputs = {n: Tensor(n, None, False) for n in self._model.fetch_names}
        self._busy = threading.Lock()

    def get_input_names(self) -> list[str]:
        return list(self._model.feed_names)

    def get_output_names(self) -> list[str]:
        return list(self._model.fetch_names)

    def get_input_handle(self, name: str) -> Tensor:
        if name not in self._inputs:
            raise ValueError("The input '%s' is not an input of the model; its inputs are %s"
                             % (name, self._model.feed_names))
        return self._inputs[name]

    def get_output_handle(self, name: str) -> Tensor:
        if name not in self._outputs:
            raise ValueError("The output '%s' is not an output of the model; its outputs are %s"
                             % (name, self._model.fetch_names))
        return self._outputs[name]

    def run(self, inputs=None):
        """Runs the model on the input handles' data and fills the output handles. With `inputs` (a list of
        arrays in get_input_names() order), copies them in first and returns the outputs as a list of arrays."""
        if inputs is not None:
            if len(inputs) != len(self._model.feed_names):
                raise ValueError('The model has %d inputs (%s), but %d were given'
                                 % (len(self._model.feed_names), self._model.feed_names, len(inputs)))
            for name, value in zip(self._model.feed_names, inputs):
                self._inputs[name].copy_from_cpu(np.asarray(value))
        feed = {}
        for name, handle in self._inputs.items():
            if handle._array is None:
                raise RuntimeError("The input tensor '%s' has no data: call copy_from_cpu before run()" % name)
            value = handle._array
            if handle._shape is not None and list(value.shape) != handle._shape:
                value = value.reshape(handle._shape)
            if handle._lod:
                tensor = LoDTensor()
                tensor.set(value, CPUPlace())
                tensor.set_lod(handle._lod)
                value = tensor
            feed[name] = value
        if not self._busy.acquire(blocking=False):
            raise RuntimeError('This Predictor is running on another thread: use one Predictor per thread '
                               '(predictor.clone() or a PredictorPool)')
        try:
            results = self._exe.run(self._model.program, feed=feed, fetch_list=self._model.fetch_names,
                                    scope=self._model.scope, return_numpy=False)
        finally:
            self._busy.release()
        for name, value in zip(self._model.fetch_names, results):
            self._outputs[name]._set_output(value)
        if inputs is not None:
            return [self._outputs[n].copy_to_cpu() for n in self._model.fetch_names]
        return True

    def clone(self, stream=None) -> Predictor:
        """Another predictor on the same program and parameter values, with its own handles."""
        return Predictor(self._config, self._model)

    def clear_intermediate_tensor(self) -> None:
        """Temporaries never outlive a run here: nothing to clear."""

    def try_shrink_memory(self) -> int:
        """Nothing is cached between runs beyond the parameters: 0 bytes released."""
        return 0


class PredictorPool:
    """`size` predictors on one model (the first loads it, the others are its clones): one per serving thread."""

    def __init__(self, config: Config, size: int = 1):
        if size < 1:
            raise ValueError('PredictorPool size must be at least 1, got %d' % size)
        first = Predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(size - 1)]

    def retrive(self, idx: int) -> Predictor:
        """Predictor number idx (Paddle's spelling)."""
        return self._predictors[idx]

    retrieve = retrive


def create_predictor(config: Config) -> Predictor:
    """A Predictor for the model of `config`."""
    return Predictor(config)
