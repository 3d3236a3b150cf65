"""Contacts that may open or slide (systems.Contact): the check every run makes against closed
forms and against the resolved reactions; the declarations and their validation."""
import re

import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from systems.contacts import SLACK

from contact_models import particle_on_sphere


def test_the_particle_leaves_the_sphere_where_the_normal_force_vanishes_in_closed_form():
    """N = m g (3 cos(theta) - 2) - m v0^2 / R along the run (energy and the radial balance); the check
    names the contact and the first recorded time past cos(theta) = (2 + v0^2 / (g R)) / 3."""
    v0 = 0.1
    system = particle_on_sphere(v0)
    t = np.linspace(0.0, 1.5, 3001)
    traj = F.create("dependent", system, backend="numpy").simulate((0.0, 1.5), t_eval=t, rtol=1e-11, atol=1e-11)
    cos = traj.p[:, 1] / np.hypot(traj.p[:, 0], traj.p[:, 1])
    closed = 9.81 * (3 * cos - 2) - v0**2 / 1.0
    assert np.max(np.abs(traj.reactions["normal force"] - closed)) < 1e-6
    assert traj.status == F.Status.WARNED and len(traj.warnings) == 1
    note = traj.warnings[0]
    assert note.startswith("contact 'normal force' pulls") and "would open" in note
    first = float(re.search(r"negative from t = ([0-9.e+-]+)", note).group(1))
    leaves = t[np.argmax(cos < (2 + v0**2 / 9.81) / 3)]  # first point past the closed-form separation
    assert abs(first - leaves) <= 1.5 * (t[1] - t[0])
    assert traj.contact_margins["normal force"].friction is None


def test_the_check_stays_silent_where_the_particle_stays_on():
    """Up to the separation the normal force is positive: no note, status 0."""
    traj = F.create("dependent", particle_on_sphere(), backend="numpy").simulate((0.0, 0.5))
    assert traj.status == F.Status.SUCCESS and not traj.warnings
    assert np.min(traj.contact_margins["normal force"].normal) > 0


@pytest.mark.parametrize("formulation", ["dependent", "minimal"])
def test_a_rolling_disc_with_too_little_friction_is_said_to_slide(formulation):
    """mu below the ratio |friction| / normal of the motion fires the check, from the first point where
    the resolved reactions (formulations.reactions, computed apart from the run) leave the cone; the
    catalogue's mu keeps it silent."""
    disc = systems.load("rolling_disc")
    quiet = F.create(formulation, disc, backend="numpy").simulate((0.0, 2.0), rtol=1e-9, atol=1e-9)
    assert quiet.status == F.Status.SUCCESS and not quiet.warnings
    friction = ("longitudinal friction force", "lateral friction force")
    resolved = [F.reactions(disc, t, p, v) for t, p, v in zip(quiet.t, quiet.p, quiet.v)]
    ratio = [np.hypot(*[r[n] for n in friction]) / r["contact normal force"] for r in resolved]
    mu = 0.5 * (min(ratio) + max(ratio))  # the cone holds part of the time
    slippery = F.create(formulation, disc.with_parameters(mu=mu), backend="numpy").simulate(
        (0.0, 2.0), t_eval=quiet.t, rtol=1e-9, atol=1e-9)
    assert slippery.status == F.Status.WARNED
    note, = slippery.warnings
    assert note.startswith("contact 'ground' slides") and f"mu = {mu:g}" in note
    first = float(re.search(r"from t = ([0-9.e+-]+) on", note).group(1))
    k = int(np.argmin(np.abs(quiet.t - first)))  # the point the note names (printed to six digits)
    ratio = np.array(ratio)
    # what the check guarantees: friction beyond mu there, and nowhere before beyond mu and its slack
    assert abs(quiet.t[k] - first) < 1e-5 and ratio[k] > mu and np.all(ratio[:k] <= mu * (1 + 100 * SLACK))
    margin = slippery.contact_margins["ground"]
    assert np.all(margin.normal > 0) and np.min(margin.friction) < 0 < np.max(margin.friction)


def test_the_sphere_in_the_cylinder_is_held_by_its_wall_within_the_cone():
    """The wall pushes inward with m (R - a) Omega^2 (the circling rate is constant) and the default
    friction coefficient carries the motion; a smooth wall would let it slip."""
    sphere = systems.load("sphere_in_cylinder")
    traj = F.create("reduced", sphere, backend="numpy").simulate((0.0, 2.0))
    assert traj.status == F.Status.SUCCESS
    Omega = sphere.default_state()[1][1] / (0.5 - 0.1)
    assert np.allclose(traj.contact_margins["wall"].normal, 1.0 * 0.4 * Omega**2, rtol=1e-6)
    smooth = F.create("reduced", sphere.with_parameters(mu=0.05), backend="numpy").simulate((0.0, 2.0))
    assert smooth.status == F.Status.WARNED and "contact 'wall' slides" in smooth.message


def test_declared_contacts_are_listed_in_the_summary():
    x, z = sp.symbols("x z", real=True)
    xd, zd = sp.symbols("x_dot z_dot", real=True)
    block = systems.from_lagrangian("block", (x, z), (xd**2 + zd**2) / 2, 9.81 * z, unilateral=[("floor force", z)],
                                    nonholonomic=[("grip", xd)], friction=[("floor force", "grip", None)],
                                    default_p=(0, 0), default_v=(0, 0))
    assert "contact 'floor force': normal floor force >= 0; friction: grip (perfectly rough)" in block.summary()
    assert "within mu = 0.5 x normal" in systems.load("rolling_disc").summary()


def test_an_open_contact_parallel_to_a_closed_one_is_not_a_singular_configuration():
    """A particle at rest on top of a sphere that stands on the ground: the ground's row is parallel
    to the sphere's there, but the ground contact is open, so only the sphere's row holds (rank 1 of
    1); with both closed rows, at the sphere's foot, the same rows are a description's business."""
    x, z, xd, zd = sp.symbols("x z x_dot z_dot", real=True)
    m, g, R = sp.symbols("m g R", positive=True)
    P = systems.Parameter
    params = (P(m, 1.0, "kg", "mass"), P(g, 9.81, "m/s^2", "gravity"), P(R, 1.0, "m", "radius"))
    top = systems.from_lagrangian("on_top", (x, z), m * (xd**2 + zd**2) / 2, m * g * z, velocities=(xd, zd),
                                  parameters=params, default_p=(0.0, 2.0), default_v=(0.0, 0.0),
                                  unilateral=[("sphere", (x**2 + (z - R) ** 2 - R**2) / (2 * R)), ("ground", z)])
    assert top.default_state()[0].tolist() == [0.0, 2.0]
    run = F.simulate_contacts(top, (0.0, 0.1))
    assert run.status == 0 and run.modes[0].open == ("ground",)
    assert run.reactions["sphere"][0] == pytest.approx(9.81)  # the sphere carries the weight


def test_every_bad_declaration_is_named_at_once():
    x, y, z = sp.symbols("x y z", real=True)
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot", real=True)
    k = sp.Symbol("k", real=True)
    params = (systems.Parameter(k, 1.0, "", "a real parameter"),)
    with pytest.raises(systems.SystemDescriptionError) as info:
        systems.from_lagrangian(
            "bad_contacts", (x, y, z), (xd**2 + yd**2 + zd**2) / 2, 0, parameters=params,
            unilateral=[("floor", z), ("wall", x, 1.5)],
            nonholonomic=[("grip", xd), ("slip", yd)],
            friction=[("floor", ["grip", "nowhere"], -0.2), ("wall", "slip", "k")],
            contacts=[systems.Contact("floor"), "no contact", systems.Contact("wall", mu="nu", name="second")],
            default_p=(0, 0, 0), default_v=(0, 0, 0))
    text = str(info.value)
    for expected in ("row 'nowhere' is not a constraint row", "mu got -0.2", "restitution got 1.5",
                     "mu names parameter 'k', whose symbol may be negative", "contacts[1] got 'no contact'",
                     "mu names 'nu', which is not a parameter", "contact 'floor' is declared twice",
                     "row 'wall' already belongs to contact 'second'"):
        assert expected in text, expected


def test_a_malformed_builder_declaration_is_named():
    x = sp.Symbol("x", real=True)
    for keyword, value, expected in (("unilateral", [("floor",)], "unilateral[0] got ('floor',)"),
                                     ("friction", [("floor", ["a"])], "friction[0] got ('floor', ['a'])")):
        with pytest.raises(systems.SystemDescriptionError, match=re.escape(expected)):
            systems.from_lagrangian("bad", (x,), sp.Symbol("x_dot", real=True)**2 / 2, **{keyword: value})


def test_mu_without_friction_rows_limits_nothing_and_is_refused():
    x = sp.Symbol("x", real=True)
    with pytest.raises(systems.SystemDescriptionError, match="mu is given but no tangential rows"):
        systems.from_lagrangian("lonely", (x,), sp.Symbol("x_dot", real=True)**2 / 2, default_p=(0,),
                                default_v=(0,), unilateral=[("floor", x)],
                                contacts=[systems.Contact("floor", mu=0.3, name="other")])


def test_the_margins_plot_marks_the_side_where_the_contact_lets_go(tmp_path):
    import matplotlib

    matplotlib.use("Agg", force=True)
    disc = systems.load("rolling_disc", mu=0.2)
    traj = F.create("minimal", disc, backend="numpy").simulate((0.0, 2.0))
    ax = traj.plot_contacts()
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels[:2] == ["ground: normal force", "ground: mu x normal - |friction|"]
    assert ax.get_ylim()[0] < 0 and ax.get_ylabel() == "margin [N]"
    ax.figure.savefig(tmp_path / "margins.png")
    plain = F.create("minimal", systems.load("knife_edge"), backend="numpy").simulate((0.0, 0.1))
    with pytest.raises(ValueError, match="declares no contacts"):
        plain.plot_contacts()


def test_the_command_line_says_the_check_failed_and_exits_1(capsys):
    from formulations.workbench.cli.main import main

    code = main(["simulate", "rolling_disc", "--t-end", "0.5", "--set", "mu=0.01", "--backend", "numpy", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "the run finished, but its result failed a check" in err and "contact 'ground' slides" in err
