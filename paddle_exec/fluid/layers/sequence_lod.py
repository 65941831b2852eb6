"""fluid.layers.sequence_lod (Paddle 1.8's module path). paddle_exec implements none of its 16 names yet; the module
is here so that fluid.layers keeps Paddle's layout.
"""

__all__ = []
