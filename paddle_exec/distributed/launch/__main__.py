"""python -m paddle_exec.distributed.launch: see __init__.py."""
import sys

from . import main

sys.exit(main())
