"""The compiled backend (numba kernels of the primitives, systems.codegen) gives the numpy
backend's accelerations and multipliers to round-off, for every catalogue system and formulation."""
import numpy as np
import pytest

import formulations as F
import systems
from systems import codegen

pytestmark = pytest.mark.skipif(not codegen.available(), reason="numba is not installed (extra 'compiled')")

CASES = [(name, formulation) for name in systems.names() for formulation in ("dependent", "reduced", "minimal",
                                                                              "manifold")]


def _applies(system, formulation):
    if formulation == "manifold":
        return bool(system.m or system.unit_norm_blocks)
    if formulation in ("reduced", "minimal"):
        return True  # on charts where there is no embedding
    return True


def _random_states(system, rng, count=3):
    """Consistent states near the default one: random guesses moved onto the constraints."""
    p0, v0 = system.default_state()
    states = [(p0, v0)]
    while len(states) < count:
        guess_p = p0 + rng.normal(0.0, 0.05, p0.shape)
        guess_v = v0 + rng.normal(0.0, 0.3 * (1 + np.abs(v0)), v0.shape)
        try:
            states.append(system.consistent_state(guess_p, guess_v))
        except systems.InconsistentStateError:
            continue
    return states


@pytest.mark.parametrize("name, formulation", CASES, ids=[f"{n}-{f}" for n, f in CASES])
def test_compiled_backend_agrees_with_numpy(name, formulation):
    system = systems.load(name)
    if not _applies(system, formulation):
        pytest.skip(f"{formulation} does not apply to {name}")
    rng = np.random.default_rng(7)
    for p, v in _random_states(system, rng):
        values = {}
        for backend in ("numpy", "compiled"):
            form = F.create(formulation, system, backend=backend)
            form.prepare(p, v)
            y = form.initial_state(p, v)
            values[backend] = form.evaluate(0.3, y)
        a, b = values["numpy"], values["compiled"]
        for field in ("ydot", "vdot", "lam"):
            x, z = getattr(a, field), getattr(b, field)
            scale = max(1.0, float(np.max(np.abs(x), initial=0.0)))
            assert np.max(np.abs(x - z), initial=0.0) <= 1e-12 * scale, (field, x, z)


def test_compiled_run_reports_its_backend_and_matches():
    system = systems.load("rolling_disc")
    runs = {b: F.create("minimal", system, backend=b).simulate((0.0, 1.0), rtol=1e-10, atol=1e-10)
            for b in ("numpy", "compiled")}
    assert runs["compiled"].stats.backend == "compiled" and runs["numpy"].stats.backend == "numpy"
    assert np.max(np.abs(runs["compiled"].p - runs["numpy"].p)) < 1e-12


def test_kernel_source_keeps_only_non_zero_entries():
    import sympy as sp

    x, y = sp.symbols("x y")
    source = codegen.kernel_source("k", [("p", [x, y])], [0, sp.sin(x) * y, 0, x + 1])
    assert "out[1]" in source and "out[3]" in source and "out[0]" not in source and "out[2]" not in source
    assert "2 non-zero entries of 4" in source


def test_cache_can_be_cleared(tmp_path, monkeypatch):
    import sympy as sp

    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    x = sp.Symbol("x")
    kernel = codegen.compile_kernel("square", [("p", [x])], [x**2])
    out = np.zeros(1)
    kernel(np.array([3.0]), out)
    assert out[0] == 9.0 and codegen.cache_size()[0] >= 1
    assert codegen.clear_cache() >= 1 and codegen.cache_size() == (0, 0)
