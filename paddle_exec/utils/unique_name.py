"""paddle.utils.unique_name: generate, guard, switch (the IR's unique-name generator)."""
from ..framework.unique_name import generate, guard, switch

__all__ = ['generate', 'switch', 'guard']
