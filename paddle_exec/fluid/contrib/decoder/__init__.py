"""fluid.contrib.decoder (Paddle 1.8's module path): InitState, StateCell, TrainingDecoder and BeamSearchDecoder,
the contributed decoders over LoD sequences (beam_search_decoder.py)."""
from . import beam_search_decoder
from .beam_search_decoder import *

__all__ = beam_search_decoder.__all__
