"""paddle.utils.download: get_weights_path_from_url, as Paddle lays its cache out (~/.cache/paddle/hapi/weights,
the file named after the URL's last part, checked by md5 when one is given). paddle_exec has no network access: a
file already in the cache (or put there by hand) is returned, anything else raises RuntimeError naming the URL,
the md5 and the path where the file can be put.
"""
from __future__ import annotations

import hashlib
import os.path as osp

__all__ = ['get_weights_path_from_url', 'get_path_from_url', 'WEIGHTS_HOME']

WEIGHTS_HOME = osp.expanduser('~/.cache/paddle/hapi/weights')


def _md5check(path: str, md5sum: str | None) -> bool:
    if md5sum is None:
        return True
    digest = hashlib.md5()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest() == md5sum


def get_path_from_url(url: str, root_dir: str, md5sum: str | None = None, check_exist: bool = True,
                      decompress: bool = True, method: str = 'get') -> str:
    """The local path of `url`'s file under root_dir, if it is there (and matches md5sum)."""
    if not url.startswith(('http://', 'https://')):
        raise ValueError('downloading from %s not a url' % url)
    path = osp.join(root_dir, url.split('/')[-1])
    if osp.exists(path) and (not check_exist or _md5check(path, md5sum)):
        return path
    raise RuntimeError('paddle_exec does not download files (no network access): %s is not in the cache. Download '
                       '%s%s yourself and put it at %s' % (osp.basename(path), url,
                                                           ' (md5 %s)' % md5sum if md5sum else '', path))


def get_weights_path_from_url(url: str, md5sum: str | None = None) -> str:
    """The cached weights file of `url` (~/.cache/paddle/hapi/weights/<name>); RuntimeError when it is missing."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)
