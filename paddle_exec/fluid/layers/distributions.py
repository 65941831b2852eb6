"""fluid.layers.distributions (Paddle 1.8's module path): Uniform, Normal, Categorical, MultivariateNormalDiag.

Only maps names: the classes are implemented once, in paddle_exec/layers/distributions.py.
"""
from ...layers.distributions import Categorical, MultivariateNormalDiag, Normal, Uniform

__all__ = ['Categorical', 'MultivariateNormalDiag', 'Normal', 'Uniform']
