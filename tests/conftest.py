import os

import numpy as np
import pytest

import systems

# runs whose backend is not named use numpy, whatever an earlier compiled run left in the cache
os.environ.setdefault("PFAFF_BACKEND", "numpy")

CATALOGUE = systems.names()


@pytest.fixture(params=CATALOGUE)
def catalogue_system(request):
    return systems.load(request.param)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
