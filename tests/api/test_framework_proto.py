"""static/framework.proto against the framework.proto of real Paddle 1.8.5 and 2.6.2: every message and field
they have that a model file can hold has the same number, label, type and default here, and every enum value
the same number. The tables were dumped from Paddle's own framework_pb2 descriptors by
tests/golden/framework_proto/dump_fields.py."""
import json
import os

import pytest

from paddle_exec.static import framework_pb2

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'framework_proto')
# Paddle's descriptions of its C++ operator registry, never part of a model file
NOT_IN_MODEL_FILES = {'OpProto', 'OpProto.Var', 'OpProto.Attr'}
LABELS = {1: 'optional', 2: 'required', 3: 'repeated'}


def label(field):
    if hasattr(field, 'label'):
        return LABELS[field.label]
    return 'repeated' if field.is_repeated else ('required' if field.is_required else 'optional')


def short(full_name):
    return full_name.split('.', 2)[-1] if full_name else ''        # drop 'paddle_exec.framework_proto.'


def our_tables():
    messages, enums = {}, {}

    def walk(message):
        messages[short(message.full_name)] = {
            f.name: [f.number, label(f), f.type, short((f.message_type or f.enum_type).full_name)
                     if (f.message_type or f.enum_type) else '', repr(f.default_value) if f.has_default_value else None]
            for f in message.fields}
        for enum in message.enum_types:
            enums[short(enum.full_name)] = {v.name: v.number for v in enum.values}
        for nested in message.nested_types:
            walk(nested)
    for enum in framework_pb2.DESCRIPTOR.enum_types_by_name.values():
        enums[short(enum.full_name)] = {v.name: v.number for v in enum.values}
    for message in framework_pb2.DESCRIPTOR.message_types_by_name.values():
        walk(message)
    return messages, enums


@pytest.mark.parametrize('version', ['1.8.5', '2.6.2'])
def test_schema_matches_paddles(version):
    with open(os.path.join(GOLDEN, 'paddle_%s.json' % version)) as f:
        paddle = json.load(f)
    messages, enums = our_tables()
    for name, fields in paddle['messages'].items():
        if name in NOT_IN_MODEL_FILES:
            continue
        assert name in messages, name
        for field_name, spec in fields.items():
            assert messages[name].get(field_name) == spec, (version, name, field_name)
    for name, values in paddle['enums'].items():
        for value_name, number in values.items():
            assert enums[name][value_name] == number, (version, name, value_name)


def test_only_the_documented_difference():
    """Ours is 2.6.2's (less OpProto) plus 1.8.5's op_compatible_map: nothing of our own invention."""
    tables = {}
    for version in ('1.8.5', '2.6.2'):
        with open(os.path.join(GOLDEN, 'paddle_%s.json' % version)) as f:
            tables[version] = json.load(f)
    messages, enums = our_tables()
    for name, fields in messages.items():
        for field_name, spec in fields.items():
            assert any(t['messages'].get(name, {}).get(field_name) == spec for t in tables.values()), \
                (name, field_name)
    for name, values in enums.items():
        for value_name, number in values.items():
            assert any(t['enums'].get(name, {}).get(value_name) == number for t in tables.values()), \
                (name, value_name)
