"""fluid.incubate.fleet.collective (Paddle 1.8's module path). 1.8's collective fleet (fleet.init,
distributed_optimizer) belongs to the distributed engineer's issue; nothing is exported here yet."""

__all__ = []
