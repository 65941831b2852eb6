"""fluid.layers.distributions (Paddle 1.8's module path). paddle_exec implements none of its 4 names yet; the module
is here so that fluid.layers keeps Paddle's layout.
"""

__all__ = []
