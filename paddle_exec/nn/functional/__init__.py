"""paddle.nn.functional: 2.x functional builders over the shared layer builders."""
from .activation import *
from .common import *
from .conv import *
from .distance import *
from .input import *
from .loss import *
from .loss_classification import *
from .loss_metric import *
from .loss_regression import *
from .norm import *
from .pooling import *
