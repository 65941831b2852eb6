"""fluid.contrib.decoder.beam_search_decoder (Paddle 1.8's module path): recurrent decoders over LoD sequences,
issue 11's; nothing is exported yet."""

__all__ = []
