"""Names of the paddle namespace that paddle_exec declines, with the reason and what to use instead. The package's
module `__getattr__` raises AttributeError with this text (they are not stubs: they do not exist here). Kept sorted;
issue 12's shared declined-names mechanism (one table per module) takes them over.
"""

_DYGRAPH_ONLY = ('is dygraph-only in Paddle 2.6 (it raises in static mode there too); paddle_exec runs static '
                 'graphs only')

DECLINED = {
    'CUDAPinnedPlace': 'needs CUDA pinned host memory; paddle_exec runs on CPU places only (use paddle.CPUPlace())',
    'DataParallel': 'is the dygraph data-parallel wrapper; for data parallelism over places build a Program and run '
                    'it with static.CompiledProgram(...).with_data_parallel() or fluid.ParallelExecutor',
    'as_strided': _DYGRAPH_ONLY + ' (strided views share memory with a dygraph tensor)',
    'cauchy_': _DYGRAPH_ONLY + ' (an in-place random fill); draw with paddle.uniform and transform, or numpy',
    'geometric_': _DYGRAPH_ONLY + ' (an in-place random fill); draw with paddle.uniform and transform',
    'get_cuda_rng_state': 'reads the CUDA generators; paddle_exec has CPU places only (use paddle.get_rng_state)',
    'grad': _DYGRAPH_ONLY + '; in a static graph use paddle.static.gradients or paddle.static.append_backward',
    'normal_': _DYGRAPH_ONLY + ' (an in-place random fill); use paddle.normal',
    'set_cuda_rng_state': 'sets the CUDA generators; paddle_exec has CPU places only (use paddle.set_rng_state)',
    'tolist': _DYGRAPH_ONLY + '; fetch the value with an Executor and call .tolist() on the numpy array',
    'unfold': _DYGRAPH_ONLY + ' (a strided view); paddle.nn.functional.unfold is the im2col op',
    'view': _DYGRAPH_ONLY + ' (a view sharing memory); use paddle.reshape or paddle.cast',
    'view_as': _DYGRAPH_ONLY + ' (a view sharing memory); use paddle.reshape(x, other.shape)',
}


def declined_error(module: str, name: str) -> AttributeError:
    return AttributeError("module '%s' has no attribute '%s': paddle_exec declines it: %s %s"
                          % (module, name, name, DECLINED[name]))
