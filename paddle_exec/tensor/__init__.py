"""paddle.* tensor functions (2.x signatures) over the shared builders."""
from .creation import *
from .logic import *
from .manipulation import *
from .math import *
from .random import *
from .search import *
from .stat import *
