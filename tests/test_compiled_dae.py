"""IDA on the compiled backend: the residual F(t, Y, Y') of the index-1 and GGL forms in machine code
(formulations.kernels.compiled.dependent_steps) equals the Python residual of formulations.solvers.ida
at arbitrary (Y, Y'), its Jacobian equals difference quotients of the Python residual, and a run
reaches the same accuracy against a tight reference as the Python residual's run."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.forms import GGL_DAE, INDEX1_DAE
from systems.numeric import codegen

try:
    import sksundae  # noqa: F401
    HAVE_IDA = True
except ImportError:  # the optional extra "dae" is not installed
    HAVE_IDA = False

pytestmark = [pytest.mark.skipif(not codegen.available(), reason="numba is not installed"),
              pytest.mark.skipif(not HAVE_IDA, reason="scikit-sundae (extra 'dae') is not installed"),
              pytest.mark.xdist_group("compiled"), pytest.mark.slow]
# slow: the residual, its Jacobian and the augmented Lagrangian's loop are modules of their own kind
# (about 50 s of compiling on a new machine); the Python forms they follow are tested by default
# (tests/test_enforcement.py)

# holonomic rows (slider-crank); Euler parameters with their unit norms (the heavy top, whose module
# tests/test_compiled_lie.py compiles as well), rheonomic rows, rows set aside as dependent,
# nonholonomic rows with Baumgarte gains
CASES = [("slider_crank", "none"), ("slider_crank", "ggl"), ("heavy_top", "ggl"),
         pytest.param("driven_slider_crank", "ggl", marks=pytest.mark.slow),
         pytest.param("bricard", "none", marks=pytest.mark.slow),
         pytest.param("knife_edge", "baumgarte", marks=pytest.mark.slow)]


def _residuals(name, stabilization):
    """(Python residual on numpy, compiled residual) at a consistent state of ``name`` at t = 0.2."""
    from formulations.solvers.ida import CompiledResidual, Residual

    system = systems.load(name)
    t = 0.2
    p, v = system.default_state()
    if system.is_rheonomic:
        p, v = system.consistent_state(p, v, t=t)
    form = GGL_DAE if stabilization == "ggl" else INDEX1_DAE
    made = []
    for backend in ("numpy", "compiled"):
        formulation = F.create("dependent", system, stabilization=stabilization, backend=backend)
        formulation.prepare(p, v, t0=t)
        y0 = formulation.own_state(p, v, t)
        made.append(Residual(formulation, t, y0, form, 1e-8) if backend == "numpy"
                    else CompiledResidual(formulation, t, y0, form, 1e-8, 1e-8))
    return t, made


def _perturbed(problem, rng):
    """(Y, Y') near the consistent start: every part moved, multipliers and mu included."""
    Y = problem.Y0 + rng.normal(0.0, 0.05, problem.Y0.shape) * (1 + np.abs(problem.Y0))
    YP = problem.YP0 + rng.normal(0.0, 0.5, problem.YP0.shape) * (1 + np.abs(problem.YP0))
    return Y, YP


@pytest.mark.parametrize("name, stabilization", CASES)
def test_compiled_residual_equals_the_python_residual(name, stabilization):
    t, (python, compiled) = _residuals(name, stabilization)
    assert compiled.Y0.shape == python.Y0.shape
    rng = np.random.default_rng(3)
    for _ in range(4):
        Y, YP = _perturbed(python, rng)
        expected, got = np.zeros(Y.size), np.full(Y.size, np.nan)
        python.residual(t, Y, YP, expected)
        Y.flags.writeable = YP.flags.writeable = False  # as IDA hands them over
        compiled.residual(t, Y, YP, got)
        scale = 1.0 + np.max(np.abs(expected))
        assert np.max(np.abs(got - expected)) <= 1e-12 * scale, (expected, got)


@pytest.mark.parametrize("name, stabilization", CASES)
def test_compiled_jacobian_equals_difference_quotients_of_the_python_residual(name, stabilization):
    """dF/dY + cj dF/dY' against central differences (step 1e-6) of the Python residual."""
    t, (python, compiled) = _residuals(name, stabilization)
    rng = np.random.default_rng(5)
    Y, YP = _perturbed(python, rng)
    cj = 250.0
    size = Y.size
    expected = np.empty((size, size))
    plus, minus = np.empty(size), np.empty(size)
    for j in range(size):
        step = 1e-6 * (1 + abs(Y[j]))
        e = np.zeros(size)
        e[j] = step
        python.residual(t, Y + e, YP + cj * e, plus)
        python.residual(t, Y - e, YP - cj * e, minus)
        expected[:, j] = (plus - minus) / (2 * step)
    res = np.empty(size)
    compiled.residual(t, Y, YP, res)
    JJ = np.full((size, size), np.nan, order="F")  # SUNDIALS' dense matrices are column-major
    compiled.jacobian(t, Y, YP, res, cj, JJ)
    scale = 1.0 + np.max(np.abs(expected), axis=0)
    assert np.all(np.abs(JJ - expected) <= 1e-5 * scale), np.max(np.abs(JJ - expected) / scale)


@pytest.mark.parametrize("stabilization", ["none", "ggl"])
def test_compiled_ida_run_is_as_accurate_as_the_python_residual(stabilization):
    """The slider-crank for 1 s at rtol = atol = 1e-8: both runs within 1e-5 of a DOP853 reference at
    1e-12 (their errors are some 1e-6), with the same multipliers where they end, and the compiled run
    reports its backend."""
    system = systems.load("slider_crank")
    t_eval = np.linspace(0.0, 1.0, 6)
    reference = F.create("dependent", system).simulate((0.0, 1.0), rtol=1e-12, atol=1e-12, t_eval=t_eval)
    runs = {b: F.create("dependent", system, stabilization=stabilization, backend=b).simulate(
        (0.0, 1.0), rtol=1e-8, atol=1e-8, method="IDA", t_eval=t_eval) for b in ("numpy", "compiled")}
    for backend, run in runs.items():
        assert run.status == 0, run.message
        assert run.stats.backend == backend
        assert np.allclose(run.t, t_eval)
        assert np.max(np.abs(run.p - reference.p)) < 1e-5, backend
        assert np.max(np.abs(run.multipliers[-1] - reference.multipliers[-1])) < 1e-3 * (
            1 + np.max(np.abs(reference.multipliers[-1])))
    assert np.all(np.isfinite(runs["compiled"].vdot)) and np.all(np.isfinite(runs["compiled"].multipliers))


def test_events_on_the_compiled_residual_are_ida_roots_as_on_numpy():
    """IDA's root finding on the compiled residual: the slider-crank's crank angle passing 0.2 rad,
    the same time as on the Python residual, an output point of the run, which stops there."""
    system = systems.load("slider_crank")
    passing = F.Event(lambda t, p, v: p[2] - 0.2, terminal=True, direction=1)
    runs = {b: F.create("dependent", system, backend=b).simulate((0.0, 1.0), rtol=1e-10, atol=1e-10, method="IDA",
                                                                  events=[passing]) for b in ("numpy", "compiled")}
    for run in runs.values():
        assert run.status == 1 and len(run.t_events) == 1 and run.t[-1] == run.t_events[0]
        assert abs(run.p[-1, 2] - 0.2) < 1e-8
    assert runs["compiled"].t_events[0] == pytest.approx(runs["numpy"].t_events[0], abs=1e-8)


def test_compiled_ida_stops_at_max_steps_and_keeps_its_points():
    system = systems.load("slider_crank")
    run = F.create("dependent", system, backend="compiled").simulate((0.0, 1.0), method="IDA", max_steps=5)
    assert run.status == -1 and "max_steps = 5" in run.message
    assert len(run.t) == 6 and run.t[-1] < 1.0  # the start and five steps


@pytest.mark.parametrize("name", ["slider_crank", pytest.param("heavy_top", marks=pytest.mark.slow),
                                  pytest.param("knife_edge", marks=pytest.mark.slow)])
def test_compiled_augmented_lagrangian_takes_the_python_steps(name):
    """Same iteration, same steps: the machine-code run and the Python run agree to round-off, on an
    output grid coarser than the step."""
    system = systems.load(name)
    t_eval = np.linspace(0.0, 0.5, 6)
    runs = {b: F.create("dependent", system, backend=b).simulate((0.0, 0.5), method="augmented_lagrangian",
                                                                 step=2e-3, t_eval=t_eval) for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0, (a.message, b.message)
    assert b.stats.backend == "compiled" and a.stats.steps == b.stats.steps == 250
    assert np.array_equal(a.t, b.t) and np.allclose(b.t, t_eval)
    assert np.max(np.abs(a.p - b.p)) < 1e-10 and np.max(np.abs(a.v - b.v)) < 1e-8  # iterations stop at 1e-10
    assert np.max(np.abs(a.multipliers - b.multipliers)) < 1e-8 * (1 + np.max(np.abs(a.multipliers)))


def test_compiled_augmented_lagrangian_stops_where_the_iteration_does_not_converge():
    """One iteration allowed at a tolerance it cannot reach: both backends stop after the start with
    the same message, the start kept."""
    from formulations.solvers.augmented_lagrangian import AugmentedLagrangian

    system = systems.load("slider_crank")
    settings = AugmentedLagrangian(max_iter=1, tol=1e-14)
    runs = {}
    for backend in ("numpy", "compiled"):
        formulation = F.create("dependent", system, backend=backend)
        runs[backend] = formulation.simulate((0.0, 0.1), method=settings, step=1e-2)
    for run in runs.values():
        assert run.status == -1 and "did not converge in 1 iterations" in run.message, run.message
        assert len(run.t) == 1 and run.t[0] == 0.0
    assert runs["numpy"].message.split("(last")[0] == runs["compiled"].message.split("(last")[0]


def test_cache_warm_compiles_ida_and_the_augmented_lagrangian_and_skips_what_does_not_apply():
    from formulations.solvers.warm import warm

    rows = warm(["slider_crank"], ("dependent", "reduced"), methods=("IDA", "augmented_lagrangian"))
    assert [(row[1], row[2]) for row in rows] == [("dependent", "IDA"), ("dependent", "augmented_lagrangian")]
    assert warm(["rolling_disc"], ("dependent",), methods=("RKMK45-SE3",)) == []  # Lie groups: bodies only
    with pytest.raises(ValueError, match="expected one of"):
        warm(["slider_crank"], ("dependent",), methods=("RK45",))
