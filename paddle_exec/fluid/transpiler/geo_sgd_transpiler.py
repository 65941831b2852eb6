"""fluid.transpiler.geo_sgd_transpiler (Paddle 1.8's module path). The parameter-server transpilers are declined (see
fluid.transpiler); the module exports nothing."""

__all__ = []
