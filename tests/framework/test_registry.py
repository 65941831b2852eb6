"""The op registry refuses a second registration of a rule for one op type, except where defop's GradSpec
defaults are replaced on purpose."""
import re

import pytest

import paddle_exec  # noqa: F401  (registers every op)
from paddle_exec.framework import registry
from paddle_exec.framework.registry import GradSpec, RuleTable, defop, grad_rule, kernel_rule, shape_rule

THIS_FILE = 'tests/framework/test_registry.py'
TABLES = (registry.OPS, registry.SHAPE_RULES, registry.KERNEL_RULES, registry.GRAD_RULES)


@pytest.fixture
def op_type(request):
    """A throwaway op type name, removed from every table afterwards."""
    name = 'test_registry_' + re.sub(r'\W', '_', request.node.name)
    yield name
    for table in TABLES:
        table.forget(name)
        table.forget(name + '_grad')


def _line_of(marker: str) -> int:
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if marker in line and '_line_of' not in line:
                return n
    raise AssertionError(marker)


def _rule(*args):
    return None


def test_a_second_defop_names_the_type_and_both_places(op_type):
    defop(op_type, ['X'], ['Out'])                                      # first defop
    with pytest.raises(ValueError) as err:
        defop(op_type, ['X'], ['Out'])                                  # second defop
    msg = str(err.value)
    assert "op of op type '%s' registered twice" % op_type in msg
    assert '%s:%d' % (THIS_FILE, _line_of('# first defop')) in msg
    assert '%s:%d' % (THIS_FILE, _line_of('# second defop')) in msg


@pytest.mark.parametrize('decorator, table', [
    (shape_rule, registry.SHAPE_RULES), (kernel_rule, registry.KERNEL_RULES), (grad_rule, registry.GRAD_RULES)])
def test_a_second_rule_of_one_kind_names_the_type_and_both_places(op_type, decorator, table):
    defop(op_type, ['X'], ['Out'])
    decorator(op_type)(_rule)                                           # first rule
    with pytest.raises(ValueError) as err:
        decorator(op_type)(_rule)                                       # second rule
    msg = str(err.value)
    assert "%s of op type '%s' registered twice" % (table.what, op_type) in msg
    assert '%s:%d' % (THIS_FILE, _line_of('# first rule')) in msg
    assert '%s:%d' % (THIS_FILE, _line_of('# second rule')) in msg
    assert table[op_type] is _rule                                      # the first one stays


def test_a_decorator_site_is_the_line_of_the_decorator(op_type):
    defop(op_type, ['X'], ['Out'])

    @kernel_rule(op_type)                                               # decorated kernel
    def _kernel(spec):
        return None
    assert registry.KERNEL_RULES.sites[op_type] == (__file__, _line_of('# decorated kernel'))


def test_kernel_rule_for_several_types_registers_each_once(op_type):
    other = op_type + '_grad'
    kernel_rule(op_type, other)(_rule)
    assert registry.KERNEL_RULES[op_type] is registry.KERNEL_RULES[other] is _rule
    with pytest.raises(ValueError, match="kernel rule of op type '%s' registered twice" % other):
        kernel_rule(other)(_rule)


def test_explicit_grad_maker_and_grad_shape_rule_replace_gradspec_defaults(op_type):
    defop(op_type, ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
    default_maker = registry.GRAD_RULES[op_type]
    assert registry.SHAPE_RULES[op_type + '_grad'] is registry._grad_shape_rule

    def maker(g):
        return []

    def grad_shape(ctx):
        return None
    grad_rule(op_type)(maker)
    shape_rule(op_type + '_grad')(grad_shape)
    assert registry.GRAD_RULES[op_type] is maker and maker is not default_maker
    assert registry.SHAPE_RULES[op_type + '_grad'] is grad_shape
    # a default is replaced once; a second explicit rule is a real double registration
    with pytest.raises(ValueError, match="grad rule of op type '%s' registered twice" % op_type):
        grad_rule(op_type)(maker)
    with pytest.raises(ValueError, match="shape rule of op type '%s_grad' registered twice" % op_type):
        shape_rule(op_type + '_grad')(grad_shape)


def test_an_explicit_rule_registered_before_defop_keeps_its_place(op_type):
    def maker(g):
        return []
    grad_rule(op_type)(maker)
    defop(op_type, ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
    assert registry.GRAD_RULES[op_type] is maker
    assert op_type not in registry.GRAD_RULES.defaults


def test_the_grad_op_schema_of_a_gradspec_is_a_definition(op_type):
    defop(op_type, ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))
    with pytest.raises(ValueError, match="op of op type '%s_grad' registered twice" % op_type):
        defop(op_type + '_grad', ['X', 'Out@GRAD'], ['X@GRAD'])


def test_rule_tables_are_not_written_around_register():
    with pytest.raises(TypeError, match="kernel rule table is filled by defop and the rule decorators"):
        registry.KERNEL_RULES['sign'] = _rule
    with pytest.raises(TypeError, match='op table'):
        registry.OPS.setdefault('test_registry_setdefault', None)
    with pytest.raises(TypeError, match='grad rule table'):
        registry.GRAD_RULES.update({'sign': _rule})
    assert registry.KERNEL_RULES['sign'] is not _rule and 'test_registry_setdefault' not in registry.OPS


def test_rule_table_forget_allows_registering_again():
    table = RuleTable('test rule')
    table.register('t', 1, ('a.py', 1))
    table.forget('t')
    table.register('t', 2, ('b.py', 2))
    assert table['t'] == 2 and table.sites['t'] == ('b.py', 2)


def test_sign_is_registered_once_with_the_math_ops():
    for table in (registry.OPS, registry.SHAPE_RULES, registry.KERNEL_RULES, registry.GRAD_RULES):
        filename, _ = table.sites['sign']
        assert filename.endswith('paddle_exec/ops/math.py'), (table.what, filename)
