"""fluid.layers.io (Paddle 1.8's module path): `data`, the 1.x data layer, and the py_reader family
(py_reader, create_py_reader_by_data, double_buffer, read_file: paddle_exec/static/data_loader.py).

Only maps names: every builder is implemented once. `__all__` is the part of 1.8.5's `__all__` for this module
that paddle_exec implements.
"""
from ...layers.io import data
from ...static.data_loader import create_py_reader_by_data, double_buffer, py_reader, read_file

__all__ = ['create_py_reader_by_data', 'data', 'double_buffer', 'py_reader', 'read_file']
