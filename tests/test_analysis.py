"""Constraint analysis against known answers."""
import pytest
import sympy as sp

import systems

EXPECTED = {  # classification, growth vector, hidden holonomic
    "rolling_disc": ("completely nonholonomic", (3, 4, 5), 0),
    "sphere_in_cylinder": ("completely nonholonomic", (3, 5), 0),
    "knife_edge": ("completely nonholonomic", (2, 3), 0),
    "chaplygin_sleigh": ("completely nonholonomic", (2, 3), 0),
    "vertical_disc": ("completely nonholonomic", (2, 3, 4), 0),
    "pendulum_cartesian": ("holonomic", (1,), 0),
    "pfaffian_exact": ("holonomic", (2,), 1),
    "pfaffian_integrable": ("holonomic", (2,), 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_catalogue_classification(name):
    report = systems.analyze_constraints(systems.load(name))
    cls, growth, hidden = EXPECTED[name]
    assert report.classification == cls
    assert report.growth_vector == growth
    assert report.hidden_holonomic == hidden
    assert report.dof == report.n - report.m - report.l
    text = str(report)
    assert cls in text and "growth vector" in text
    assert report.to_markdown().startswith("### Constraint analysis")


def test_disc_is_proved_completely_nonholonomic_symbolically():
    report = systems.analyze_constraints(systems.load("rolling_disc"))
    assert report.classification_how.startswith("symbolic")
    assert all(not row.exact and not row.integrable for row in report.rows)
    assert report.rows[0].witness  # a point where the failing pair is non-zero


def test_exact_demo_recovers_the_potential():
    row = systems.analyze_constraints(systems.load("pfaffian_exact")).rows[0]
    x, y, z = row.coordinates
    assert row.exact and row.exact_how == "symbolic"
    assert sp.simplify(row.potential - (x**2 + y**2 + z**2) / 2) == 0


def test_integrating_factor_demo_recovers_an_integral():
    row = systems.analyze_constraints(systems.load("pfaffian_integrable")).rows[0]
    x, y, z = row.coordinates
    assert not row.exact and row.integrable
    assert {pair[:2] for pair in row.failing_pairs} == {("x", "y")}
    # mu a is the gradient of the integral
    grad = [sp.diff(row.integral, s) for s in (x, y, z)]
    assert all(sp.simplify(gi - row.integrating_factor * ai) == 0 for gi, ai in zip(grad, row.form))


def test_y_dx_minus_x_dy():
    x, y = sp.symbols("x y")
    report = systems.check_pfaffian([[y, -x]], [x, y])
    row = report.rows[0]
    assert not row.exact and row.failing_pairs[0][:2] == ("x", "y")
    assert row.integrable and row.integrating_factor is not None  # every 2-D form is integrable


def test_span_integrable_though_rows_are_not_exact():
    x, y, z = sp.symbols("x y z")
    report = systems.check_pfaffian([[y, 0, 0], [0, x, 0]], [x, y, z])
    assert all(not row.exact for row in report.rows)
    assert report.classification == "holonomic" and report.hidden_holonomic == 2
    assert report.classification_how.startswith("symbolic")


def test_partially_nonholonomic():
    x, y, z, w = sp.symbols("x y z w")
    report = systems.check_pfaffian([[-y, 0, 1, 0], [0, 0, 0, 1]], [x, y, z, w])
    assert report.classification == "partially nonholonomic"
    assert report.hidden_holonomic == 1 and report.growth_vector == (2, 3)


def test_heisenberg_form_is_not_integrable():
    x, y, z = sp.symbols("x y z")
    row = systems.check_pfaffian([[-y, 0, 1]], [x, y, z]).rows[0]
    assert not row.exact and not row.integrable


def test_check_pfaffian_rejects_wrong_width():
    x, y = sp.symbols("x y")
    with pytest.raises(ValueError, match="expected 2"):
        systems.check_pfaffian([[1, 2, 3]], [x, y])


def test_jacobian_rank_and_singular_configuration_at_a_point():
    """Two holonomic rows whose Jacobian loses rank where the bob passes below the pivot."""
    x, y = sp.symbols("x y", real=True)
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    s = systems.from_lagrangian("circle_and_line", (x, y), (xd**2 + yd**2) / 2,
                                holonomic=[("rod", x**2 + y**2 - 1)], default_p=(0.6, -0.8), default_v=(0.8, 0.6))
    regular = systems.analyze_constraints(s)
    assert regular.jacobian_rank == 1 and not regular.singular
    at_origin = systems.analyze_constraints(s, point=[0.0, 0.0])
    assert at_origin.jacobian_rank == 0 and at_origin.singular and "singular" in str(at_origin)
    with pytest.raises(ValueError, match="expected \\(2,\\)"):
        systems.analyze_constraints(s, point=[0.0])


@pytest.mark.parametrize("options", [{}, {"domain": 1}, {"bodies": True}], ids=["C3", "C1", "four_bodies"])
def test_singular_set_of_the_triple_slider_crank(options):
    """Haug & Pavesic: Phi_p loses rank where the crank stands at q2 = +-pi/2 with slider 3 over slider 1."""
    import numpy as np

    system = systems.load("triple_slider_crank", **options)
    report = systems.analyze_constraints(system)
    assert report.singular_points and "numeric search" in report.singular_summary
    for point in report.singular_points:
        if "q2" in point:
            crank, q1, q3 = point["q2"], point["q1"], point["q3"]
        else:
            crank, q1, q3 = point["phi2"] - point["phi1"], point["x1"], point["x3"]
        assert abs(np.cos(crank)) < 1e-6 and abs(q1 - q3) < 1e-6
    assert "singular configurations" in str(report)


def test_rigid_tetrahedron_has_no_singular_configuration():
    report = systems.analyze_constraints(systems.load("four_point_body"))
    assert report.classification == "holonomic" and report.growth_vector == (6,)
    assert not report.singular_points and report.singular_summary.startswith("none found")
