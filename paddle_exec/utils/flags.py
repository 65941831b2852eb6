"""Paddle's global flags that scripts read and set (get_flags / set_flags): the public flags of Paddle 1.8's CPU
build with their defaults. paddle_exec keeps their values for the scripts that set them; the executor's own
switches are the environment variables of executor/config.py.
"""
from __future__ import annotations

import threading

__all__ = ['get_flags', 'set_flags', 'public_flags']

_FLAGS = {
    'FLAGS_allocator_strategy': 'auto_growth', 'FLAGS_benchmark': False, 'FLAGS_check_nan_inf': False,
    'FLAGS_cpu_deterministic': False, 'FLAGS_eager_delete_tensor_gb': 0.0, 'FLAGS_enable_parallel_graph': False,
    'FLAGS_enable_rpc_profiler': False, 'FLAGS_fraction_of_cpu_memory_to_use': 1.0,
    'FLAGS_fuse_parameter_groups_size': 1, 'FLAGS_fuse_parameter_memory_size': -1.0,
    'FLAGS_init_allocated_mem': False, 'FLAGS_initial_cpu_memory_in_mb': 500, 'FLAGS_inner_op_parallelism': 0,
    'FLAGS_memory_fraction_of_eager_deletion': 1.0, 'FLAGS_multiple_of_cupti_buffer_size': 1,
    'FLAGS_paddle_num_threads': 1, 'FLAGS_pe_profile_fname': '', 'FLAGS_print_sub_graph_dir': '',
    'FLAGS_reader_queue_speed_test_mode': False, 'FLAGS_tracer_profile_fname': 'xxgperf',
    'FLAGS_use_pinned_memory': True, 'FLAGS_use_system_allocator': False,
}
_lock = threading.Lock()


def get_flags(flags) -> dict:
    """{name: value} of a flag name or a list/tuple of them; ValueError for a flag that is not public."""
    if isinstance(flags, str):
        flags = [flags]
    elif not isinstance(flags, (list, tuple)):
        raise TypeError('Flags in get_flags should be a list, tuple or string.')
    out = {}
    for key in flags:
        if key not in _FLAGS:
            raise ValueError('Flag %s cannot get its value through this function.' % key)
        out[key] = _FLAGS[key]
    return out


def set_flags(flags: dict) -> None:
    """Sets public flags from {name: value}, converted to the flag's type; ValueError for any other name."""
    if not isinstance(flags, dict):
        raise TypeError('flags in set_flags should be a dict')
    with _lock:
        for key, value in flags.items():
            if key not in _FLAGS:
                raise ValueError('Flag %s cannot set its value through this function.' % key)
            _FLAGS[key] = type(_FLAGS[key])(value)


def public_flags() -> list[str]:
    """The names get_flags / set_flags accept."""
    return list(_FLAGS)
