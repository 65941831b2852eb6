"""paddle.dataset.movielens: MovieLens 1M (ml-1m.zip), as Paddle 1.8 reads it.

A sample is [user id, gender (0 male, 1 female), age bucket (index in age_table), job id, movie id,
[category ids], [title word ids], [rating * 2 - 5]]. The ratings are split into train and test by
`np.random.seed(rand_seed)` and one `np.random.random() < test_ratio` draw per line, as Paddle (the global numpy
generator, so the split is Paddle's exactly).

Difference: Paddle numbered title words and categories in the iteration order of a Python set, which depends on
string hashing and so changed from process to process (unless PYTHONHASHSEED was fixed). Here they are numbered in
sorted order, the same every run; any script that reads the ids from `get_movie_title_dict()` and
`movie_categories()` sees a consistent mapping either way.
"""
from __future__ import annotations

import functools
import re
import zipfile

import numpy as np

from . import common

__all__ = ['train', 'test', 'get_movie_title_dict', 'max_movie_id', 'max_user_id', 'age_table',
           'movie_categories', 'max_job_id', 'user_info', 'movie_info']

age_table = [1, 18, 25, 35, 45, 50, 56]

URL = 'https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip'
MD5 = 'c4d9eecfca2ab87c1945afe126590906'


class MovieInfo:
    """Movie id, title and categories."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self) -> list:
        return [self.index, [CATEGORIES_DICT[c] for c in self.categories],
                [MOVIE_TITLE_DICT[w.lower()] for w in self.title.split()]]

    def __str__(self):
        return '<MovieInfo id(%d), title(%s), categories(%s)>' % (self.index, self.title, self.categories)

    __repr__ = __str__


class UserInfo:
    """User id, gender, age bucket and job id."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == 'M'
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self) -> list:
        return [self.index, 0 if self.is_male else 1, self.age, self.job_id]

    def __str__(self):
        return '<UserInfo id(%d), gender(%s), age(%d), job(%d)>' % (
            self.index, 'M' if self.is_male else 'F', age_table[self.age], self.job_id)

    __repr__ = __str__


MOVIE_INFO = None
MOVIE_TITLE_DICT = None
CATEGORIES_DICT = None
USER_INFO = None


def _lines(package: zipfile.ZipFile, name: str):
    with package.open(name) as f:
        for line in f:
            yield line.decode('latin')


def _initialize_meta_info() -> str:
    global MOVIE_INFO, MOVIE_TITLE_DICT, CATEGORIES_DICT, USER_INFO
    fn = common.download(URL, 'movielens', MD5)
    if MOVIE_INFO is not None:
        return fn
    pattern = re.compile(r'^(.*)\((\d+)\)$')
    movies, title_words, categories_set = {}, set(), set()
    with zipfile.ZipFile(file=fn) as package:
        for line in _lines(package, 'ml-1m/movies.dat'):
            movie_id, title, categories = line.strip().split('::')
            categories = categories.split('|')
            categories_set.update(categories)
            title = pattern.match(title).group(1)
            movies[int(movie_id)] = MovieInfo(index=movie_id, categories=categories, title=title)
            title_words.update(w.lower() for w in title.split())
        users = {}
        for line in _lines(package, 'ml-1m/users.dat'):
            uid, gender, age, job, _ = line.strip().split('::')
            users[int(uid)] = UserInfo(index=uid, gender=gender, age=age, job_id=job)
    MOVIE_TITLE_DICT = {w: i for i, w in enumerate(sorted(title_words))}
    CATEGORIES_DICT = {c: i for i, c in enumerate(sorted(categories_set))}
    USER_INFO = users
    MOVIE_INFO = movies
    return fn


def _reader(rand_seed: int = 0, test_ratio: float = 0.1, is_test: bool = False):
    fn = _initialize_meta_info()
    np.random.seed(rand_seed)
    with zipfile.ZipFile(file=fn) as package:
        for line in _lines(package, 'ml-1m/ratings.dat'):
            if (np.random.random() < test_ratio) == is_test:
                uid, mov_id, rating, _ = line.strip().split('::')
                rating = float(rating) * 2 - 5.0
                yield USER_INFO[int(uid)].value() + MOVIE_INFO[int(mov_id)].value() + [[rating]]


def _reader_creator(**kwargs):
    return lambda: _reader(**kwargs)


train = functools.partial(_reader_creator, is_test=False)
test = functools.partial(_reader_creator, is_test=True)


def get_movie_title_dict() -> dict:
    _initialize_meta_info()
    return MOVIE_TITLE_DICT


def max_movie_id() -> int:
    _initialize_meta_info()
    return max(MOVIE_INFO.values(), key=lambda m: m.index).index


def max_user_id() -> int:
    _initialize_meta_info()
    return max(USER_INFO.values(), key=lambda u: u.index).index


def max_job_id() -> int:
    _initialize_meta_info()
    return max(USER_INFO.values(), key=lambda u: u.job_id).job_id


def movie_categories() -> dict:
    _initialize_meta_info()
    return CATEGORIES_DICT


def user_info() -> dict:
    _initialize_meta_info()
    return USER_INFO


def movie_info() -> dict:
    _initialize_meta_info()
    return MOVIE_INFO


def fetch() -> None:
    common.download(URL, 'movielens', MD5)
