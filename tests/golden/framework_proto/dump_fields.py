"""Writes the field table of an installed Paddle's framework.proto (its framework_pb2 descriptor) as JSON, for
tests/api/test_framework_proto.py. Runs only where Paddle is installed (from tests/golden/framework_proto):

    /work/pd18/bin/python dump_fields.py 1.8.5 > paddle_1.8.5.json
    /work/pd26/bin/python dump_fields.py 2.6.2 > paddle_2.6.2.json
"""
import json
import sys

try:
    from paddle.base.proto import framework_pb2
except ImportError:
    from paddle.fluid.proto import framework_pb2

LABELS = {1: 'optional', 2: 'required', 3: 'repeated'}


def label(field):
    if hasattr(field, 'label'):
        return LABELS[field.label]
    return 'repeated' if field.is_repeated else ('required' if field.is_required else 'optional')


def short(full_name):
    return full_name.split('.', 3)[-1] if full_name else ''   # drop the package 'paddle.framework.proto.'


def walk(message, out):
    fields = {}
    for f in message.fields:
        kind = f.message_type or f.enum_type
        fields[f.name] = [f.number, label(f), f.type, short(kind.full_name) if kind else '',
                          repr(f.default_value) if f.has_default_value else None]
    out['messages'][short(message.full_name)] = fields
    for enum in message.enum_types:
        out['enums'][short(enum.full_name)] = {v.name: v.number for v in enum.values}
    for nested in message.nested_types:
        walk(nested, out)


def main():
    out = {'paddle': sys.argv[1], 'messages': {}, 'enums': {}}
    for enum in framework_pb2.DESCRIPTOR.enum_types_by_name.values():
        out['enums'][short(enum.full_name)] = {v.name: v.number for v in enum.values}
    for message in framework_pb2.DESCRIPTOR.message_types_by_name.values():
        walk(message, out)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
