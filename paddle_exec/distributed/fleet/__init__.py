"""paddle.distributed.fleet: the module-level API over one Fleet object, as Paddle 2.x lays it out (fleet.py)."""
from .fleet import DistributedOptimizer, Fleet
from .role_maker import PaddleCloudRoleMaker, Role, UserDefinedRoleMaker
from .strategy import DistributedStrategy
from .util import UtilBase

__all__ = ['DistributedStrategy', 'UtilBase', 'UserDefinedRoleMaker', 'PaddleCloudRoleMaker', 'Role', 'Fleet',
           'init', 'is_first_worker', 'worker_index', 'worker_num', 'node_num', 'local_rank', 'is_worker',
           'is_server', 'worker_endpoints', 'server_num', 'server_index', 'server_endpoints', 'barrier_worker',
           'init_worker', 'stop_worker', 'init_server', 'run_server', 'distributed_optimizer', 'minimize',
           'save_persistables', 'save_inference_model', 'util']

fleet = Fleet()
init = fleet.init
is_first_worker = fleet.is_first_worker
worker_index = fleet.worker_index
worker_num = fleet.worker_num
node_num = fleet.node_num
local_rank = fleet.local_rank
is_worker = fleet.is_worker
is_server = fleet.is_server
is_coordinator = fleet.is_coordinator
worker_endpoints = fleet.worker_endpoints
server_num = fleet.server_num
server_index = fleet.server_index
server_endpoints = fleet.server_endpoints
barrier_worker = fleet.barrier_worker
init_worker = fleet.init_worker
stop_worker = fleet.stop_worker
init_server = fleet.init_server
run_server = fleet.run_server
distributed_optimizer = fleet.distributed_optimizer
minimize = fleet.minimize
save_persistables = fleet.save_persistables
save_inference_model = fleet.save_inference_model
util = fleet.util
