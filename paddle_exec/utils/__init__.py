"""paddle.utils (Paddle 2.6's module path): deprecated, require_version, run_check, try_import, and the
submodules scripts reach for: unique_name, flops (one op's FLOPs), download (get_weights_path_from_url; offline
here: a clear error naming the URL and the path to put the file at), install_check, lazy_import, flags
(get_flags / set_flags). cpp_extension
(C++ custom ops) is declined (paddle_exec/_declined.py).
"""
from .._declined import declined_getattr
from . import deprecated as _deprecated_module
from . import download, flags, flops, install_check, lazy_import, unique_name
from .deprecated import deprecated
from .install_check import run_check
from .lazy_import import try_import
from .version import require_version

__all__ = ['deprecated', 'require_version', 'run_check', 'try_import']

__getattr__ = declined_getattr(__name__)
