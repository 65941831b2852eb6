"""fluid.transpiler.distribute_transpiler (Paddle 1.8's module path). The parameter-server transpiler is declined (see
fluid.transpiler); the module exports nothing."""

__all__ = []
