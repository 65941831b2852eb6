"""paddle.* tensor functions (2.x signatures) over the shared builders."""
from .complex import *
from .creation import *
from .elementwise import *
from .linalg import cholesky, inverse, norm
from .logic import *
from .manipulation import *
from .math import *
from .matrix import *
from .ops import *
from .random import *
from .search import *
from .stat import *
