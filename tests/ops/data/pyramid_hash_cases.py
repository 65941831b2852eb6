"""search_pyramid_hash cases run with either framework's fluid (recorded with Paddle 1.8.5 by
record_pyramid_hash.py into pyramid_hash_pd18.json, replayed by tests/ops/test_pyramid_hash_ops.py), and a plain
Python reference of Paddle's CPU kernel: XXH32, glibc's rand_r, MurmurHash3 x64 128 and Paddle's bloom filter
layout (to build the filters the cases load), the forward and the in-place weight update.
"""
import struct

import numpy as np

M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF
MAGIC = 17070416


# --- hashes and draws -------------------------------------------------------------------------------------------

def xxh32(data: bytes, seed: int) -> int:
    p1, p2, p3, p4, p5 = 2654435761, 2246822519, 3266489917, 668265263, 374761393

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & M32

    def rnd(acc, lane):
        return (rotl((acc + lane * p2) & M32, 13) * p1) & M32

    n, p, seed = len(data), 0, seed & M32
    if n >= 16:
        v = [(seed + p1 + p2) & M32, (seed + p2) & M32, seed, (seed - p1) & M32]
        while p <= n - 16:
            v = [rnd(v[i], struct.unpack_from('<I', data, p + 4 * i)[0]) for i in range(4)]
            p += 16
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M32
    else:
        h = (seed + p5) & M32
    h = (h + n) & M32
    while p + 4 <= n:
        h = (rotl((h + struct.unpack_from('<I', data, p)[0] * p3) & M32, 17) * p4) & M32
        p += 4
    while p < n:
        h = (rotl((h + data[p] * p5) & M32, 11) * p1) & M32
        p += 1
    h ^= h >> 15
    h = (h * p2) & M32
    h ^= h >> 13
    h = (h * p3) & M32
    return h ^ (h >> 16)


def rand_r(state: int):
    """glibc's rand_r: (value, next state)."""
    nxt = state & M32
    nxt = (nxt * 1103515245 + 12345) & M32
    result = (nxt // 65536) % 2048
    for _ in range(2):
        nxt = (nxt * 1103515245 + 12345) & M32
        result = (result << 10) ^ ((nxt // 65536) % 1024)
    return result, nxt


def murmur3_x64_128(data: bytes, seed: int):
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F

    def rotl(x, r):
        return ((x << r) | (x >> (64 - r))) & M64

    def fmix(k):
        k ^= k >> 33
        k = (k * 0xFF51AFD7ED558CCD) & M64
        k ^= k >> 33
        k = (k * 0xC4CEB9FE1A85EC53) & M64
        return k ^ (k >> 33)

    n, h1, h2 = len(data), seed, seed
    for i in range(n // 16):
        k1, k2 = struct.unpack_from('<QQ', data, 16 * i)
        h1 ^= (rotl((k1 * c1) & M64, 31) * c2) & M64
        h1 = (((rotl(h1, 27) + h2) & M64) * 5 + 0x52DCE729) & M64
        h2 ^= (rotl((k2 * c2) & M64, 33) * c1) & M64
        h2 = (((rotl(h2, 31) + h1) & M64) * 5 + 0x38495AB5) & M64
    tail = data[16 * (n // 16):]
    if len(tail) > 8:
        h2 ^= (rotl((int.from_bytes(tail[8:], 'little') * c2) & M64, 33) * c1) & M64
    if tail:
        h1 ^= (rotl((int.from_bytes(tail[:8], 'little') * c1) & M64, 31) * c2) & M64
    h1 ^= n
    h2 ^= n
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = fmix(h1), fmix(h2)
    h1 = (h1 + h2) & M64
    return h1, (h2 + h1) & M64


# --- bloom filters as Paddle stores them in a float tensor --------------------------------------------------------

def bloom_filter(keys, m_bits: int, k: int) -> np.ndarray:
    """[rows, 1] float32 whose bytes are Paddle's struct bloomfilter with every key (a tuple of ids) set."""
    bits = bytearray(m_bits // 8)
    for key in keys:
        data = window_bytes(key)
        for i in range(k):
            for h in murmur3_x64_128(data, i):
                n = h % m_bits
                bits[n >> 3] |= 1 << (7 - (n & 7))
    raw = struct.pack('<QQQQ', MAGIC, m_bits, k, len(keys)) + bytes(bits)
    raw += b'\0' * (-len(raw) % 4)
    return np.frombuffer(raw, np.float32).reshape(-1, 1).copy()


def bloom_get(filt: np.ndarray, data: bytes) -> bool:
    raw = filt.tobytes()
    _, m_bits, k, _ = struct.unpack_from('<QQQQ', raw, 0)
    for i in range(k):
        for h in murmur3_x64_128(data, i):
            n = h % m_bits
            if not raw[32 + (n >> 3)] & (1 << (7 - (n & 7))):
                return False
    return True


def window_bytes(ids) -> bytes:
    return np.asarray(ids, np.float32).tobytes()


# --- the op ---------------------------------------------------------------------------------------------------

def windows(ids, lengths, pyramid_layer):
    """Per sequence, its n-gram windows in Paddle's order (n = 2..pyramid_layer, each start)."""
    out, start = [], 0
    for w in lengths:
        seq = ids[start:start + w]
        out.append([tuple(seq[l:l + n + 1]) for n in range(1, min(pyramid_layer, w)) for l in range(w - n)]
                   if w >= 2 else [])
        start += w
    return out


def reference(ids, lengths, w, num_emb, space_len, rand_len, pyramid_layer, drop, is_training, seed,
              white=None, black=None):
    """(Out, out lengths, flags, kept per sequence) of Paddle's kernel."""
    state, flags, kept, rows = seed, [], [], []
    weights = np.asarray(w, np.float32).reshape(-1)
    for seq in windows(list(ids), lengths, pyramid_layer):
        count = 0
        for win in seq:
            data = window_bytes(win)
            use = (white is None or bloom_get(white, data)) and (black is None or not bloom_get(black, data))
            flag = 0
            if use:
                flag = 1
                if is_training:
                    value, state = rand_r(state)
                    flag = 0 if np.float32(value) / np.float32(2147483647) < np.float32(drop) else 1
            flags.append(flag)
            if flag:
                count += 1
                rows.append(np.concatenate([weights[p:p + rand_len] for p in
                                            (xxh32(data, j) % space_len for j in range(0, num_emb, rand_len))]))
        if not count:
            rows.append(np.zeros(num_emb, np.float32))
        kept.append(count)
    out = np.stack(rows).astype(np.float32)
    if not is_training:
        out = out * np.float32(drop)
    return out, [max(c, 1) for c in kept], flags, kept


def reference_update(ids, lengths, w, dout, flags, kept, num_emb, space_len, rand_len, pyramid_layer, lr):
    """W after Paddle's grad kernel: W[p:p + rand_len] += -lr * Out@GRAD pieces, in window order."""
    weights = np.array(w, np.float32).reshape(-1)
    mlr, row, pos = np.float32(-1.0 * lr), 0, 0
    for seq, count in zip(windows(list(ids), lengths, pyramid_layer), kept):
        if count == 0:
            row += 1
        for win in seq:
            if flags[pos]:
                data = window_bytes(win)
                for j in range(0, num_emb, rand_len):
                    p = xxh32(data, j) % space_len
                    for t in range(rand_len):
                        weights[p + t] += mlr * np.float32(dout[row][j + t])
                row += 1
            pos += 1
    return weights.reshape(np.shape(w))


# --- the cases, run with a framework's fluid ------------------------------------------------------------------

IDS = [3, 9, 4, 7, 1, 5, 2, 8, 6, 3, 9, 12, 11]
LENGTHS = [5, 1, 4, 3]
NUM_EMB, SPACE_LEN, RAND_LEN = 8, 40, 4
WHITE_KEYS = [(3, 9), (9, 4), (4, 7), (3, 9, 4), (5, 2), (2, 8), (8, 6), (5, 2, 8), (3, 9, 12), (9, 12)]
BLACK_KEYS = [(9, 4), (2, 8)]
CASES = {
    'inference': dict(pyramid_layer=3, drop=0.5, is_training=False, filters=False, seed=0, lr=0.0),
    'inference_layer4': dict(pyramid_layer=4, drop=0.25, is_training=False, filters=False, seed=0, lr=0.0),
    'training': dict(pyramid_layer=3, drop=0.3, is_training=True, filters=False, seed=7, lr=0.5),
    'filters': dict(pyramid_layer=3, drop=0.2, is_training=True, filters=True, seed=11, lr=0.25),
}


def weights() -> np.ndarray:
    return np.random.RandomState(5).uniform(-1, 1, (SPACE_LEN + RAND_LEN, 1)).astype(np.float32)


def filters():
    return bloom_filter(WHITE_KEYS, 256, 3), bloom_filter(BLACK_KEYS, 128, 2)


def run(fluid, case: str) -> dict:
    """One training step (loss = sum of the squared sequence sums of Out, SGD 0.1; X needs a gradient so the
    pyramid_hash_grad op runs and updates W with the op's lr): Out, its LoD, DropPos and W after."""
    c = CASES[case]
    main, startup = fluid.Program(), fluid.Program()
    white, black = filters()
    with fluid.program_guard(main, startup):
        x = fluid.data(name='x', shape=[None, 1], dtype='int32', lod_level=1)
        x.stop_gradient = False
        out = fluid.contrib.layers.search_pyramid_hash(
            input=x, num_emb=NUM_EMB, space_len=SPACE_LEN, pyramid_layer=c['pyramid_layer'], rand_len=RAND_LEN,
            drop_out_percent=c['drop'], is_training=c['is_training'], use_filter=c['filters'],
            white_list_len=white.shape[0], black_list_len=black.shape[0] if c['filters'] else 0, seed=c['seed'],
            lr=c['lr'], param_attr=fluid.ParamAttr(name='pyr_w'), param_attr_wl=fluid.ParamAttr(name='pyr_wl'),
            param_attr_bl=fluid.ParamAttr(name='pyr_bl'))
        pooled = fluid.layers.sequence_pool(out, 'sum')
        loss = fluid.layers.reduce_sum(pooled * pooled)
        fluid.optimizer.SGD(0.1).minimize(loss)
    drop_pos = [op for op in main.global_block().ops if op.type == 'pyramid_hash'][0].output('DropPos')[0]
    scope = fluid.Scope()
    place = fluid.CPUPlace()
    exe = fluid.Executor(place)
    with fluid.scope_guard(scope):
        exe.run(startup)
        scope.find_var('pyr_w').get_tensor().set(weights(), place)
        scope.find_var('pyr_wl').get_tensor().set(white, place)
        if c['filters']:
            scope.find_var('pyr_bl').get_tensor().set(black, place)
        feed = fluid.create_lod_tensor(np.array(IDS, np.int32).reshape(-1, 1), [LENGTHS], place)
        got_out, got_drop = exe.run(main, feed={'x': feed}, fetch_list=[out, drop_pos], return_numpy=False)
        w_after = np.array(scope.find_var('pyr_w').get_tensor())
    n_flags = sum(len(s) for s in windows(IDS, LENGTHS, c['pyramid_layer']))
    return {'out': np.array(got_out).tolist(), 'out_lod': [list(map(int, v)) for v in got_out.lod()],
            'flags': np.array(got_drop).reshape(-1)[:n_flags].tolist(),
            'drop_lod': [list(map(int, v)) for v in got_drop.lod()], 'w_after': w_after.reshape(-1).tolist()}
