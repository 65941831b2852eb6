"""A minimal protobuf wire-format encoder and decoder, for tests only: an oracle independent of the `protobuf`
runtime, to build hand-made messages and to check written bytes field by field against framework.proto."""
WIRE_VARINT, WIRE_FIXED64, WIRE_LEN, WIRE_FIXED32 = 0, 1, 2, 5


def varint(n):
    """Base-128 varint of `n`; negative values as their 64-bit two's complement (ten bytes), as protobuf writes
    int32 and int64."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n >> 7 else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(number, value, wire=None):
    """One field: bytes/str length-delimited, `wire=5` / `wire=1` for 4 / 8 raw bytes, else a varint."""
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes) and wire is None:
        return varint(number << 3 | WIRE_LEN) + varint(len(value)) + value
    if wire in (WIRE_FIXED32, WIRE_FIXED64):
        return varint(number << 3 | wire) + value
    return varint(number << 3) + varint(int(value))


def read_varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError('truncated varint')
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def decode_fields(buf):
    """[(field number, wire type, value)]: an int for varints, bytes for the other wire types."""
    fields, pos = [], 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == WIRE_VARINT:
            value, pos = read_varint(buf, pos)
        elif wire == WIRE_LEN:
            size, pos = read_varint(buf, pos)
            value, pos = bytes(buf[pos:pos + size]), pos + size
        else:
            size = {WIRE_FIXED64: 8, WIRE_FIXED32: 4}[wire]
            value, pos = bytes(buf[pos:pos + size]), pos + size
        fields.append((number, wire, value))
    return fields
