"""paddle.nn.functional: 2.x functional builders over the shared layer builders."""
from .activation import *
from .common import *
from .conv import *
from .distance import *
from .input import *
from .loss import *
from .norm import *
from .pooling import *
from .vision import *
