"""fluid.contrib: Paddle 1.8's contributed APIs that paddle_exec has (contrib.reader)."""
from . import reader
