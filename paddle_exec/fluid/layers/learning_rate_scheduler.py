"""fluid.layers.learning_rate_scheduler: 1.8's module path of the learning-rate decays (layers/learning_rate.py)."""
from ...layers.learning_rate import *
from ...layers.learning_rate import __all__
