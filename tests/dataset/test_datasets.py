"""paddle.dataset on fixture files in the real formats (paddle_exec.dataset.synthetic), compared with what Paddle
1.8.5's readers give on the same files (paddle18_digests.json, recorded by sample_digest.py under Paddle 1.8.5);
the download cache, md5 logic and offline error; the image helpers."""
import hashlib
import json
import os
import pathlib
import pickle
import urllib.error
import urllib.request

import numpy as np
import pytest

import paddle_exec as paddle
from paddle_exec.dataset import common, conll05, image, mnist, movielens, synthetic, uci_housing

from . import sample_digest

RECORDED = json.loads((pathlib.Path(__file__).parent / 'paddle18_digests.json').read_text())


@pytest.fixture(scope='module')
def data_home(tmp_path_factory):
    home = str(tmp_path_factory.mktemp('cache') / 'paddle' / 'dataset')
    synthetic.populate(home, list(synthetic.WRITERS))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(common, 'DATA_HOME', home)
        mp.setattr(common, 'verify_md5', False)
        for name in ('UCI_TRAIN_DATA', 'UCI_TEST_DATA'):
            mp.setattr(uci_housing, name, None)
        for name in ('MOVIE_INFO', 'MOVIE_TITLE_DICT', 'CATEGORIES_DICT', 'USER_INFO'):
            mp.setattr(movielens, name, None)
        yield home


def _as_json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize('name', list(sample_digest.DIGESTS))
def test_samples_match_paddle_1_8(data_home, name):
    ours = _as_json(sample_digest.DIGESTS[name](paddle.dataset))
    assert ours and all(key in RECORDED for key in ours)
    for key, value in ours.items():
        assert value == RECORDED[key], key


def test_sample_types_and_shapes(data_home):
    features, price = next(paddle.dataset.uci_housing.train()())
    assert features.shape == (13,) and features.dtype == np.float64 and price.shape == (1,)
    pixels, label = next(paddle.dataset.mnist.train()())
    assert pixels.shape == (784,) and pixels.dtype == np.float32 and type(label) is int
    assert -1.0 <= pixels.min() and pixels.max() <= 1.0
    pixels, label = next(paddle.dataset.cifar.train10()())
    assert pixels.shape == (3072,) and pixels.dtype == np.float32 and 0 <= label < 10
    word_idx = paddle.dataset.imdb.word_dict()
    assert b'the' in word_idx and word_idx['<unk>'] == len(word_idx) - 1      # words are bytes, as in Paddle
    sample = next(paddle.dataset.movielens.train()())
    assert len(sample) == 8 and sample[7] in ([-3.0], [-1.0], [1.0], [3.0], [5.0])
    assert len(next(paddle.dataset.conll05.test()())) == 9


def test_cifar_cycle_starts_over(data_home):
    reader = paddle.dataset.cifar.test10(cycle=True)()
    first = [next(reader)[1] for _ in range(100)]
    again = [next(reader)[1] for _ in range(100)]
    assert first == again


def test_uci_housing_predict_reader(data_home):
    features, = paddle.dataset.uci_housing.predict_reader()
    np.testing.assert_array_equal(features, next(paddle.dataset.uci_housing.test()())[0])


def test_conll05_embedding_file(data_home):
    word_dict = paddle.dataset.conll05.get_dict()[0]
    with open(paddle.dataset.conll05.get_embedding(), 'rb') as f:
        f.read(16)                                # the book's loader skips a 16-byte header
        emb = np.fromfile(f, dtype=np.float32).reshape(len(word_dict), 32)
    assert np.isfinite(emb).all()


def test_conll05_label_dict_pairs_tags(data_home):
    label_dict = conll05.get_dict()[2]
    assert label_dict['O'] == len(label_dict) - 1
    for tag, idx in label_dict.items():
        if tag.startswith('B-'):
            assert label_dict['I-' + tag[2:]] == idx + 1


def test_flowers_default_mapper_gives_model_inputs(data_home):
    img, label = next(paddle.dataset.flowers.test(use_xmap=False)())
    assert img.shape == (3 * 224 * 224,) and img.dtype == np.float32 and 0 <= label < 102
    labels = sorted(label for _, label in paddle.dataset.flowers.train()())       # xmap threads: any order
    assert labels == sorted(label for _, label in paddle.dataset.flowers.train(use_xmap=False)())


def test_wmt16_rejects_unknown_language(data_home):
    with pytest.raises(ValueError, match='Only support: en'):
        paddle.dataset.wmt16.train(10, 10, src_lang='fr')


# --- the download cache ----------------------------------------------------------------------------------------

@pytest.fixture
def empty_home(tmp_path, monkeypatch):
    home = tmp_path / 'dataset'
    monkeypatch.setattr(common, 'DATA_HOME', str(home))
    monkeypatch.setattr(common, 'verify_md5', True)

    def offline(url, timeout=None):
        raise urllib.error.URLError('[Errno -2] Name or service not known')

    monkeypatch.setattr(urllib.request, 'urlopen', offline)
    return home


def test_offline_error_names_url_md5_and_path(empty_home):
    with pytest.raises(RuntimeError) as info:
        mnist.train()
    message = str(info.value)
    path = os.path.join(str(empty_home), 'mnist', 'train-images-idx3-ubyte.gz')
    assert mnist.TRAIN_IMAGE_URL in message and mnist.TRAIN_IMAGE_MD5 in message and path in message


def test_cached_file_with_the_right_md5_is_used(empty_home):
    path = empty_home / 'uci_housing' / 'housing.data'
    path.parent.mkdir(parents=True)
    path.write_bytes(b' 1 2 3\n')
    md5 = hashlib.md5(b' 1 2 3\n').hexdigest()
    assert common.md5file(str(path)) == md5
    assert common.download(uci_housing.URL, 'uci_housing', md5) == str(path)        # no network needed
    with pytest.raises(RuntimeError, match='put the file'):
        common.download(uci_housing.URL, 'uci_housing', '0' * 32)                  # wrong md5: fetched again


def test_save_name_and_cache_layout(empty_home):
    assert common.cache_path('http://x/wmt16.tar.gz', 'wmt16', 'wmt16.tar.gz') == \
        os.path.join(str(empty_home), 'wmt16', 'wmt16.tar.gz')
    assert common.cache_path('https://h/imdb%2FaclImdb_v1.tar.gz', 'imdb') == \
        os.path.join(str(empty_home), 'imdb', 'imdb%2FaclImdb_v1.tar.gz')           # Paddle keeps the %2F


def test_download_fetches_and_checks_md5(tmp_path, monkeypatch):
    """A file:// URL takes the real download path without a network."""
    monkeypatch.setattr(common, 'DATA_HOME', str(tmp_path / 'home'))
    monkeypatch.setattr(common, 'verify_md5', True)
    source = tmp_path / 'housing.data'
    source.write_bytes(b'payload')
    md5 = hashlib.md5(b'payload').hexdigest()
    got = common.download(source.as_uri(), 'uci_housing', md5)
    assert pathlib.Path(got).read_bytes() == b'payload'
    with pytest.raises(RuntimeError, match='within retry limit 3'):
        common.download(source.as_uri(), 'other', 'f' * 32)


def test_split_and_cluster_files_reader(tmp_path):
    common.split(lambda: iter(range(10)), 3, suffix=str(tmp_path / 'part-%05d.pickle'))
    parts = sorted(p.name for p in tmp_path.iterdir())
    assert parts == ['part-00000.pickle', 'part-00001.pickle', 'part-00002.pickle']
    with open(tmp_path / 'part-00000.pickle', 'rb') as f:
        assert pickle.load(f) == [0, 1, 2, 3]                                       # Paddle's grouping
    pattern = str(tmp_path / 'part-*.pickle')
    assert list(common.cluster_files_reader(pattern, 2, 0)()) == [0, 1, 2, 3, 7, 8, 9]
    assert list(common.cluster_files_reader(pattern, 2, 1)()) == [4, 5, 6]


# --- image helpers ---------------------------------------------------------------------------------------------

def _png(rgb):
    import io

    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format='PNG')
    return buf.getvalue()


def test_load_image_bytes_is_bgr_hwc_like_opencv(tmp_path):
    rgb = np.random.RandomState(0).randint(0, 256, (5, 7, 3)).astype(np.uint8)
    data = _png(rgb)
    np.testing.assert_array_equal(image.load_image_bytes(data), rgb[:, :, ::-1])
    gray = image.load_image_bytes(data, is_color=False)
    assert gray.shape == (5, 7) and gray.dtype == np.uint8
    (tmp_path / 'x.png').write_bytes(data)
    np.testing.assert_array_equal(image.load_image(str(tmp_path / 'x.png')), rgb[:, :, ::-1])


def test_resize_crop_flip_chw_and_mean():
    im = np.random.RandomState(1).randint(0, 256, (20, 30, 3)).astype(np.uint8)
    assert image.resize_short(im, 10).shape == (10, 15, 3)
    assert image.resize_short(im[:, :8], 4).shape == (10, 4, 3)
    flat = np.full((12, 12, 3), 77, np.uint8)
    np.testing.assert_array_equal(image.resize_short(flat, 6), np.full((6, 6, 3), 77, np.uint8))
    np.testing.assert_array_equal(image.center_crop(im, 10), im[5:15, 10:20])
    np.testing.assert_array_equal(image.left_right_flip(im), im[:, ::-1])
    np.testing.assert_array_equal(image.to_chw(im), im.transpose(2, 0, 1))
    out = image.simple_transform(flat, 6, 4, is_train=False, mean=[1.0, 2.0, 3.0])
    assert out.shape == (3, 4, 4) and out.dtype == np.float32
    np.testing.assert_array_equal(out[:, 0, 0], [76.0, 75.0, 74.0])
    np.random.seed(3)
    assert image.simple_transform(im, 10, 8, is_train=True).shape == (3, 8, 8)


def test_batch_images_from_tar_layout(data_home):
    data_file = common.cache_path(paddle.dataset.flowers.DATA_URL, 'flowers')
    meta = image.batch_images_from_tar(data_file, 'custom', {'jpg/image_00001.jpg': 5, 'jpg/image_00002.jpg': 7},
                                       num_per_batch=1)
    assert meta == data_file + '_batch/custom.txt'
    files = sorted(open(meta).read().split())
    assert len(files) == 2
    with open(files[0], 'rb') as f:
        batch = pickle.load(f)
    assert set(batch) == {'label', 'data'} and len(batch['data']) == 1
