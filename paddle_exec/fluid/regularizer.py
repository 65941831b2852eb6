"""fluid.regularizer (Paddle 1.8's module path): L1 / L2 weight decay (paddle_exec/regularizer.py);
WeightDecayRegularizer and append_regularization_ops are module attributes there too."""
from ..regularizer import (  # noqa: F401  (1.8 defines the last two here, outside __all__)
    L1Decay,
    L1DecayRegularizer,
    L2Decay,
    L2DecayRegularizer,
    WeightDecayRegularizer,
    append_regularization_ops,
)

__all__ = ['L1Decay', 'L1DecayRegularizer', 'L2Decay', 'L2DecayRegularizer']
