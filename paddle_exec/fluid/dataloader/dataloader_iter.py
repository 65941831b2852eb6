"""fluid.dataloader.dataloader_iter (Paddle 1.8's module path). It exports nothing in 1.8 either; 1.8's
default_collate_fn, defined here there, is fluid.io.default_collate_fn (paddle_exec/io/dataloader.py)."""
from ...io.dataloader import fluid_default_collate_fn as default_collate_fn  # noqa: F401  (1.8 defines it here)

__all__ = []
