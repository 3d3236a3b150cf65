"""Constraint analysis of forms with free parameters, of time-dependent forms, and under an overall
time bound. Expected answers are derived by hand in the comments (exterior derivatives of the
forms), never taken from the code under test."""
import threading
import time
from types import SimpleNamespace

import pytest
import sympy as sp

import systems
from systems.analysis.constraints import _row_forms
from systems.analysis.bounded import TimeBudget

x, y, z, t, theta, psi, phi = sp.symbols("x y z t theta psi phi")
a, b, c, r, L, omega, Omega = sp.symbols("a b c r L omega Omega")


def _gradient_is(form, coords, phi_):
    return all(sp.simplify(sp.diff(phi_, s) - ai) == 0 for s, ai in zip(coords, form))


# --------------------------------------------------------------------------------------------
# forms with a parameter: exact, integrable with a factor, non-integrable
def test_exact_form_with_a_parameter_has_the_potential_a_x_y():
    # a y dx + a x dy = d(a x y): the form that raised NameError before parameters were allowed
    report = systems.check_pfaffian([[a * y, a * x]], [x, y])
    row = report.rows[0]
    assert row.exact is True and row.exact_how == "symbolic"
    X, Y = row.coordinates
    A = next(s for s in row.potential.free_symbols if s.name == "a")
    assert sp.simplify(row.potential - A * X * Y) == 0
    assert report.classification == "holonomic" and report.hidden_holonomic == 1
    assert "a random per point" in row.parameters


def test_y_dx_minus_x_dy_with_a_parameter_is_integrable_with_a_factor():
    # b (y dx - x dy): d of it is -2 b dx^dy != 0, so not exact; every 2-D form is integrable, and
    # by hand (y dx - x dy) / x^2 = -d(y/x), so 1/(b x^2) is a factor
    report = systems.check_pfaffian([[b * y, -b * x]], [x, y])
    row = report.rows[0]
    X, Y = row.coordinates
    B = sp.Symbol("b", real=True)
    assert row.exact is False and row.failing_pairs[0][:2] == ("x", "y")
    assert sp.simplify(row.failing_pairs[0][2] - 2 * B) == 0       # da_x/dy - da_y/dx = b - (-b) = 2 b
    assert row.integrable is True and row.integrable_how == "symbolic"
    assert _gradient_is([row.integrating_factor * ai for ai in row.form], [X, Y], row.integral)
    hand = [sp.diff(-Y / X, s) for s in (X, Y)]                         # the hand factor 1/(b x^2)
    assert all(sp.simplify(h - ai / (B * X**2)) == 0 for h, ai in zip(hand, row.form))
    assert "b" in row.witness                                            # the parameter value used there


def test_screw_form_is_integrable_with_factor_one_over_its_dz_coefficient():
    # -y dx + x dy + w (x^2 + y^2) dz: da = 2 dx^dy + 2 w x dx^dz + 2 w y dy^dz and a ^ da =
    # (-2 w y^2 - 2 w x^2 + 2 w (x^2 + y^2)) dx^dy^dz = 0; mu = 1/(w (x^2 + y^2)) gives
    # d(angle/w + z): the screw z + angle/w = const
    report = systems.check_pfaffian([[-y, x, omega * (x**2 + y**2)]], [x, y, z],
                                    assumptions={"omega": {"positive": True}})
    row = report.rows[0]
    assert row.exact is False and row.integrable is True and row.integrable_how == "symbolic"
    X, Y, Z = row.coordinates
    assert _gradient_is([row.integrating_factor * ai for ai in row.form], [X, Y, Z], row.integral)
    assert sp.simplify(sp.diff(row.integral, Z) - 1) == 0
    assert report.classification == "holonomic"


@pytest.mark.parametrize("form, coords, pair", [
    # knife edge with an offset L along the blade: sin(th) dx - cos(th) dy + L dth; da = cos(th) dth^dx
    # + sin(th) dth^dy, a ^ da = -(sin^2 + cos^2) dx^dy^dth != 0 whatever L
    ([sp.sin(theta), -sp.cos(theta), L], [x, y, theta], ("x", "theta")),
    # rolling coin: dx - r cos(psi) dphi; da = r sin(psi) dpsi^dphi, a ^ da = r sin(psi) dx^dpsi^dphi
    ([1, 0, 0, -r * sp.cos(psi)], [x, y, psi, phi], ("psi", "phi")),
    # dz - c y dx: da = -c dy^dx, a ^ da = -c dz^dy^dx != 0 for c != 0
    ([-c * y, 0, 1], [x, y, z], ("x", "y")),
], ids=["offset_knife_edge", "rolling_coin", "heisenberg_c"])
def test_non_integrable_forms_with_a_parameter(form, coords, pair):
    report = systems.check_pfaffian([form], coords)
    row = report.rows[0]
    assert row.exact is False and row.integrable is False
    assert row.integrable_how.startswith("witness")
    assert pair in {p[:2] for p in row.failing_pairs}
    params = {s.name for s in sp.Matrix([form]).free_symbols} - {s.name for s in coords}
    assert params <= set(row.witness)                     # the witness names the parameter values used
    # the failing pair is non-zero at the witness point (checked on the hand formula)
    i, j = [s.name for s in coords].index(pair[0]), [s.name for s in coords].index(pair[1])
    curl = sp.diff(form[i], coords[j]) - sp.diff(form[j], coords[i])
    value = curl.subs({s: row.witness[s.name] for s in curl.free_symbols})
    assert abs(float(value)) > 1e-8
    assert report.classification == "completely nonholonomic"


def test_assumptions_decide_exactness_of_sqrt_a_squared():
    # sqrt(a^2) x dy + a y dx: curl = sqrt(a^2) - a = |a| - a, zero exactly for a >= 0
    form = [a * y, sp.sqrt(a**2) * x]
    positive = systems.check_pfaffian([form], [x, y], assumptions={"a": {"positive": True}}).rows[0]
    assert positive.exact is True and positive.exact_how == "symbolic"
    real = systems.check_pfaffian([form], [x, y]).rows[0]
    assert real.exact is False and real.witness["a"] < 0     # only a negative a is a witness


def test_values_pin_the_numeric_tests_and_the_report_says_so():
    # dz - c y dx at c = 0 is dz: zero curl at the given value, but sympy cannot prove c = 0
    report = systems.check_pfaffian([[-c * y, 0, 1]], [x, y, z], values={"c": 0.0})
    row = report.rows[0]
    assert row.exact is True and row.exact_how.startswith("numeric")
    assert "c=0 (given)" in row.parameters
    assert any("exactness" in u and "numeric test decided" in u for u in row.undecided)
    assert report.classification == "holonomic" and report.growth_vector == (2,)   # dz = 0 at c = 0
    with pytest.raises(ValueError, match="'d' but expected one of the free parameters \\(c\\)"):
        systems.check_pfaffian([[-c * y, 0, 1]], [x, y, z], values={"d": 1.0})


# --------------------------------------------------------------------------------------------
# time-dependent forms, analysed in (x, t)
def test_prescribed_oscillation_is_exact_in_x_and_t():
    # dx - w r cos(w t) dt = d(x - r sin(w t))
    report = systems.check_pfaffian([[1]], [x], time=t, time_coefficients=[-omega * r * sp.cos(omega * t)])
    row = report.rows[0]
    X, T = row.coordinates
    assert T.name == "t" and row.exact is True and row.exact_how == "symbolic"
    W, R = (next(s for s in row.potential.free_symbols if s.name == n) for n in ("omega", "r"))
    assert sp.simplify(row.potential - (X - R * sp.sin(W * T))) == 0
    assert "time extended" in report.coordinates_used


def test_moving_proportion_is_integrable_with_factor_one_over_t_squared():
    # t dx - x dt = t^2 d(x/t): the point keeps x/t = const; dt coefficient as an extra column
    row = systems.check_pfaffian([[t, -x]], [x], time=t).rows[0]
    X, T = row.coordinates
    assert row.exact is False and row.integrable is True
    assert _gradient_is([row.integrating_factor * ai for ai in row.form], [X, T], row.integral)
    assert all(sp.simplify(sp.diff(X / T, s) - ai / T**2) == 0 for s, ai in zip((X, T), row.form))


def test_knife_edge_on_a_turntable_is_not_integrable():
    # the blade's velocity relative to the table (x' + W y, y' - W x) has no component along
    # n = (-sin psi, cos psi): -sin(psi) dx + cos(psi) dy - W (x cos psi + y sin psi) dt = 0;
    # its (x, y, psi) Frobenius term is the knife edge's, sin^2 + cos^2 != 0
    form = [-sp.sin(psi), sp.cos(psi), 0]
    a_t = [-Omega * (x * sp.cos(psi) + y * sp.sin(psi))]
    report = systems.check_pfaffian([form], [x, y, psi], time=t, time_coefficients=a_t)
    row = report.rows[0]
    assert row.exact is False and row.integrable is False and row.integrable_how.startswith("witness")
    assert {"x", "y", "psi", "t", "Omega"} <= set(row.witness)
    assert ("y", "t") in {p[:2] for p in row.failing_pairs}   # d/dy of a_t = -W sin(psi) != 0 = d/dt of a_y


def test_coin_on_a_turntable_is_completely_nonholonomic_in_x_y_psi_phi_t():
    # contact velocity = table velocity W (-y, x): dx - r cos(psi) dphi + W y dt, dy - r sin(psi)
    # dphi - W x dt. Admissible fields d_psi, X_r = d_phi + r(cos, sin), X_t = d_t + W(-y, x);
    # [d_psi, X_r] = r(-sin, cos) (rank 4), [d_psi, [d_psi, X_r]] = -r(cos, sin) (rank 5)
    rows = [[1, 0, 0, -r * sp.cos(psi)], [0, 1, 0, -r * sp.sin(psi)]]
    report = systems.check_pfaffian(rows, [x, y, psi, phi], time=t, time_coefficients=[Omega * y, -Omega * x])
    assert report.growth_vector == (3, 4, 5)
    assert report.classification == "completely nonholonomic"


def test_time_column_of_a_system_row_reaches_the_forms():
    # a stand-in for a system whose nonholonomic row has a velocity-free term c_nh (the turntable's)
    X, Y, P = sp.symbols("x y psi", real=True)
    W = sp.Symbol("Omega", positive=True)
    stand_in = SimpleNamespace(time=systems.TIME, l=1, embedding=None, A=sp.eye(3), Phi=sp.zeros(0, 1),
                               C_nh=sp.Matrix([[-sp.sin(P), sp.cos(P), 0]]),
                               c_nh=sp.Matrix([-W * (X * sp.cos(P) + Y * sp.sin(P))]),
                               coordinates=(X, Y, P), coordinate_names=("x", "y", "psi"))
    coords, forms, label = _row_forms(stand_in, 5.0, TimeBudget(10.0))
    assert coords == [X, Y, P, systems.TIME] and label.endswith("psi, t)")
    assert sp.simplify(forms[0, 3] - stand_in.c_nh[0]) == 0 and forms.shape == (1, 4)
    del stand_in.c_nh                                     # scleronomic: no dt column
    assert _row_forms(stand_in, 5.0, TimeBudget(10.0))[1].shape == (1, 3)


def test_time_dependent_embedding_adds_its_rate_to_the_dt_column():
    # p = (x, y) = (u + sin t, w), row dx + y dy + x dt = 0: dx = du + cos(t) dt, so in (u, w, t)
    # the form is du + w dw + (u + sin t + cos t) dt
    X, Y, U, W = sp.symbols("x y u w", real=True)
    T = systems.TIME
    embedding = SimpleNamespace(coordinates=(U, W), g=sp.Matrix([U + sp.sin(T), W]), A_q=sp.eye(2))
    stand_in = SimpleNamespace(time=T, l=1, embedding=embedding, A=sp.eye(2), Phi=sp.zeros(0, 1),
                               C_nh=sp.Matrix([[1, Y]]), c_nh=sp.Matrix([X]), coordinates=(X, Y),
                               coordinate_names=("x", "y"))
    coords, forms, _ = _row_forms(stand_in, 5.0, TimeBudget(10.0))
    assert coords == [U, W, T]
    assert sp.simplify(forms - sp.Matrix([[1, W, U + sp.sin(T) + sp.cos(T)]])) == sp.zeros(1, 3)


# --------------------------------------------------------------------------------------------
# the overall time bound
def _trailer_rows(N):
    """Car with N trailers hitched at the axle centres (unit lengths): no lateral slip of any axle.
    Axle N (the last) at (x, y); axle i at axle i + 1 plus (cos th_i, sin th_i)."""
    X, Y = sp.symbols("x y", real=True)
    th = sp.symbols(f"theta0:{N + 1}", real=True)
    coords = [X, Y, *th]
    P = {N: (X, Y)}
    for i in range(N - 1, -1, -1):
        P[i] = (P[i + 1][0] + sp.cos(th[i]), P[i + 1][1] + sp.sin(th[i]))
    rows = [[-sp.sin(th[i]) * sp.diff(P[i][0], s) + sp.cos(th[i]) * sp.diff(P[i][1], s) for s in coords]
            for i in range(N + 1)]
    return rows, coords


def test_one_trailer_has_the_growth_vector_of_the_chained_form():
    # Sordalen, Conversion of the kinematic model of a car with n trailers into a chained form:
    # with 2 inputs on N + 3 coordinates the growth vector is (2, 3, ..., N + 3)
    rows, coords = _trailer_rows(1)
    report = systems.check_pfaffian(rows, coords)
    assert report.growth_vector == (2, 3, 4) and report.classification == "completely nonholonomic"
    assert not report.undecided and "of the 60 s bound" in str(report)


def test_three_trailers_within_a_two_second_bound():
    # the symbolic null space of these rows alone takes tens of seconds; the numeric brackets
    # (five levels, Sordalen's growth vector (2, 3, 4, 5, 6)) come first and decide within the bound
    rows, coords = _trailer_rows(3)
    start = time.perf_counter()
    report = systems.check_pfaffian(rows, coords, time_limit=2.0)
    assert time.perf_counter() - start < 2.0 + 3.0  # the bound, and room for a step's overrun on a loaded machine
    assert report.growth_vector == (2, 3, 4, 5, 6) and report.classification == "completely nonholonomic"
    assert report.classification_how.startswith("numeric")
    assert all(row.exact is False for row in report.rows)          # witnesses decide these


@pytest.fixture(scope="module")
def trailers():
    """The car with four trailers as a system: its analysis takes well over a minute unbounded."""
    rows, coords = _trailer_rows(4)
    velocities = [sp.Symbol(f"{s.name}_dot", real=True) for s in coords]
    named = [(f"axle {i}", sum(ai * vi for ai, vi in zip(row, velocities))) for i, row in enumerate(rows)]
    return systems.from_lagrangian("four_trailers", coords, sum(v**2 for v in velocities) / 2, velocities=velocities,
                                   nonholonomic=named, simplify=False, default_p=[0.0] * 7, default_v=[0.0] * 7)


def test_analysis_with_a_two_second_bound_returns_near_it(trailers):
    start = time.perf_counter()
    report = systems.analyze_constraints(trailers, time_limit=2.0)
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0 + 10.0              # the bound, room for a loaded machine (as for the bicycle)
    assert report.undecided and "undecided:" in str(report) and "of the 2 s bound" in str(report)
    assert len(report.rows) == 5 and all(row.integrable is not True for row in report.rows)


def test_bound_holds_off_the_main_thread(trailers):
    # signals reach only the main thread: there the bounded steps run in a child process
    out = {}

    def work():
        start = time.perf_counter()
        out["report"] = systems.analyze_constraints(trailers, time_limit=2.0, singular_search=False)
        out["elapsed"] = time.perf_counter() - start

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(60.0)
    assert not worker.is_alive(), "the bounded analysis did not return off the main thread"
    assert out["elapsed"] < 2.0 + 5.0 and out["report"].undecided  # room to start the child processes


def test_time_limit_must_be_positive():
    with pytest.raises(ValueError, match="time_limit got 0"):
        systems.check_pfaffian([[y, -x]], [x, y], time_limit=0)


def test_system_parameter_values_and_assumptions_reach_the_row_tests():
    report = systems.analyze_constraints("knife_edge", assumptions={"alpha": {"positive": True}},
                                         values={"alpha": 0.5}, singular_search=False,
                                         seconds=60.0)   # each step may finish on a loaded machine
    row = report.rows[0]
    assert row.exact is False and row.integrable is False
    assert row.witness["alpha"] == 0.5 and "alpha=0.5" in row.parameters
    with pytest.raises(ValueError, match="knife_edge.*'radius' but expected one of"):
        systems.analyze_constraints("knife_edge", values={"radius": 1.0})


@pytest.mark.slow  # about 10 s; the smaller systems above check the same analysis by default
def test_bicycle_gives_rank_growth_and_classification_within_twenty_seconds():
    # 9 coordinates, 2 holonomic and 4 nonholonomic rows: r = 3 admissible fields; the rolling
    # wheels let brackets reach every direction of the k = 7 dimensional configuration manifold
    start = time.perf_counter()
    report = systems.analyze_constraints(systems.load("bicycle"), time_limit=20.0)
    assert time.perf_counter() - start < 20.0 + 10.0                  # the bound, room for a loaded machine
    assert report.jacobian_rank == 2 and not report.singular
    assert report.growth_vector[0] == 3 and report.growth_vector[-1] == 7
    assert report.classification == "completely nonholonomic" and report.classification_how.startswith("numeric")
    assert all(row.exact is False and row.integrable is False for row in report.rows)   # witness points
    assert all(row.residual > 1e-3 for row in report.rows)
    text = str(report)
    assert len(text) < 8000 and max(len(line) for line in text.splitlines()) < 700  # no raw expressions


@pytest.mark.parametrize("value", ["0", "-1", "abc", "inf"])
def test_cli_time_limit_must_be_a_positive_number(value, capsys):
    from formulations.workbench.cli.main import main

    assert main(["analyze", "knife_edge", "--time-limit", value]) == 2
    err = capsys.readouterr().err.strip()
    assert "--time-limit" in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_cli_time_limit_reaches_the_analysis(capsys):
    from formulations.workbench.cli.main import main

    assert main(["analyze", "knife_edge", "--time-limit", "7.5"]) == 0
    assert "of the 7.5 s bound" in capsys.readouterr().out
