"""fluid.incubate.fleet.base.role_maker: Paddle 1.8's role makers (collective roles only)."""
from .....distributed.fleet.role_maker import (
    MPISymetricRoleMaker,
    PaddleCloudRoleMaker,
    Role,
    RoleMakerBase,
    UserDefinedCollectiveRoleMaker,
    UserDefinedRoleMaker,
)

GeneralRoleMaker = PaddleCloudRoleMaker

__all__ = ['Role', 'RoleMakerBase', 'MPISymetricRoleMaker', 'UserDefinedRoleMaker', 'UserDefinedCollectiveRoleMaker',
           'PaddleCloudRoleMaker', 'GeneralRoleMaker']
