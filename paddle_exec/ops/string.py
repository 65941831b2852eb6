"""String ops of the text pipeline: `decode_csv` and `string_to_hash_bucket`, on string tensors.

A string tensor is a numpy object array of Python `str` (dtype VarType.STRINGS). None of these ops has a
gradient: their outputs are strings or integer ids (builders mark them stop_gradient).

decode_csv(Records) -> Output[0..n-1], TensorFlow's `tf.io.decode_csv`:
    record_defaults  one entry per column: [default] or [] (the column is required). The default's Python type
                     gives the column dtype as TF does: str -> STRINGS, float -> float32, int -> int32; a numpy
                     scalar (np.int64(0), np.float64(0)) keeps its own dtype (`out_dtypes` records the result)
    field_delim      one character, ',' by default
    use_quote_delim  "a,b" style quoting (with "" for a quote) is understood, as TF's default
    na_value         a field equal to it counts as missing (takes the default)
Each output has the shape of Records. Errors use TF's words: "Expect 2 fields but have 3 in record 0",
"Field 1 is required but missing in record 4!", "Field 0 in record 2 is not a valid float: abc".

string_to_hash_bucket(X) -> Out: int64 bucket ids `Fingerprint64(s) % num_buckets` in X's shape. This is TF's
`string_to_hash_bucket_fast` (FarmHash Fingerprint64, kernels/string.py), stable across runs and machines.
(TF's legacy `string_to_hash_bucket` used its own deprecated Hash64; we give the fast/fingerprint one under both
names.)
"""
from __future__ import annotations

import csv

import numpy as np

from ..framework.dtype import VarType, to_numpy, to_var_type
from ..framework.registry import defop, kernel_rule, shape_rule
from ..kernels import string as KS

__all__ = ['column_dtype']

defop('decode_csv', ['Records'], ['Output'],
      {'record_defaults': [], 'out_dtypes': [], 'field_delim': ',', 'use_quote_delim': True, 'na_value': ''},
      duplicable=['Output'])
defop('string_to_hash_bucket', ['X'], ['Out'], {'num_buckets': 1})


def column_dtype(default: list) -> VarType:
    """The dtype TF gives a decode_csv column from its record default ([] means required: string)."""
    if not default:
        return VarType.STRINGS
    value = default[0]
    if isinstance(value, (str, bytes)):
        return VarType.STRINGS
    if isinstance(value, (bool, np.bool_)):
        raise TypeError('decode_csv: a record default of type bool is not supported (use int or float), got %r'
                        % (value,))
    if isinstance(value, np.generic):
        return to_var_type(value.dtype)
    if isinstance(value, float):
        return VarType.FP32
    if isinstance(value, int):
        return VarType.INT32
    raise TypeError('decode_csv: record defaults must be str, int or float (or numpy scalars), got %r (%s)'
                    % (value, type(value).__name__))


@shape_rule('decode_csv')
def _decode_csv_shape(ctx):
    shape = ctx.in_shape('Records')
    dtypes = ctx.attr('out_dtypes')
    for k, dtype in enumerate(dtypes):
        ctx.set_output('Output', shape, VarType(dtype), i=k)


@shape_rule('string_to_hash_bucket')
def _hash_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('X'), VarType.INT64)


def _split(flat: np.ndarray, delim: str, quoted: bool, n_fields: int) -> list[list[str]]:
    lines = [r.decode('utf-8') if isinstance(r, bytes) else str(r) for r in flat]
    if not quoted or not any('"' in line for line in lines):
        return KS.split_records(lines, delim, n_fields)
    rows = list(csv.reader(lines, delimiter=delim, quotechar='"', doublequote=True, strict=True))
    for r, fields in enumerate(rows):
        if len(fields) != n_fields:
            raise ValueError('Expect %d fields but have %d in record %d' % (n_fields, len(fields), r))
    return rows


_TYPE_WORD = {VarType.FP32: 'float', VarType.FP64: 'double', VarType.INT32: 'int32', VarType.INT64: 'int64'}


def _column(rows: list, k: int, default: list, dtype: VarType, na_value: str, shape) -> np.ndarray:
    fields = [row[k] for row in rows]
    for r, f in enumerate(fields):
        if f == '' or (na_value and f == na_value):
            if not default:
                raise ValueError('Field %d is required but missing in record %d!' % (k, r))
            fields[r] = default[0]
    if dtype == VarType.STRINGS:
        out = np.empty(len(fields), dtype=object)
        out[:] = [f if isinstance(f, str) else str(f) for f in fields]
        return out.reshape(shape)
    np_dtype = to_numpy(dtype)
    try:
        return np.array(fields, dtype=object).astype(np_dtype).reshape(shape)
    except (ValueError, OverflowError):
        for r, f in enumerate(fields):
            try:
                np.array([f], dtype=object).astype(np_dtype)
            except (ValueError, OverflowError):
                raise ValueError('Field %d in record %d is not a valid %s: %s'
                                 % (k, r, _TYPE_WORD.get(dtype, np_dtype.name), f)) from None
        raise


@kernel_rule('decode_csv')
def _decode_csv_kernel(spec):
    defaults = [list(d) for d in spec.attr('record_defaults')]
    dtypes = [VarType(d) for d in spec.attr('out_dtypes')]
    delim = spec.attr('field_delim')
    quoted = bool(spec.attr('use_quote_delim'))
    na_value = spec.attr('na_value') or ''
    n = len(defaults)

    def run(records):
        records = np.asarray(records, dtype=object)
        rows = _split(records.reshape(-1), delim, quoted, n)
        return ([_column(rows, k, defaults[k], dtypes[k], na_value, records.shape) for k in range(n)],)
    return run


@kernel_rule('string_to_hash_bucket')
def _hash_kernel(spec):
    num_buckets = int(spec.attr('num_buckets'))
    return lambda x: (KS.hash_buckets(x, num_buckets),)
