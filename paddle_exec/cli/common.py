"""What the subcommands share: finding a saved model on disk, one-line errors, progress bars, plain-text tables.

A saved model is found the way Paddle's loaders and netron find one, from whatever path the user has at hand:
    DIR with __model__                  Paddle 1.8 `fluid.io.save_inference_model`: parameters one file each, or
                                        combined in DIR/__params__ (found by name, or --params-filename)
    DIR with one NAME.pdmodel           Paddle 2.x `static.save_inference_model(DIR/NAME, ...)`
    PREFIX, PREFIX.pdmodel              the same, named by its prefix or its model file
    DIR/__model__, any other file       a ProgramDesc file; parameters looked for beside it
`SavedModel` records which of these it is; `read_program` parses the program alone (inspect needs no values),
`load_inference` loads the program and its parameters through `static.load_inference_model`.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass

from .. import static
from ..framework.dtype import convert_dtype

__all__ = ['CliError', 'SavedModel', 'locate_model', 'read_program', 'load_inference', 'progress', 'format_table',
           'human_bytes', 'shape_text', 'dtype_text']


class CliError(Exception):
    """An error the command reports in one line (`paddle-exec: error: <message>`), exit status 1."""


try:                                    # progress bars are an optional extra (pip install 'paddle_exec[cli]')
    from tqdm import tqdm as _tqdm
except ImportError:                     # pragma: no cover - exercised only where tqdm is absent
    _tqdm = None


def progress(iterable=None, total: int | None = None, desc: str | None = None, leave: bool = False):
    """A tqdm bar on stderr over `iterable` when tqdm is installed and stderr is a terminal; the iterable itself
    otherwise (so piped output and tests stay clean)."""
    if _tqdm is None:
        return iterable if iterable is not None else range(total or 0)
    return _tqdm(iterable, total=total, desc=desc, leave=leave, disable=None, dynamic_ncols=True)


@dataclass
class SavedModel:
    """Where a saved model's files are. `loader_path` and the two file names are what load_inference_model takes."""
    kind: str                   # 'paddle-1.8' (a folder with __model__) or 'paddle-2.x' (PREFIX.pdmodel)
    model_file: str             # the ProgramDesc file
    loader_path: str            # a folder (1.8) or a path prefix (2.x)
    model_filename: str | None
    params_filename: str | None     # None: one file per variable in the folder (1.8), or PREFIX.pdiparams (2.x)

    def is_checkpoint(self) -> bool:
        """static.save's PREFIX.pdmodel + PREFIX.pdparams, without an inference model's PREFIX.pdiparams."""
        return (self.kind == 'paddle-2.x' and not os.path.exists(self.loader_path + '.pdiparams')
                and os.path.exists(self.loader_path + '.pdparams'))

    def describe(self) -> str:
        if self.kind == 'paddle-2.x':
            params = self.loader_path + '.pdiparams'
            if self.is_checkpoint():
                return ('%s (a training checkpoint written by static.save: parameters in %s.pdparams, optimizer '
                        'state in %s.pdopt)' % (self.model_file, self.loader_path, self.loader_path))
            held = params if os.path.exists(params) else 'none (%s is missing)' % os.path.basename(params)
            return '%s (Paddle 2.x layout; parameters: %s)' % (self.model_file, held)
        if self.params_filename:
            held = os.path.join(self.loader_path, self.params_filename)
        else:
            held = 'one file per variable in %s' % self.loader_path
        return '%s (Paddle 1.8 layout; parameters: %s)' % (self.model_file, held)


def _folder_model(folder: str, model_filename: str | None, params_filename: str | None) -> SavedModel:
    if model_filename or os.path.exists(os.path.join(folder, '__model__')):
        name = os.path.basename(model_filename or '__model__')
        model_file = os.path.join(folder, name)
        if not os.path.isfile(model_file):
            raise CliError('no model file %s' % model_file)
        if params_filename is None and os.path.exists(os.path.join(folder, '__params__')):
            params_filename = '__params__'
        return SavedModel('paddle-1.8', model_file, folder, name, params_filename)
    pdmodels = sorted(glob.glob(os.path.join(glob.escape(folder), '*.pdmodel')))
    if len(pdmodels) == 1:
        return SavedModel('paddle-2.x', pdmodels[0], pdmodels[0][:-len('.pdmodel')], None, params_filename)
    if len(pdmodels) > 1:
        raise CliError('%s holds %d .pdmodel files (%s): name one of them'
                       % (folder, len(pdmodels), ', '.join(os.path.basename(p) for p in pdmodels)))
    raise CliError('no model in %s: expected __model__ (Paddle 1.8 save_inference_model) or NAME.pdmodel '
                   '(Paddle 2.x save_inference_model)' % folder)


def locate_model(path: str, model_filename: str | None = None, params_filename: str | None = None) -> SavedModel:
    """The SavedModel at `path` (see the module docstring); CliError naming the path when there is none."""
    if os.path.isdir(path):
        return _folder_model(path, model_filename, params_filename)
    if path.endswith('.pdmodel') and os.path.isfile(path):
        return SavedModel('paddle-2.x', path, path[:-len('.pdmodel')], None, params_filename)
    if os.path.isfile(path):
        folder = os.path.dirname(path) or '.'
        return _folder_model(folder, model_filename or os.path.basename(path), params_filename)
    if os.path.isfile(path + '.pdmodel'):
        return SavedModel('paddle-2.x', path + '.pdmodel', path, None, params_filename)
    raise CliError('no such model: %s (give a folder with __model__, a NAME.pdmodel file or its path prefix)' % path)


def read_program(model: SavedModel):
    """(Program, feed names, fetch names) parsed from the model file; no parameter is read."""
    with open(model.model_file, 'rb') as f:
        data = f.read()
    try:
        return static.program_from_model_bytes(data)
    except Exception as exc:
        raise CliError('%s is not a program description Paddle or paddle_exec wrote: %s'
                       % (model.model_file, exc)) from exc


def load_inference(model: SavedModel, executor):
    """[program, feed names, fetch Variables] with the parameters loaded into the current scope."""
    if model.kind == 'paddle-2.x':
        if model.is_checkpoint():
            raise CliError('%s is a training checkpoint (static.save), not an inference model: save one with '
                           'static.save_inference_model to run it' % model.model_file)
        if not os.path.exists(model.loader_path + '.pdiparams'):
            raise CliError('%s.pdiparams is missing: run needs the parameters that save_inference_model writes '
                           'beside %s' % (model.loader_path, model.model_file))
        return static.load_inference_model(model.loader_path, executor)
    return static.load_inference_model(model.loader_path, executor, model_filename=model.model_filename,
                                       params_filename=model.params_filename)


# --- text -------------------------------------------------------------------------------------------------------

def human_bytes(n: float) -> str:
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if n < 1024 or unit == 'GiB':
            return ('%d %s' % (n, unit)) if unit == 'B' else ('%.1f %s' % (n, unit))
        n /= 1024.0
    return '%.1f GiB' % n


def shape_text(shape) -> str:
    return '[%s]' % ', '.join(str(d) for d in shape)


def dtype_text(var) -> str:
    try:
        return convert_dtype(var.dtype)
    except (ValueError, TypeError, KeyError):
        return str(var.dtype)


def format_table(rows: list, headers: list, align: str | None = None) -> str:
    """Rows of cells as aligned text; `align` holds one 'l' or 'r' per column (numbers right, text left)."""
    cells = [[str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    align = align or 'l' * len(headers)

    def line(row):
        return '  '.join(c.rjust(w) if a == 'r' else c.ljust(w) for c, w, a in zip(row, widths, align)).rstrip()

    return '\n'.join([line(headers), line(['-' * w for w in widths])] + [line(r) for r in cells])
