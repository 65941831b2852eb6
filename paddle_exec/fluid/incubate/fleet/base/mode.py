"""fluid.incubate.fleet.base.mode (Paddle 1.8's module path): the fleet modes, as 1.8 numbers them."""

__all__ = ['Mode']


class Mode:
    """How a fleet trains: TRANSPILER (pserver transpiler), PSLIB (Downpour), COLLECTIVE (all-reduce)."""
    TRANSPILER = 1
    PSLIB = 2
    COLLECTIVE = 3
