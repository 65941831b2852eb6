"""fluid.incubate.fleet.utils (Paddle 1.8's module path). A package path only, as in 1.8."""

__all__ = []
