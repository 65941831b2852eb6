"""paddle.utils.lazy_import: try_import, an import with an install hint when the module is missing."""
from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ['try_import']


def try_import(module_name: str, err_msg: str | None = None) -> ModuleType:
    """The module, or ImportError naming the pip package to install (Paddle's wording)."""
    install_name = module_name.split('.')[0]
    if module_name == 'cv2':
        install_name = 'opencv-python'
    try:
        return importlib.import_module(module_name)
    except ImportError:
        if err_msg is None:
            err_msg = ('Failed importing {}. This likely means that some paddle modules require additional '
                       'dependencies that have to be manually installed (usually with `pip install {}`). '
                       ).format(module_name, install_name)
        raise ImportError(err_msg) from None
