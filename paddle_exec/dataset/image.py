"""paddle.dataset.image: image loading and the simple transforms of Paddle 1.8, on Pillow instead of OpenCV.

Pillow is an optional extra (`pip install paddle_exec[image]`); this module imports it on first use and says so
when it is missing. Images are numpy arrays in OpenCV's conventions, as Paddle returned them: HWC, uint8, colour
channels in BGR order (gray images HW).

Differences from Paddle's OpenCV: decoding a JPEG may differ by a grey level or so between the two libjpeg builds
(PNG and other lossless formats decode identically), and `resize_short` uses Pillow's bicubic filter, which
antialiases when it shrinks while cv2.INTER_CUBIC does not: resized pixels are close to Paddle's, not equal.
Crops, flips, CHW transposition, mean subtraction and `batch_images_from_tar` are exactly Paddle's.
"""
from __future__ import annotations

import io
import os
import pickle
import tarfile

import numpy as np

__all__ = ['load_image_bytes', 'load_image', 'resize_short', 'to_chw', 'center_crop', 'random_crop',
           'left_right_flip', 'simple_transform', 'load_and_transform', 'batch_images_from_tar']


def pil_image():
    """Pillow's Image module, imported on first use (Pillow is an optional extra)."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError('paddle.dataset.image needs Pillow to decode and resize images: '
                          'pip install "paddle_exec[image]" (or pip install Pillow)') from None
    return Image


def _decode(source, is_color: bool) -> np.ndarray:
    with pil_image().open(source) as img:
        if is_color:
            return np.ascontiguousarray(np.asarray(img.convert('RGB'))[:, :, ::-1])    # BGR, as cv2.imdecode
        return np.asarray(img.convert('L')).copy()


def batch_images_from_tar(data_file: str, dataset_name: str, img2label: dict, num_per_batch: int = 1024) -> str:
    """Pickles the images of `data_file` named in `img2label` into batch files under `data_file + '_batch'`, once,
    and returns the path of the text file that lists them (Paddle's layout, so Paddle's batches are reused)."""
    batch_dir = data_file + '_batch'
    out_path = '%s/%s' % (batch_dir, dataset_name)
    meta_file = '%s/%s.txt' % (batch_dir, dataset_name)
    if os.path.exists(out_path):
        return meta_file
    os.makedirs(out_path)

    def dump(data, labels, file_id):
        with open('%s/batch_%d' % (out_path, file_id), 'wb') as f:
            pickle.dump({'label': labels, 'data': data}, f, protocol=2)

    data, labels, file_id = [], [], 0
    with tarfile.open(data_file) as tf:
        for mem in tf.getmembers():
            if mem.name in img2label:
                data.append(tf.extractfile(mem).read())
                labels.append(img2label[mem.name])
                if len(data) == num_per_batch:
                    dump(data, labels, file_id)
                    file_id += 1
                    data, labels = [], []
    if data:
        dump(data, labels, file_id)
    with open(meta_file, 'a') as meta:
        for file in os.listdir(out_path):
            meta.write(os.path.abspath('%s/%s' % (out_path, file)) + '\n')
    return meta_file


def load_image_bytes(bytes, is_color: bool = True) -> np.ndarray:
    """An image decoded from its encoded bytes: HWC BGR uint8, or HW for is_color=False."""
    return _decode(io.BytesIO(bytes), is_color)


def load_image(file: str, is_color: bool = True) -> np.ndarray:
    """An image read from a file: HWC BGR uint8, or HW for is_color=False."""
    return _decode(file, is_color)


def resize_short(im: np.ndarray, size: int) -> np.ndarray:
    """`im` resized (bicubic) so that its shorter edge is `size`."""
    h, w = im.shape[:2]
    h_new, w_new = size, size
    if h > w:
        h_new = size * h // w
    else:
        w_new = size * w // h
    image = pil_image()
    resized = image.fromarray(np.ascontiguousarray(im)).resize((w_new, h_new), image.BICUBIC)
    return np.asarray(resized).copy()


def to_chw(im: np.ndarray, order=(2, 0, 1)) -> np.ndarray:
    assert len(im.shape) == len(order)
    return im.transpose(order)


def center_crop(im: np.ndarray, size: int, is_color: bool = True) -> np.ndarray:
    h, w = im.shape[:2]
    h_start = (h - size) // 2
    w_start = (w - size) // 2
    h_end, w_end = h_start + size, w_start + size
    return im[h_start:h_end, w_start:w_end, :] if is_color else im[h_start:h_end, w_start:w_end]


def random_crop(im: np.ndarray, size: int, is_color: bool = True) -> np.ndarray:
    h, w = im.shape[:2]
    h_start = np.random.randint(0, h - size + 1)
    w_start = np.random.randint(0, w - size + 1)
    h_end, w_end = h_start + size, w_start + size
    return im[h_start:h_end, w_start:w_end, :] if is_color else im[h_start:h_end, w_start:w_end]


def left_right_flip(im: np.ndarray, is_color: bool = True) -> np.ndarray:
    if len(im.shape) == 3 and is_color:
        return im[:, ::-1, :]
    return im[:, ::-1]


def simple_transform(im: np.ndarray, resize_size: int, crop_size: int, is_train: bool, is_color: bool = True,
                     mean=None) -> np.ndarray:
    """Resize the short edge, crop (random and a coin-flip mirror for training, centred otherwise), CHW, float32,
    minus `mean` (one value per channel or per element)."""
    im = resize_short(im, resize_size)
    if is_train:
        im = random_crop(im, crop_size, is_color=is_color)
        if np.random.randint(2) == 0:
            im = left_right_flip(im, is_color)
    else:
        im = center_crop(im, crop_size, is_color=is_color)
    if len(im.shape) == 3:
        im = to_chw(im)
    im = im.astype('float32')
    if mean is not None:
        mean = np.array(mean, dtype=np.float32)
        if mean.ndim == 1 and is_color:
            mean = mean[:, np.newaxis, np.newaxis]
        elif mean.ndim != 1:
            assert len(mean.shape) == len(im)
        im -= mean
    return im


def load_and_transform(filename: str, resize_size: int, crop_size: int, is_train: bool, is_color: bool = True,
                       mean=None) -> np.ndarray:
    im = load_image(filename, is_color)
    return simple_transform(im, resize_size, crop_size, is_train, is_color, mean)
