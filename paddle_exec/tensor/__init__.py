"""paddle.* tensor functions (2.x signatures) over the shared builders."""
import types as _types

from .arrange import *
from .complex import *
from .creation import *
from .einsum import *
from .elementwise import *
from .gather_scatter import *
from .inplace import *
from .linalg import cholesky, inverse, norm
from .logic import *
from .manipulation import *
from .math import *
from .matrix import *
from .ops import *
from .order import *
from .random import *
from .reduction import *
from .search import *
from .stat import *

# the functions only: a star import of this package must not bind its submodules (tensor.linalg, tensor.fft, ...)
# over the paddle namespace's own modules (paddle_exec.linalg, .fft, .signal)
__all__ = [_n for _n, _v in list(globals().items()) if not _n.startswith('_') and not isinstance(_v, type(_types))]
