"""The static-graph IR: Program, Block, Variable, Parameter, Operator, scopes, dtypes and names. No numerics."""
from . import unique_name
from .dtype import VarType, convert_dtype, to_numpy, to_var_type
from .operator import Operator, OpRole
from .place import CPUPlace, CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda
from .program import (
                      Block,
                      Program,
                      default_main_program,
                      default_startup_program,
                      name_scope,
                      program_guard,
                      switch_main_program,
                      switch_startup_program,
)
from .scope import LoDTensor, Scope, ScopeVar, SelectedRows, global_scope, scope_guard
from .variable import Parameter, Variable, grad_var_name
