"""fluid.initializer (Paddle 1.8's module path): the 1.x initializers (paddle_exec/initializer.py). `__all__` is the
part of 1.8.5's that paddle_exec implements; the base class Initializer is a module attribute there too, and
set_global_initializer is 2.x's fluid.initializer name."""
from ..initializer import (  # noqa: F401  (Initializer: outside __all__)
    MSRA,
    Bilinear,
    BilinearInitializer,
    Constant,
    ConstantInitializer,
    Initializer,
    MSRAInitializer,
    Normal,
    NormalInitializer,
    NumpyArrayInitializer,
    TruncatedNormal,
    TruncatedNormalInitializer,
    Uniform,
    UniformInitializer,
    Xavier,
    XavierInitializer,
    set_global_initializer,
)

__all__ = ['Bilinear', 'BilinearInitializer', 'Constant', 'ConstantInitializer', 'MSRA', 'MSRAInitializer', 'Normal',
           'NormalInitializer', 'NumpyArrayInitializer', 'TruncatedNormal', 'TruncatedNormalInitializer', 'Uniform',
           'UniformInitializer', 'Xavier', 'XavierInitializer']
