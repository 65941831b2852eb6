"""paddle.inference.Config: where a saved model is, and the switches of Paddle's inference engine.

    config = Config('model_dir')                                   # fluid 1.8: __model__ + parameter files
    config = Config('m/inference.pdmodel', 'm/inference.pdiparams')  # 2.x: program file + combined parameters
    config.enable_use_gpu(100, 0)          # accepted, does nothing: the predictor runs on this executor's CPU kernels

What a switch changes here: `set_cpu_math_library_num_threads` (kept and reported; the predictor runs its ops on
the caller's thread, DeepRec's inline policy, so serving scales by one predictor per thread or `clone()`), the model
paths. Everything that picks a GPU/XPU, a TensorRT/MKLDNN/ONNX engine, an IR pass or a memory pool is accepted and
recorded (summary() shows it) but does not change the run: the same program runs on the same CPU kernels
(docs/compatibility.md, "Accepted as no-ops"). The getters answer as a CPU-only build of Paddle does
(use_gpu() is False, tensorrt_engine_enabled() is False).
"""
from __future__ import annotations

import enum
import os

__all__ = ['Config', 'PrecisionType', 'PlaceType', 'DataType']


class PrecisionType(enum.IntEnum):
    """Paddle's AnalysisConfig.Precision (paddle.inference.PrecisionType)."""
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(enum.IntEnum):
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class DataType(enum.IntEnum):
    """paddle_infer::DataType, with Paddle's numbers."""
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7


# switches accepted as no-ops: GPU/XPU/IPU/custom devices, TensorRT, MKLDNN, ONNX Runtime, Lite, IR passes, memory
# and profiling options of Paddle's inference engine. Each records its arguments under its name.
_NO_OP_SWITCHES = (
    'collect_shape_range_info', 'delete_pass', 'disable_mkldnn_fc_passes', 'disable_onnxruntime',
    'enable_custom_device', 'enable_dlnne', 'enable_ipu', 'enable_lite_engine', 'enable_low_precision_io',
    'enable_mkldnn_bfloat16', 'enable_mkldnn_int8', 'enable_new_executor', 'enable_onnxruntime', 'enable_opencl',
    'enable_ort_optimization', 'enable_quantizer', 'enable_save_optim_model', 'enable_tensorrt_dla',
    'enable_tensorrt_engine', 'enable_tensorrt_explicit_quantization', 'enable_tensorrt_inspector',
    'enable_tensorrt_memory_optim', 'enable_tensorrt_varseqlen', 'enable_tuned_tensorrt_dynamic_shape',
    'enable_xpu', 'exp_disable_mixed_precision_ops', 'exp_disable_tensorrt_ops', 'exp_enable_mixed_precision_ops',
    'exp_enable_use_cutlass', 'load_ipu_config', 'mark_trt_engine_outputs', 'set_bfloat16_op', 'set_dist_config',
    'set_ipu_config', 'set_ipu_custom_info', 'set_mkldnn_cache_capacity', 'set_mkldnn_op', 'set_optim_cache_dir',
    'set_tensorrt_optimization_level', 'set_trt_dynamic_shape_info', 'set_xpu_config', 'set_xpu_device_id',
    'switch_ir_debug',
)


class Config:
    """Paddle's inference Config (AnalysisConfig): Config(), Config(model_dir), Config(prog_file, params_file),
    or Config(other_config) for a copy."""
    Precision = PrecisionType
    Float32, Int8, Half, Bfloat16 = (PrecisionType.Float32, PrecisionType.Int8, PrecisionType.Half,
                                     PrecisionType.Bfloat16)

    def __init__(self, model_dir_or_prog_file=None, params_file: str | None = None):
        if isinstance(model_dir_or_prog_file, Config):
            other = model_dir_or_prog_file
            self.__dict__.update({k: (dict(v) if isinstance(v, dict) else v) for k, v in other.__dict__.items()})
            return
        self._model_dir = ''
        self._prog_file = ''
        self._params_file = ''
        self._cpu_threads = 1
        self._ir_optim = True
        self._memory_optim = False
        self._mkldnn = False
        self._profile = False
        self._glog_info = True
        self._use_feed_fetch_ops = False
        self._specify_input_names = True
        self._gpu_requested: tuple | None = None
        self.accepted_switches: dict[str, tuple] = {}
        if model_dir_or_prog_file is not None:
            self.set_model(model_dir_or_prog_file, params_file)

    # --- the model ---------------------------------------------------------------------------------------------
    def set_model(self, model_dir_or_prog_file: str, params_file: str | None = None) -> None:
        if params_file is None:
            self._model_dir, self._prog_file, self._params_file = model_dir_or_prog_file, '', ''
        else:
            self._model_dir, self._prog_file, self._params_file = '', model_dir_or_prog_file, params_file

    def set_prog_file(self, path: str) -> None:
        self._prog_file = path

    def set_params_file(self, path: str) -> None:
        self._params_file = path

    def set_model_buffer(self, prog_buffer, prog_size, params_buffer, params_size) -> None:
        raise NotImplementedError('paddle_exec reads models from files: save the buffers to files and use '
                                  'set_model(prog_file, params_file)')

    def model_from_memory(self) -> bool:
        return False

    def model_dir(self) -> str:
        return self._model_dir

    def prog_file(self) -> str:
        return self._prog_file

    def params_file(self) -> str:
        return self._params_file

    def _model_location(self) -> tuple[str, str | None, str | None]:
        """(folder, model file name, params file name or None for one file per parameter)."""
        if self._model_dir:
            return self._model_dir, None, None
        if not self._prog_file:
            raise ValueError('paddle.inference.Config: no model set (use Config(model_dir) or '
                             'Config(prog_file, params_file))')
        folder = os.path.dirname(self._prog_file) or '.'
        if self._params_file and (os.path.dirname(self._params_file) or '.') != folder:
            raise ValueError('paddle_exec reads the program and parameter files from one folder; got %s and %s'
                             % (self._prog_file, self._params_file))
        return (folder, os.path.basename(self._prog_file),
                os.path.basename(self._params_file) if self._params_file else None)

    # --- CPU ---------------------------------------------------------------------------------------------------
    def set_cpu_math_library_num_threads(self, n: int) -> None:
        self._cpu_threads = int(n)

    def cpu_math_library_num_threads(self) -> int:
        return self._cpu_threads

    def enable_mkldnn(self) -> None:
        self._mkldnn = True

    def disable_mkldnn(self) -> None:
        self._mkldnn = False

    def mkldnn_enabled(self) -> bool:
        return self._mkldnn

    def mkldnn_int8_enabled(self) -> bool:
        return False

    # --- devices: accepted, the run stays on the CPU ---------------------------------------------------------------
    def enable_use_gpu(self, memory_pool_init_size_mb: int = 100, device_id: int = 0,
                       precision_mode=PrecisionType.Float32) -> None:
        self._gpu_requested = (memory_pool_init_size_mb, device_id, precision_mode)

    def disable_gpu(self) -> None:
        self._gpu_requested = None

    def use_gpu(self) -> bool:
        return False

    def gpu_device_id(self) -> int:
        return 0

    def memory_pool_init_size_mb(self) -> int:
        return 0

    def fraction_of_gpu_memory_for_pool(self) -> float:
        return 0.0

    def use_xpu(self) -> bool:
        return False

    def xpu_device_id(self) -> int:
        return 0

    def use_opencl(self) -> bool:
        return False

    def tensorrt_engine_enabled(self) -> bool:
        return False

    def lite_engine_enabled(self) -> bool:
        return False

    def onnxruntime_enabled(self) -> bool:
        return False

    # --- graph options -----------------------------------------------------------------------------------------
    def switch_ir_optim(self, x: bool = True) -> None:
        self._ir_optim = bool(x)

    def ir_optim(self) -> bool:
        return self._ir_optim

    def enable_memory_optim(self, x: bool = True) -> None:
        self._memory_optim = bool(x)

    def enable_profile(self) -> None:
        self._profile = True

    def disable_glog_info(self) -> None:
        self._glog_info = False

    def glog_info_disabled(self) -> bool:
        return not self._glog_info

    def switch_use_feed_fetch_ops(self, x: bool = True) -> None:
        self._use_feed_fetch_ops = bool(x)

    def use_feed_fetch_ops_enabled(self) -> bool:
        return self._use_feed_fetch_ops

    def switch_specify_input_names(self, x: bool = True) -> None:
        self._specify_input_names = bool(x)

    def specify_input_name(self) -> bool:
        return self._specify_input_names

    def summary(self) -> str:
        """A table of the options, laid out as Paddle's."""
        rows = [None, ('model_dir', self._model_dir)] if self._model_dir else [
            None, ('model_file', self._prog_file), ('params_file', self._params_file)]
        rows += [None, ('cpu_math_thread', self._cpu_threads), ('enable_mkldnn', self._mkldnn), None,
                 ('use_gpu', False), None, ('use_xpu', False), None, ('ir_optim', self._ir_optim),
                 ('memory_optim', self._memory_optim), ('enable_profile', self._profile),
                 ('enable_log', self._glog_info)]
        if self._gpu_requested is not None or self.accepted_switches:
            rows += [None] + [('accepted, no effect', name) for name in
                              (['enable_use_gpu'] if self._gpu_requested is not None else [])
                              + sorted(self.accepted_switches)]
        cells = [(str(k), (str(v).lower() if isinstance(v, bool) else str(v))) for k, v in
                 (r for r in rows if r is not None)] + [('Option', 'Value')]
        wk, wv = max(len(k) for k, _ in cells), max(len(v) for _, v in cells)
        line = '+%s+%s+' % ('-' * (wk + 2), '-' * (wv + 2))
        out = [line, '| %-*s | %-*s |' % (wk, 'Option', wv, 'Value'), line]
        for r in rows[1:]:
            out.append(line if r is None else '| %-*s | %-*s |' % (
                wk, r[0], wv, str(r[1]).lower() if isinstance(r[1], bool) else r[1]))
        out.append(line)
        return '\n'.join(out) + '\n'


def _accepted_switch(name: str):
    def switch(self, *args, **kwargs) -> None:
        self.accepted_switches[name] = (args, kwargs)
    switch.__name__ = name
    switch.__doc__ = 'Accepted for compatibility; it does not change how paddle_exec runs the model.'
    return switch


for _name in _NO_OP_SWITCHES:
    setattr(Config, _name, _accepted_switch(_name))
