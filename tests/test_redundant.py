"""Dependent constraint rows: detection and naming (systems.redundancy), minimum-norm multipliers
equal to the pseudo-inverse solution, the same motion as the model without the dependent row, and
the warning that the reactions are not unique."""
import warnings

import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from formulations.errors import CapabilityError
from formulations.results.reactions import NonUniqueReactionsWarning


def _parallel_four_bar(duplicate):
    """A parallelogram four-bar in natural coordinates (cranks from (0, 0) and (1, 0) to B0, B1, a
    coupler B0 B1), with an extra, third crank from (2, 0) whose tip is tied to B1 + (1, 0): its
    length row repeats the second crank's (the classic redundant parallel linkage). duplicate=False:
    the same mechanism without the extra row."""
    x0, y0, x1, y1 = p = sp.symbols("x0 y0 x1 y1", real=True)
    v = sp.symbols("x0_dot y0_dot x1_dot y1_dot", real=True)
    T = sum(vi**2 for vi in v) / 2 + (v[0] * v[2] + v[1] * v[3]) / 4
    V = 9.81 * (y0 + y1)
    rows = [("crank 0 force", sp.sqrt(x0**2 + y0**2) - 1), ("crank 1 force", sp.sqrt((x1 - 1) ** 2 + y1**2) - 1),
            ("coupler force", sp.sqrt((x1 - x0) ** 2 + (y1 - y0) ** 2) - 1)]
    if duplicate:
        rows.append(("crank 2 force", sp.sqrt((x1 + 1 - 2) ** 2 + y1**2) - 1))
    c, s = np.cos(1.0), np.sin(1.0)
    return systems.from_lagrangian("parallel_four_bar" + ("_redundant" if duplicate else ""), p, T, V, velocities=v,
                                   holonomic=rows, default_p=(c, s, 1 + c, s), default_v=(-s, c, -s, c),
                                   description="a parallelogram four-bar", reference="test")


@pytest.fixture(scope="module")
def pair():
    return _parallel_four_bar(False), _parallel_four_bar(True)


def test_dependent_row_is_detected_and_named(pair):
    plain, redundant = pair
    assert plain.redundant_constraints == ()
    report = systems.redundancy(redundant)
    assert report.rank == 3 and report.rows == 4 and report.gruebler == 0 and report.mobility == 1
    assert len(report.dependent) == 1 and report.dependent[0] in ("crank 1 force", "crank 2 force")
    assert redundant.redundant_constraints == report.dependent
    text = str(systems.analyze_constraints(redundant, singular_search=False))
    assert "dependent rows" in text and "Gruebler count n - m - l = 0, actual n - rank C = 1" in text


def test_minimum_norm_multipliers_are_the_pseudo_inverse_solution(pair):
    """lambda = pinv(C^T) (f - d - M v') with v' of the model without the extra row."""
    plain, redundant = pair
    p, v = redundant.default_state()
    ev = F.create("dependent", redundant).evaluate(0.0, np.concatenate([p, v]))
    ev_plain = F.create("dependent", plain).evaluate(0.0, np.concatenate([p, v]))
    assert np.allclose(ev.vdot, ev_plain.vdot, rtol=1e-10, atol=1e-10)
    M, d, f0, _, C, *_ = redundant.numeric.dynamics(0.0, p, v, redundant.params)
    want = np.linalg.pinv(C.T) @ (f0 - d - M @ ev_plain.vdot)
    assert np.allclose(ev.lam, want, rtol=1e-10, atol=1e-10)
    # the two equal crank rows share the crank force of the plain model equally
    assert ev.lam[1] == pytest.approx(ev.lam[3], rel=1e-10)
    assert ev.lam[1] + ev.lam[3] == pytest.approx(ev_plain.lam[1], rel=1e-10)


def test_reactions_are_minimum_norm_and_say_they_are_not_unique(pair):
    _, redundant = pair
    p, v = redundant.default_state()
    with pytest.warns(NonUniqueReactionsWarning, match="not unique"):
        lam = F.reactions(redundant, 0.0, p, v, as_dict=False)
    ev = F.create("dependent", redundant).evaluate(0.0, np.concatenate([p, v]))
    assert np.allclose(lam, ev.lam, rtol=1e-9, atol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.reactions(pair[0], 0.0, p, v)  # independent rows: no warning


@pytest.mark.parametrize("stabilization", ["baumgarte", "projection"])
def test_redundant_model_moves_as_the_plain_one(pair, stabilization):
    """Through the flat positions (singular="pass"), with the constraints stabilized: without
    stabilization the drift leaves the extra row's direction slightly independent of the others."""
    plain, redundant = pair
    runs = [F.create("dependent", s, stabilization=stabilization, singular="pass").simulate(
        (0.0, 3.0), rtol=1e-10, atol=1e-10, t_eval=np.linspace(0, 3, 31)) for s in (plain, redundant)]
    assert all(r.status == 0 for r in runs)
    assert np.max(np.abs(runs[0].p - runs[1].p)) < 1e-7


def test_coordinate_formulations_refuse_dependent_rows_by_name(pair):
    with pytest.raises(CapabilityError, match="dependent"):
        F.create("manifold", pair[1])


def test_saddle_solve_falls_back_to_least_squares_on_a_duplicated_row():
    from formulations.linalg import solve_saddle

    rng = np.random.default_rng(3)
    A = rng.normal(size=(4, 4))
    M = A @ A.T + 4 * np.eye(4)
    C = rng.normal(size=(2, 4))
    C = np.vstack([C, C[0]])  # the first row twice
    K = np.block([[M, C.T], [C, np.zeros((3, 3))]])
    rhs = np.concatenate([rng.normal(size=4), [0.3, -0.2, 0.3]])
    x, deficient = solve_saddle(K, rhs)
    assert deficient
    assert np.allclose(x, np.linalg.pinv(K) @ rhs, atol=1e-10)
    assert x[4] == pytest.approx(x[6], rel=1e-10)


def test_bricard_dof_is_its_mobility_with_the_gruebler_count_beside_it():
    # Bricard's linkage: six bars, n = m = 24, so the count gives 0; it moves with one degree of
    # freedom because one row depends on the others at every configuration (rank C = 23)
    report = systems.analyze_constraints(systems.load("bricard"))
    assert report.dof == 1 and report.mobility == 1 and report.gruebler == 0
    assert report.jacobian_rank == 23 and report.jacobian_rank_generic == 23 and not report.singular
    lines = str(report).splitlines()
    assert "Gruebler count n - m - l = 0" in lines[1] and "dof = n - rank C = 1" in lines[1]
    assert "rows are redundant" in lines[2] and "singular" not in lines[2]
    assert "| dof = mobility n − rank C | 1" in report.to_markdown()


def test_the_comparison_offers_only_formulations_that_take_dependent_rows():
    """Formulation.refusal says why a formulation cannot run a system with dependent rows; the
    comparison's default configurations leave those formulations out, creating one raises that reason."""
    from formulations.workbench.comparison.compare import default_configurations

    bricard = systems.load("bricard")
    offered = {F.Configuration.parse(c).formulation for c in default_configurations(bricard)}
    assert offered == {"dependent", "udwadia_kalaba"}
    with pytest.raises(F.CapabilityError, match="whose constraint rows are dependent"):
        F.create("reduced", bricard)
