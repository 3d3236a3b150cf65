"""Forward and adjoint sensitivities (formulations.sensitivities) against a closed form (the
harmonic oscillator), against central differences of whole runs at a tight tolerance, across
formulations, and against the published output of SUNDIALS IDAS's slider-crank example."""
import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from systems.errors import ArgumentError, UnknownNameError

from cases import applicable

PENDULUM = systems.load("pendulum_cartesian")
TIMES = np.array([0.0, 0.7, 1.4, 2.0])


def oscillator():
    x, xd = sp.Symbol("x", real=True), sp.Symbol("x_dot", real=True)
    m, k = sp.symbols("m k", positive=True)
    return systems.from_lagrangian("oscillator", (x,), m * xd**2 / 2, k * x**2 / 2,
                                   parameters=(systems.Parameter(m, 2.0, "kg", "mass"),
                                               systems.Parameter(k, 3.0, "N/m", "stiffness")),
                                   default_p=(0.5,), default_v=(0,))


def test_the_oscillators_sensitivity_to_its_stiffness_is_the_closed_form():
    """x = x0 cos(w t), w = sqrt(k / m): dx/dk = -x0 t sin(w t) / (2 m w), and
    int_0^T x^2 dt = x0^2 (T / 2 + sin(2 w T) / (4 w)) differentiated in k."""
    m, k, x0, T = 2.0, 3.0, 0.5, 2.0
    w = np.sqrt(k / m)
    sens = F.sensitivities(oscillator(), "dependent", (0.0, T), wrt=["k"], output=lambda t, p, v: p[0] ** 2,
                           t_eval=TIMES)
    assert np.allclose(sens.dp["k"][:, 0], -x0 * TIMES * np.sin(w * TIMES) / (2 * m * w), rtol=1e-7, atol=1e-12)
    dw = 1 / (2 * m * w)
    dG = x0**2 * (np.cos(2 * w * T) * 2 * T / (4 * w) - np.sin(2 * w * T) / (4 * w**2)) * dw
    assert sens.gradient["k"] == pytest.approx(dG, rel=1e-7)
    assert sens.output == pytest.approx(x0**2 * (T / 2 + np.sin(2 * w * T) / (4 * w)), rel=1e-9)


def _differences(name, step=1e-4):
    """Central differences of whole dependent runs at rtol 1e-13 in parameter ``name``: dp (N, n_p)."""
    d = step * PENDULUM.parameter_dict[name]
    runs = [F.create("dependent", PENDULUM.with_parameters(**{name: PENDULUM.parameter_dict[name] + s * d}),
                     backend="numpy").simulate((0.0, 2.0), t_eval=TIMES, rtol=1e-13, atol=1e-13) for s in (1, -1)]
    return (runs[0].p - runs[1].p) / (2 * d)


@pytest.mark.parametrize("formulation", [f for f in applicable(PENDULUM) if f != "manifold"])
def test_the_pendulums_sensitivities_match_differences_of_whole_runs(formulation):
    """dp/dg and dp/dL (the default state moves with L) in every formulation, to 1e-6 of their size."""
    sens = F.sensitivities(PENDULUM, formulation, (0.0, 2.0), wrt=["g", "L"], t_eval=TIMES)
    for name in ("g", "L"):
        truth = _differences(name)
        assert np.max(np.abs(sens.dp[name] - truth)) < 1e-6 * np.max(np.abs(truth))


def test_an_integral_output_has_the_same_gradient_in_every_formulation():
    """Over t_span, whatever the output times; in every formulation with a smooth right-hand side."""
    names = [f for f in applicable(PENDULUM) if f != "manifold"]
    results = [F.sensitivities(PENDULUM, f, (0.0, 2.0), wrt=["L"], output="kinetic energy", t_eval=[0.0, 1.0])
               for f in names]
    for other in results[1:]:
        assert other.gradient["L"] == pytest.approx(results[0].gradient["L"], rel=1e-7)
        assert other.output == pytest.approx(results[0].output, rel=1e-9)
    whole = F.sensitivities(PENDULUM, names[0], (0.0, 2.0), wrt=["L"], output="kinetic energy")
    assert results[0].output == pytest.approx(whole.output, rel=1e-9) and list(results[0].t) == [0.0, 1.0]


def idas_slider_crank():
    """The slider-crank of SUNDIALS IDAS's example idasSlCrank_FSA_dns (Haug, Intermediate Dynamics,
    1992, example 6.1.8), written from its description: crank angle q, slider position x, rod angle p,
    T = (J1 q'^2 + m2 x'^2 + J2 p'^2) / 2, a spring-damper of length l between crank and rod and a
    constant force F on the rod; started at q = pi / 2 from rest."""
    q, x, p = sp.symbols("q x p", real=True)
    qd, xd, pd = sp.symbols("q_dot x_dot p_dot", real=True)
    a, J1, m2, J2, l0, F_, k, c = sp.symbols("a J1 m2 J2 l0 F k c", positive=True)
    length = sp.sqrt(x**2 - x * (sp.cos(p) + a * sp.cos(q)) + (1 + a**2) / 4 + a * sp.cos(p - q) / 2)
    grad = sp.Matrix([length]).jacobian([q, x, p])
    rate = (grad * sp.Matrix([qd, xd, pd]))[0]
    params = [systems.Parameter(*spec) for spec in (
        (a, 0.5, "m", "half-length of the crank"), (J1, 1.0, "kg m^2", "crank inertia"), (m2, 1.0, "kg", "rod mass"),
        (J2, 2.0, "kg m^2", "rod inertia"), (l0, 1.0, "m", "spring free length"), (F_, 1.0, "N", "force on the rod"),
        (k, 1.0, "N/m", "spring constant"), (c, 1.0, "N s/m", "damper constant"))]
    rod = sp.asin(-a * sp.sin(q))
    crank = systems.Embedding(coordinates=(q,), g=sp.Matrix([q, a * sp.cos(q) + sp.cos(rod), rod]),
                              inverse=sp.Matrix([q]))
    return systems.from_lagrangian(
        "idas_slider_crank", (q, x, p), (J1 * qd**2 + m2 * xd**2 + J2 * pd**2) / 2,
        k * (length - l0) ** 2 / 2 - F_ * (x + sp.cos(p)), velocities=(qd, xd, pd), forces=list(-c * rate * grad.T),
        holonomic=[("slider guide", x - sp.cos(p) - a * sp.cos(q)), ("crank pin", -sp.sin(p) - a * sp.sin(q))],
        parameters=params, default_p=(sp.pi / 2, sp.cos(sp.asin(a)), -sp.asin(a)), default_v=(0, 0, 0),
        embedding=crank)


def test_the_idas_slider_crank_forward_and_adjoint_against_the_published_output():
    """G = int_0^10 T dt and dG/dk, dG/dc: forward and adjoint agree to 1e-6 relative and match IDAS's
    published output (its run at rtol 1e-6: G = 3.3366157997761721, dG/dk = 3.3346e-01 forward and
    3.3345e-01 by central differences, dG/dc = -3.6375e-01) to its tolerance and printed digits."""
    crank = idas_slider_crank()
    run = dict(wrt=["k", "c"], output="kinetic energy", rtol=1e-10, atol=1e-10)
    forward = F.sensitivities(crank, "dependent", (0.0, 10.0), **run)
    adjoint = F.sensitivities(crank, "dependent", (0.0, 10.0), adjoint=True, **run)
    assert adjoint.kind == "adjoint" and adjoint.dp == {} and adjoint.output == pytest.approx(forward.output, 1e-9)
    for name in ("k", "c"):
        assert adjoint.gradient[name] == pytest.approx(forward.gradient[name], rel=1e-6)
    assert forward.output == pytest.approx(3.3366157997761721, rel=1e-5)
    assert abs(forward.gradient["k"] - 0.33345) < 1e-5 and abs(forward.gradient["k"] - 0.33346) < 2e-5
    assert abs(forward.gradient["c"] + 0.36375) < 1e-5


@pytest.mark.slow
def test_the_idas_slider_crank_gradient_is_the_central_difference_of_whole_runs():
    """dG/dk and dG/dc against central differences of whole runs at rtol 1e-12, to 1e-6 relative."""
    crank = idas_slider_crank()
    forward = F.sensitivities(crank, "dependent", (0.0, 10.0), wrt=["k", "c"], output="kinetic energy")
    for name in ("k", "c"):
        d = 1e-4
        ends = [F.sensitivities(crank.with_parameters(**{name: 1.0 + s * d}), "dependent", (0.0, 10.0), wrt=["F"],
                                output="kinetic energy", rtol=1e-12, atol=1e-12).output for s in (1, -1)]
        assert forward.gradient[name] == pytest.approx((ends[0] - ends[1]) / (2 * d), rel=1e-6)


def test_bad_requests_are_refused_with_what_was_expected():
    with pytest.raises(UnknownNameError, match="unknown parameter"):
        F.sensitivities(PENDULUM, "minimal", (0.0, 1.0), wrt=["gravity"])
    with pytest.raises(ArgumentError, match="wrt is empty"):
        F.sensitivities(PENDULUM, "minimal", (0.0, 1.0), wrt=[])
    with pytest.raises(ArgumentError, match="without projection"):
        F.sensitivities(PENDULUM, "dependent+projection", (0.0, 1.0), wrt=["g"])
    with pytest.raises(ArgumentError, match="expected times inside t_span"):
        F.sensitivities(PENDULUM, "minimal", (0.0, 1.0), wrt=["g"], t_eval=[0.5, 2.0])
    with pytest.raises(ArgumentError, match="expected a function g"):
        F.sensitivities(PENDULUM, "minimal", (0.0, 1.0), wrt=["g"], output="energy please")
    with pytest.raises(ArgumentError, match="adjoint=True gives the gradient of an integral output"):
        F.sensitivities(PENDULUM, "minimal", (0.0, 1.0), wrt=["g"], adjoint=True)
