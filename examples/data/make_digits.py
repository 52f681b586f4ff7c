#!/usr/bin/env python3
"""examples/data/digits.npz for examples/digits.cpp: scikit-learn's 8x8
handwritten digits (sklearn.datasets.load_digits: 1,797 images, pixel values
0..16, labels 0..9), split 80/20 by a fixed permutation.

The data: the UCI ML hand-written digits data set (Alpaydin and Kaynak,
1998; https://archive.ics.uci.edu/dataset/80), as distributed with
scikit-learn under scikit-learn's BSD 3-Clause license
(https://github.com/scikit-learn/scikit-learn/blob/main/COPYING). See
examples/data/README.md.

Writes (np.savez_compressed) x_train (1438, 1, 8, 8) uint8, y_train (1438,)
int32, x_test (359, 1, 8, 8) uint8, y_test (359,) int32. Needs numpy and
scikit-learn:
    /work/venv/bin/python examples/data/make_digits.py
"""
import os

import numpy as np
from sklearn.datasets import load_digits

digits = load_digits()
images = digits.images.astype(np.uint8).reshape(-1, 1, 8, 8)
labels = digits.target.astype(np.int32)
order = np.random.default_rng(0).permutation(len(labels))
n_train = int(round(0.8 * len(labels)))
train, test = order[:n_train], order[n_train:]
np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits.npz"),
                    x_train=images[train], y_train=labels[train], x_test=images[test], y_test=labels[test])
