"""`python -m paddle_exec.cli`: the paddle-exec command without its console script."""
import sys

from . import main

sys.exit(main())
