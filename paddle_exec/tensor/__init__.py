"""paddle.* tensor functions (2.x signatures) over the shared builders."""
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
