"""fluid.unique_name (Paddle 1.8's module path): generate, guard, switch (paddle_exec/framework/unique_name.py, whose
generator state they share); UniqueNameGenerator and generate_with_ignorable_key are module attributes there too."""
from ..framework.unique_name import (  # noqa: F401  (1.8 defines the others here, outside __all__)
    UniqueNameGenerator,
    generate,
    generate_with_ignorable_key,
    guard,
    switch,
)

__all__ = ['generate', 'guard', 'switch']
