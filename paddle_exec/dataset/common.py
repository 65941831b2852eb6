"""paddle.dataset.common: the download cache every dataset module shares, in Paddle 1.8's layout.

A file of dataset `module_name` lives at `DATA_HOME/module_name/<last part of the URL or save_name>`, with
DATA_HOME = ~/.cache/paddle/dataset as in Paddle, so files Paddle already downloaded are reused as they are. A file
is used when its md5 is the one the dataset module names; otherwise it is downloaded (Python's urllib, no extra
dependency) and checked again, up to three times as Paddle does.

Without network the download cannot happen; the RuntimeError then names the URL, the md5 and the path where the
file can be put by hand. `verify_md5 = False` (module attribute) trusts any file already at its path: for small
fixture files in the real formats (`paddle_exec.dataset.synthetic`), never for real use.

Every dataset module calls `common.download` and reads `common.DATA_HOME` at call time, so tests may point both
elsewhere.
"""
from __future__ import annotations

import glob
import hashlib
import os
import pickle
import shutil
import sys
import urllib.error
import urllib.request

__all__ = ['DATA_HOME', 'download', 'md5file', 'split', 'cluster_files_reader']

DATA_HOME = os.path.expanduser('~/.cache/paddle/dataset')
RETRY_LIMIT = 3
verify_md5 = True


def md5file(fname: str) -> str:
    hash_md5 = hashlib.md5()
    with open(fname, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            hash_md5.update(chunk)
    return hash_md5.hexdigest()


def cache_path(url: str, module_name: str, save_name: str | None = None) -> str:
    """Where `download` keeps the file of `url` (Paddle's layout)."""
    return os.path.join(DATA_HOME, module_name, url.split('/')[-1] if save_name is None else save_name)


def _usable(filename: str, md5sum: str) -> bool:
    return os.path.exists(filename) and (not verify_md5 or md5file(filename) == md5sum)


def download(url: str, module_name: str, md5sum: str, save_name: str | None = None) -> str:
    """The path of the cached file of `url`, downloaded first when it is missing or its md5 is not `md5sum`."""
    filename = cache_path(url, module_name, save_name)
    if _usable(filename, md5sum):
        return filename
    os.makedirs(os.path.dirname(filename), exist_ok=True)
    for _ in range(RETRY_LIMIT):
        if os.path.exists(filename):
            sys.stderr.write('file %s  md5 %s\n' % (md5file(filename), md5sum))
        sys.stderr.write('Cache file %s not found, downloading %s \n' % (filename, url))
        try:
            _fetch(url, filename)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise RuntimeError(
                'Cannot download %s (%s). Without network, put the file (md5 %s) at %s by hand: files that Paddle '
                'downloaded before are reused from the same place.' % (url, exc, md5sum, filename)) from None
        if md5file(filename) == md5sum:
            sys.stderr.write('\nDownload finished\n')
            return filename
    raise RuntimeError('Cannot download {0} within retry limit {1}: the file at {2} does not have md5 {3}'
                       .format(url, RETRY_LIMIT, filename, md5sum))


def _fetch(url: str, filename: str) -> None:
    partial = filename + '.part'
    with urllib.request.urlopen(url, timeout=30) as response, open(partial, 'wb') as out:
        shutil.copyfileobj(response, out, 1 << 20)
    os.replace(partial, filename)


def split(reader, line_count: int, suffix: str = '%05d.pickle', dumper=pickle.dump) -> None:
    """Writes the samples of `reader` into files of about `line_count` samples each, named `suffix % index`
    (Paddle's grouping: the first file gets line_count + 1 samples)."""
    if not callable(dumper):
        raise TypeError('dumper should be callable.')
    lines = []
    indx_f = 0
    for i, d in enumerate(reader()):
        lines.append(d)
        if i >= line_count and i % line_count == 0:
            with open(suffix % indx_f, 'wb') as f:
                dumper(lines, f)
                lines = []
                indx_f += 1
    if lines:
        with open(suffix % indx_f, 'wb') as f:
            dumper(lines, f)


def cluster_files_reader(files_pattern: str, trainer_count: int, trainer_id: int, loader=pickle.load):
    """A reader of the samples in the files matching `files_pattern` (sorted) whose index modulo `trainer_count`
    is `trainer_id`: the files written by `split`, shared out over trainers."""

    def reader():
        if not callable(loader):
            raise TypeError('loader should be callable.')
        file_list = sorted(glob.glob(files_pattern))
        my_file_list = []
        for idx, fn in enumerate(file_list):
            if idx % trainer_count == trainer_id:
                print('append file: %s' % fn)
                my_file_list.append(fn)
        for fn in my_file_list:
            with open(fn, 'rb') as f:
                yield from loader(f)

    return reader
