"""The compiled backend's machinery: the generated kernels keep only their non-zero entries, the
cache is cleared, bounded and read by backend="auto", the compiled pass measures the conditioning of
A, and a compiled loop stops at a singular configuration (its agreement with the numpy backend:
tests/test_compiled_agreement.py)."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.solvers.compiled_rk import compiled_module
from systems.numeric import codegen

pytestmark = pytest.mark.skipif(not codegen.available(), reason="numba is not installed")


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


@pytest.mark.xdist_group("compiled")
def test_compiled_pass_measures_the_conditioning_of_A():
    """The compiled pass after a run gives sigma_min / sigma_max of A at every recorded point (the
    result check of formulations.results.assessment), as numpy's SVD does; from the flat disc, where
    A is singular, the compiled run's trajectory carries the check's warning."""
    system = systems.load("rolling_disc")
    form = F.create("dependent", system, backend="compiled")
    run = form.simulate((0.0, 1.0), method="dopri5")
    module = compiled_module(form)
    params = np.asarray(form.par, float)
    ok = np.ones(run.t.size, dtype=bool)
    ratios = module.check_all(run.t, run.p, run.v, run.vdot, ok, params)[:, 6]
    s = np.linalg.svd(np.array([system.numeric.A(p, params) for p in run.p]), compute_uv=False)
    assert np.allclose(ratios, s[:, -1] / s[:, 0], rtol=1e-8, atol=1e-14)
    p, v = system.default_state()
    p[system.coordinate_names.index("theta")] = np.pi / 2
    flat = system.consistent_state(p, v, fix=("theta",))
    stopped = F.create("dependent", system, backend="compiled").simulate((0.0, 0.5), flat, method="dopri5")
    assert stopped.stats.backend == "compiled"
    assert any("kinematic matrix A is singular at t = 0" in note for note in stopped.warnings)


@pytest.mark.slow  # a module of its own: about 20 s of compiling
def test_compiled_loop_stops_at_a_singular_configuration():
    """The crank of the triple slider-crank turns through q2 = pi/2, where Phi_p loses rank: the
    compiled run ends before the crossing and names the singular configuration."""
    system = systems.load("triple_slider_crank", domain=1, K=1e-9)
    run = F.create("dependent", system, backend="compiled").simulate((0, 3), rtol=1e-9, atol=1e-9, method="dopri5")
    assert run.status == -1 and "singular configuration" in run.message and "p* = (" in run.message
    assert np.max(np.abs(run.p[:, 1])) < np.pi / 2 and run.t.size > 5


def test_cache_is_bounded_and_drops_the_least_recently_used(tmp_path, monkeypatch):
    import os
    import time

    import sympy as sp

    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    x = sp.Symbol("x")
    first = codegen.compile_kernel("first", [("p", [x])], [x + 1])
    second = codegen.compile_kernel("second", [("p", [x])], [x + 2])
    assert {first.__module__, second.__module__} <= {f.stem for f in codegen.cache_dir().glob("*.py")}
    old = time.time() - 1000
    os.utime(codegen.cache_dir() / f"{first.__module__}.used", (old, old))
    size = codegen.cache_size()[1]
    import sys
    loaded = {m: sys.modules.pop(m) for m in (first.__module__, second.__module__)}  # as in a new process
    try:
        removed = codegen.prune_cache(size - 1)
    finally:
        sys.modules.update(loaded)
    names = {f.stem for f in codegen.cache_dir().glob("*.py")}
    assert removed >= 1 and first.__module__ not in names and second.__module__ in names
    monkeypatch.setenv("PFAFF_CACHE_MAX_MB", "lots")
    with pytest.raises(ValueError, match="PFAFF_CACHE_MAX_MB"):
        codegen.cache_limit()


def test_auto_backend_is_compiled_where_the_machine_code_is_ready(monkeypatch, tmp_path):
    """"auto" is compiled where the machine code of a run with the default method is ready in the
    cache (systems.numeric.background), numpy where it is not or numba is missing; creating the
    formulation compiles nothing either way; $PFAFF_BACKEND sets the default."""
    from systems.numeric import background

    monkeypatch.delenv("PFAFF_BACKEND", raising=False)
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    system = systems.load("knife_edge")
    auto = F.create("minimal", system)
    assert auto.requested_backend == "auto" and auto.backend == "numpy"
    # no kernel generated, nothing compiled (the catalogue's stored builds may be there)
    assert not list(tmp_path.rglob("pfaff_kernel_*")) and not list(tmp_path.rglob("*.nbi"))
    background.mark_ready(auto.job("DOP853"))
    assert F.create("minimal", system).backend == "compiled"
    assert F.create("dependent", system).backend == "numpy"  # another job
    monkeypatch.setenv("PFAFF_BACKEND", "numpy")
    assert F.create("minimal", system).backend == "numpy"
    assert F.create("minimal", system, backend="auto").backend == "compiled"
    monkeypatch.setattr(background, "available", lambda: False)
    assert F.create("minimal", system, backend="auto").backend == "numpy"
    with pytest.raises(ValueError, match="backend got 'fast'"):
        F.create("minimal", system, backend="fast")
