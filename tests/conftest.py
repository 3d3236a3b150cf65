import numpy as np
import pytest

import systems

CATALOGUE = systems.names()


@pytest.fixture(params=CATALOGUE)
def catalogue_system(request):
    return systems.load(request.param)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
