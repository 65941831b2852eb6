"""paddle.nn.initializer: the 2.x initializer names (2.x argument names, e.g. Normal(mean, std))."""
from ..initializer import (
           Assign,
           KaimingNormal,
           KaimingUniform,
           XavierNormal,
           XavierUniform,
           calculate_gain,
           set_global_initializer,
)
from ..initializer import BilinearInitializer as Bilinear
from ..initializer import Constant2 as Constant
from ..initializer import DiracInitializer as Dirac
from ..initializer import Normal2 as Normal
from ..initializer import OrthogonalInitializer as Orthogonal
from ..initializer import TruncatedNormal2 as TruncatedNormal
from ..initializer import Uniform2 as Uniform

__all__ = ['Assign', 'Constant', 'KaimingNormal', 'KaimingUniform', 'Normal', 'TruncatedNormal', 'Uniform',
           'XavierNormal', 'XavierUniform', 'set_global_initializer', 'Bilinear', 'Dirac', 'Orthogonal',
           'calculate_gain']
