"""The compiled backend (numba kernels of the primitives, systems.numeric.codegen) gives the numpy
backend's accelerations and multipliers to round-off, for every catalogue system and formulation."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.solvers.compiled_rk import compiled_module
from systems.numeric import codegen

pytestmark = pytest.mark.skipif(not codegen.available(), reason="numba is not installed (extra 'compiled')")

# the default suite compiles the primitives of two systems (an embedding with rolling, a closed loop
# on charts); every other catalogue system runs with -m slow (a few s of compiling each)
FAST_SYSTEMS = ("rolling_disc", "triple_slider_crank")
CASES = [pytest.param(name, formulation, id=f"{name}-{formulation}",
                      marks=() if name in FAST_SYSTEMS else pytest.mark.slow)
         for name in systems.names() for formulation in ("dependent", "reduced", "minimal", "manifold")]


def _applies(system, formulation):
    if system.redundant_constraints and formulation != "dependent":
        return False  # coordinates q need independent rows (Bricard's mechanism: dependent only)
    if formulation == "manifold":  # charts of the holonomic constraints (fixed or moving)
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


@pytest.mark.parametrize("name, formulation", CASES)
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


@pytest.mark.xdist_group("compiled")  # with tests/test_fused.py: one worker compiles each module once
def test_compiled_run_reports_its_backend_and_matches():
    """The default method DOP853: scipy's loop on numpy, the machine-code loop on compiled; the same
    steps up to a round-off flip, so the runs agree to the tolerance's order."""
    system = systems.load("knife_edge")  # the module tests/test_fused.py runs with DOP853
    options = dict(independent=("x_dot", "phi_dot"), rechoose=False)
    runs = {b: F.create("minimal", system, backend=b, **options).simulate((0.0, 0.5), rtol=1e-10, atol=1e-10)
            for b in ("numpy", "compiled")}
    assert runs["compiled"].stats.backend == "compiled" and runs["numpy"].stats.backend == "numpy"
    assert np.max(np.abs(runs["compiled"].p[-1] - runs["numpy"].p[-1])) < 1e-8


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
@pytest.mark.parametrize("name, stabilization", [("rolling_disc", "none"), ("rolling_disc", "baumgarte"),
                                                 pytest.param("spinning_top", "none", marks=pytest.mark.slow)])
def test_compiled_loop_takes_the_steps_of_the_python_loop(name, stabilization):
    """Same tableau, controller and initial step: the machine-code dopri5 on the fused dependent
    right-hand side takes the Python dopri5's steps (to the odd step a round-off difference may
    flip at a borderline error test) and lands on its state to the tolerance."""
    system = systems.load(name)
    runs = {b: F.create("dependent", system, stabilization=stabilization, backend=b).simulate(
        (0.0, 1.0), rtol=1e-9, atol=1e-9, method="dopri5") for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0
    assert abs(a.stats.steps - b.stats.steps) <= 2 + 0.02 * a.stats.steps  # equal here; round-off may flip one
    assert abs(a.stats.rhs_evaluations - b.stats.rhs_evaluations) <= 14 + 0.02 * a.stats.rhs_evaluations
    assert np.max(np.abs(a.p - b.p)) < 1e-8 * (1 + np.max(np.abs(a.p)))  # round-off, grown over the run
    assert np.max(np.abs(a.multipliers - b.multipliers)) < 1e-6 * (1 + np.max(np.abs(a.multipliers)))


@pytest.mark.xdist_group("compiled")
def test_compiled_loop_serves_an_output_grid_and_projects():
    """The dependent formulation projects inside the compiled loop (the Python loop's projection:
    the same steps, the same states to round-off); reduced with projection runs the Python loop."""
    system = systems.load("rolling_disc")
    grid = np.linspace(0.0, 1.0, 11)
    fast = F.create("dependent", system, backend="compiled").simulate((0.0, 1.0), method="dopri5", t_eval=grid)
    slow = F.create("dependent", system).simulate((0.0, 1.0), method="dopri5", t_eval=grid)
    assert np.array_equal(fast.t, grid) and np.max(np.abs(fast.p - slow.p)) < 1e-9
    for t_eval in (None, grid):
        runs = [F.create("dependent", system, stabilization="projection", backend=b).simulate(
            (0.0, 2.0), method="dopri5", rtol=1e-6, atol=1e-6, t_eval=t_eval) for b in ("numpy", "compiled")]
        a, b = runs
        assert a.status == b.status == 0 and b.stats.backend == "compiled"
        assert a.stats.steps == b.stats.steps == b.stats.projections and a.stats.projections == a.stats.steps
        assert a.stats.rhs_evaluations == b.stats.rhs_evaluations  # y' anew after every projection
        assert np.max(np.abs(a.p - b.p)) < 1e-11 and np.max(np.abs(a.v - b.v)) < 1e-11
        # at rtol 1e-6 the steps leave the constraints by far more than the projection's 1e-12
        assert np.max(b.constraint_errors.position) <= 1e-12 and np.max(b.constraint_errors.velocity) < 1e-13
    plain = F.create("dependent", system, backend="compiled").simulate((0.0, 2.0), method="dopri5", rtol=1e-6,
                                                                       atol=1e-6)
    assert np.max(plain.constraint_errors.position) > 1e-9
    reduced = F.create("reduced", system, stabilization="projection", backend="compiled").simulate(
        (0.0, 1.0), method="dopri5")
    assert reduced.success and reduced.stats.projections > 0  # the Python loop, which has the hook


@pytest.mark.xdist_group("compiled")
def test_compiled_loop_stops_where_the_python_loop_stops():
    """The flat disc (lean angle pi/2): both loops stop at once with status -1 and say why, keeping
    the initial point."""
    system = systems.load("rolling_disc")
    p, v = system.default_state()
    p = p.copy()
    p[system.coordinate_names.index("theta")] = np.pi / 2
    flat = system.consistent_state(p, v, fix=("theta",))
    runs = [F.create("dependent", system, backend=b).simulate((0.0, 1.0), flat, method="dopri5")
            for b in ("numpy", "compiled")]
    for run in runs:  # the matrix is singular, or so near it that the step size collapses
        assert run.status == -1 and ("step size" in run.message or "singular" in run.message)
        assert "rolling_disc" in run.message and run.t.size >= 1 and run.t[-1] < 1e-3


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


@pytest.mark.slow  # a module of its own: about 40 s of compiling
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


def test_auto_backend_compiles_nothing_new_and_takes_what_the_cache_holds(tmp_path, monkeypatch):
    monkeypatch.setenv("PFAFF_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PFAFF_BACKEND", raising=False)
    system = systems.load("knife_edge")
    assert F.create("minimal", system).backend == "numpy"  # a cold cache: no compile step on the way
    codegen.mark_warm(F.create("minimal", system).warm_tag())  # what a compiled run notes (tests/test_fused.py)
    auto = F.create("minimal", system)
    assert auto.requested_backend == "auto" and auto.backend == "compiled"
    assert F.create("reduced", system).backend == "numpy"  # warm only for what ran compiled
    monkeypatch.setenv("PFAFF_BACKEND", "numpy")
    assert F.create("minimal", system).backend == "numpy"
    codegen.clear_cache()
    assert F.create("minimal", system, backend="auto").backend == "numpy"
    with pytest.raises(ValueError, match="backend got 'fast'"):
        F.create("minimal", system, backend="fast")
