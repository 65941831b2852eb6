"""paddle.static.nn."""
from ...layers.control_flow import case, cond, switch_case, while_loop
from .common import *
