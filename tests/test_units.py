"""Units from the description: the dimensional analysis of systems.units gives the catalogue's
coordinates, velocities and reactions their physical units, keeps the energy homogeneous in J,
honours declared units and refuses bad ones; figures label their axes with them."""
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import sympy as sp  # noqa: E402

import formulations as F  # noqa: E402
import systems  # noqa: E402
from formulations.workbench import plots  # noqa: E402
from formulations.workbench.ensembles.maps import stability_map  # noqa: E402
from systems.errors import SystemDescriptionError  # noqa: E402
from systems.units import ENERGY, dimension, parse, rate  # noqa: E402


def test_unit_strings_parse_to_kilogram_metre_second_exponents():
    assert parse("kg m^2") == (1, 2, 0)
    assert parse("m/s^2") == (0, 1, -2)
    assert parse("N s/m") == (1, 0, -1)
    assert parse("rad/s") == (0, 0, -1) and parse("1") == (0, 0, 0) and parse("kg^(1/2)") == (Fraction(1, 2), 0, 0)
    assert parse("") is None  # no unit given: unknown, not dimensionless
    assert parse("N m") == parse("J") == ENERGY
    assert parse("furlong") is None and parse("m^x") is None
    assert rate("m") == "m/s" and rate("rad", 2) == "rad/s^2" and rate("?") == "?" and rate("1") == "1/s"


@pytest.mark.parametrize("name, expected", [
    ("rolling_disc", {"x": "m", "psi": "rad", "v_x": "m/s", "omega_1": "rad/s", "contact normal force": "N",
                      "lateral friction force": "N", "theta_dot": "rad/s"}),
    ("slider_crank", {"phi1": "rad", "x2": "m", "piston pin force x": "N", "piston guide moment": "N m"}),
    ("driven_slider_crank", {"s": "m", "crank driving torque": "N m"}),
    ("sphere_in_cylinder", {"e0": "1", "omega_x": "rad/s", "alpha": "rad", "z_q": "m", "wall normal force": "N"}),
    ("heavy_top", {"e1_top": "1", "x_top": "m", "omega1_top": "rad/s", "u1_top": "m/s", "pivot force x": "N"}),
    ("bricard", {"xA": "m", "u2x": "1", "u2x_dot": "1/s", "bar 1 axial force": "N"}),  # u: declared unit vectors
    ("bicycle", {"theta_R": "rad", "v_1": "m/s", "rear lateral friction force": "N", "v": "m/s", "m_B": "kg"}),
])
def test_the_catalogue_gets_its_physical_units(name, expected):
    system = systems.load(name)
    assert {key: system.unit_of(key) for key in expected} == expected


@pytest.mark.parametrize("name", ["rolling_disc", "slider_crank", "sphere_in_cylinder", "flyball_governor",
                                  "driven_slider_crank"])
def test_under_the_found_units_every_term_of_the_energy_is_in_joules(name):
    """An independent check of the analysis: it reads M's diagonal and A, never the potential or
    M's coupling terms, yet every term of T + V comes out in J."""
    system = systems.load(name)
    known = {p.symbol: parse(p.unit) for p in system.parameters}
    known.update({s: parse(system.unit_of(s.name)) for s in system.coordinates + system.velocities})
    terms = sp.Add.make_args(sp.expand(system.energy_expression))
    checked = [term for term in terms if term.free_symbols & set(known) and not term.atoms(sp.Float)]
    assert checked
    for term in checked:
        assert dimension(term, known) == ENERGY, f"{name}: {term}"


def test_declared_units_win_and_bad_ones_are_refused():
    x, xd, m = sp.symbols("x x_dot m", positive=True)
    parameters = (systems.Parameter(m, 1.0, "kg", "mass"),)
    free = dict(coordinates=(x,), velocities=(xd,), A=sp.eye(1), M=sp.Matrix([[m]]), d=sp.zeros(1, 1),
                f=sp.zeros(1, 1), Phi=sp.zeros(0, 1), C_nh=sp.zeros(0, 1), constraint_names=(),
                parameters=parameters, default_p=(0,), default_v=(1,))
    assert systems.System("slide", **free).unit_of("x") == "m"  # found: M = m kg, so x' in m/s
    assert systems.System("slide", **free, units={"x": "kg m^2"}).unit_of("x") == "kg m^2"  # declared
    with pytest.raises(SystemDescriptionError) as caught:
        systems.System("slide", **free, units={"y": "m", "x": "furlong"})
    assert "'y' is not a coordinate" in str(caught.value) and "'furlong'" in str(caught.value)


def test_figures_label_states_reactions_and_sweeps_with_their_units():
    system = systems.load("slider_crank")
    traj = F.create("dependent", system, backend="numpy").simulate((0.0, 0.05))
    ax = traj.plot(["phi1", "phi1_dot"])
    assert [line.get_label() for line in ax.get_lines()] == ["phi1 [rad]", "phi1_dot [rad/s]"]
    assert traj.plot(["x2"]).get_ylabel() == "value [m]"
    ax = plots.reactions(traj)
    assert ax.get_ylabel() == "reaction [N, N m]"
    assert "piston guide moment [N m]" in [line.get_label() for line in ax.get_lines()]
    disc = systems.load("rolling_disc")
    ens = F.ensemble(disc, "dependent", F.grid(spin=[2.0, 6.0], lean=[0.05, 0.1]), (0.0, 0.2), workers=1)
    assert ens.units == {"spin": "rad/s", "lean": "rad", "theta": "rad"}
    fig = stability_map(ens)
    assert fig.axes[0].get_xlabel() == "lean [rad]" and fig.axes[0].get_ylabel() == "spin [rad/s]"
    plt.close("all")
    assert np.isfinite(ens.columns["t_final"]).all()
