"""fluid.layers.device (Paddle 1.8's module path). It exports nothing in 1.8 either."""

__all__ = []
