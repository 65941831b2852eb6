"""fluid.contrib.decoder (Paddle 1.8's module path). Its names (BeamSearchDecoder, InitState, StateCell,
TrainingDecoder) are recurrent decoders over LoD sequences: issue 11's."""
from . import beam_search_decoder

__all__ = []
