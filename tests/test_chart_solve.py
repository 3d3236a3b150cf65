"""The chart solve for h(w) on tangent-space charts (Haug & Pavesic): the numpy chart
(formulations.coordinates.charts.Atlas) and the compiled one (formulations.kernels.compiled.embedded)
iterate the same way, stay on the chart's own sheet, and say where they fail."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.coordinates.charts import Atlas, ChartError
from systems.numeric import codegen

RTOL = 1e-8  # simulate's default tolerance (rtol = atol)


def _heavy_top_chart():
    """An Atlas of the heavy top with a chart at the default state."""
    system = systems.load("heavy_top")
    atlas = Atlas(system)
    atlas.from_dependent(*system.default_state())
    return atlas


def test_the_chart_solve_keeps_to_the_charts_own_sheet():
    """Over a chart of the heavy top the line p0 + V w + range(U) meets the unit sphere of Euler
    parameters twice: near the origin, and on the far side (nearly -e0), where det(Phi_p U) < 0.
    Started from an h on the far sheet, Newton's method converges there; the solve rejects that
    root and starts again from h = 0, which finds the near one."""
    atlas = _heavy_top_chart()
    w = np.array([0.3, -0.2, 0.1])
    near = atlas.position(w)
    assert np.linalg.det(atlas._Phi_p @ atlas.U) > 0 and np.linalg.norm(atlas.h) < 0.1
    far = np.array([0.0, 0.0, 0.0, 2.0])
    p, h, Phi_p, found, residual = atlas._newton(w, far, 0.0)
    assert residual <= atlas.utol and np.linalg.det(Phi_p @ atlas.U) < 0  # a root, on the far sheet
    assert found is None and np.max(np.abs(p - near)) > 1.0
    atlas.h = far
    assert np.allclose(atlas.position(w), near, atol=1e-12)
    assert np.allclose(np.linalg.norm(near[:4]), 1.0, atol=1e-12)


def test_a_chart_solve_that_fails_says_when_and_by_how_much():
    """Past the fold (|V w| beyond the unit sphere) there is no h: a ChartError with the time and
    the residual max |Phi_a|, and the next solve starts from the chart's origin."""
    atlas = _heavy_top_chart()
    with pytest.raises(ChartError, match=r"did not converge at t = 0\.25 .*max \|Phi_a\| = \d\.\d\de[+-]\d\d"):
        atlas.position(np.array([3.0, 0.0, 0.0]), t=0.25)
    assert not np.any(atlas.h)


def test_the_heavy_top_on_charts_conserves_energy_to_the_tolerance():
    """The numpy run of the heavy top on its charts (a new chart every three steps), where a chart
    iteration from a rejected stage's h near the fold once converged on the far sheet (150 J at
    t = 0.94): a conservative run's drift stays below steps * RTOL * (1 + |E|)."""
    tr = F.create("manifold", systems.load("heavy_top"), backend="numpy").simulate((0.0, 1.0))
    assert tr.status == 0 and tr.stats.charts > 10, tr.message
    assert tr.energy_drift <= tr.stats.steps * RTOL * (1 + abs(tr.energy[0]))


@pytest.mark.skipif(not codegen.available(), reason="numba is not installed")
@pytest.mark.xdist_group("compiled")
@pytest.mark.slow  # three manifold modules to compile (about 50 s each); the energy test above runs by default
@pytest.mark.parametrize("name, t_end", [("heavy_top", 1.0), ("slider_crank", 1.0), ("spherical_double_pendulum", 1.0)])
def test_numpy_and_compiled_manifold_runs_agree_at_the_default_tolerance(name, t_end):
    """The two backends run the same steps on the same charts. The heavy top (a 150 rad/s spin, a new
    chart every three steps) is where a chart iteration with B held fixed, started from a rejected
    trial stage's h near the fold, converged on the far sheet: the numpy run's energy jumped by 150 J
    at t = 0.94. Energy: each accepted step commits a local error of at most RTOL of the state's
    scale, so the drift of a conservative run stays below steps * RTOL * (1 + |E|). End state: both
    follow the same steps, so they differ by round-off amplified along the run; 1e3 * steps * RTOL
    of the scale leaves room for a step that flips, still far below the 150 J (10 % of the heavy
    top's energy) of a jump to another sheet."""
    system = systems.load(name)
    runs = {b: F.create("manifold", system, backend=b).simulate((0.0, t_end)) for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0, (a.message, b.message)
    assert b.stats.backend == "compiled" and a.stats.charts > 1
    assert abs(a.stats.charts - b.stats.charts) <= 1 and abs(a.stats.steps - b.stats.steps) <= 1
    for tr in (a, b):
        assert tr.energy_drift <= tr.stats.steps * RTOL * (1 + abs(tr.energy[0]))
    close = 1e3 * a.stats.steps * RTOL
    assert np.max(np.abs(a.p[-1] - b.p[-1])) <= close * (1 + np.max(np.abs(b.p)))
    assert np.max(np.abs(a.v[-1] - b.v[-1])) <= close * (1 + np.max(np.abs(b.v)))
