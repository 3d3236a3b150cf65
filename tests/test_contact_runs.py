"""Runs in which contacts open, close on impact, slide and roll (formulations.simulate_contacts),
against closed forms: the ball that slides and then rolls, the bouncing ball, the particle that
leaves a sphere; energy never grows across an impact or a slide; forces and gaps on their sides."""
import numpy as np
import pytest

import formulations as F
import systems
from systems.errors import ArgumentError, InconsistentStateError

from contact_models import bouncing_ball, particle_on_sphere, sliding_ball

G = 9.81


def test_the_ball_slides_then_rolls_at_five_sevenths_of_its_speed():
    """t = 2 v0 / (7 mu g), distance 12 v0^2 / (49 mu g), speed 5 v0 / 7, to 1e-8 at rtol 1e-12; the
    error of the switch time shrinks as the tolerance tightens."""
    v0, mu = 2.0, 0.2
    switch, distance = 2 * v0 / (7 * mu * G), 12 * v0**2 / (49 * mu * G)
    errors = []
    for tol in (1e-9, 1e-12):
        run = F.simulate_contacts(sliding_ball(v0, mu), (0.0, 0.5), rtol=tol, atol=tol)
        assert run.status == 0, run.message
        (event,) = run.events
        assert (event.kind, event.constraint) == ("rolls", "normal force")
        errors.append(abs(event.t / switch - 1))
    assert errors[1] < 1e-8 and errors[1] < errors[0]
    assert event.after[0][0] == pytest.approx(distance, rel=1e-8)
    assert run.v[-1][0] == pytest.approx(5 * v0 / 7, rel=1e-8)
    assert [m.sliding for m in run.modes] == [("normal force",), ()]
    sliding = run.t <= event.t
    assert np.all(np.diff(run.energy[sliding]) <= 1e-12)  # friction only takes energy while it slides
    inside = run.t < event.t  # the last point of the slide (the rolling phase starts at the same time)
    friction = run.reactions["friction force"][inside]
    assert np.allclose(friction, -mu * run.reactions["normal force"][inside])  # Coulomb, against the slip


def test_the_bouncing_ball_follows_the_geometric_series_and_comes_to_rest():
    h, e = 1.0, 0.5
    T1 = np.sqrt(2 * h / G)
    run = F.simulate_contacts(bouncing_ball(h, e), (0.0, 2.0))
    assert run.status == 0, run.message
    impacts = [ev for ev in run.events if ev.kind == "impact"]
    expected = T1 * (1 + 2 * np.cumsum(e ** np.arange(len(impacts))) - 2)
    assert np.allclose([ev.t for ev in impacts[:10]], expected[:10], rtol=1e-10)
    (last,) = [ev for ev in run.events if ev.kind == "closes"]
    u = -last.before[1][0]  # the last impact's speed: the bounces left out, at e u, e^2 u, ..., add 2 e u / (g (1 - e))
    assert last.t == pytest.approx(T1 * (1 + e) / (1 - e) - 2 * e * u / (G * (1 - e)), rel=1e-10)
    assert e * u < 1e-5  # below the speed whose flight the positions resolve (a micrometre-high hop)
    rest = [last.t]
    for ev in impacts:  # Newton's law: the speed after is e times the speed before, the energy e^2 times
        before, after = ev.before[1][0], ev.after[1][0]
        assert before < 0 and after == pytest.approx(-e * before if after > 0 else 0.0, abs=1e-12)
    assert np.min(run.p[:, 0] - 0.033) > -1e-9  # the gap z - a never closes beyond the tolerance
    assert run.modes[-1].open == () and np.allclose(run.reactions["ground force"][run.t > rest[0]], 0.06 * G)  # m g


def test_a_ball_whose_ground_is_off_the_origin_lands_every_time_and_comes_to_rest():
    """After a bounce the phase starts on the gap's zero, a rounding either side of it; a flight that
    lands within the solver's first step is found all the same, and flights the positions cannot resolve
    (below the rounding of z near 1) are left out, never below the ground."""
    h, e, ground = 1.0, 0.5, 1.0  # a ball of radius 1 m: the gap z - 1 is rounded as z is, near 1
    T1 = np.sqrt(2 * h / G)
    run = F.simulate_contacts(bouncing_ball(h, e, ground), (0.0, 1.5), rest_speed=1e-6)
    assert run.p[0, 0] == ground + h
    assert run.status == 0, run.message
    assert np.min(run.p[:, 0] - ground) > -1e-9
    rest = [ev.t for ev in run.events if ev.kind == "closes"]  # the flights left out are < 2 (1e-6 / g) / (1 - e)
    assert len(rest) == 1 and rest[0] == pytest.approx(T1 * (1 + e) / (1 - e), abs=1e-6)
    on_grid = F.simulate_contacts(bouncing_ball(h, e, ground), (0.0, 1.5), rest_speed=1e-6,
                                  t_eval=np.linspace(0.0, 1.5, 301))  # the same on output times
    assert on_grid.status == 0 and [ev.t for ev in on_grid.events] == pytest.approx([ev.t for ev in run.events])
    run = F.simulate_contacts(bouncing_ball(h, e, ground), (0.0, 1.5))  # rest speed 1e-10 m/s, below resolution
    assert run.status == 0, run.message  # the slowest bounce the positions resolve ends the series
    assert np.min(run.p[:, 0] - ground) > -1e-9
    (last,) = [ev for ev in run.events if ev.kind == "closes"]
    u = -last.before[1][0]
    assert last.t == pytest.approx(T1 * (1 + e) / (1 - e) - 2 * e * u / (G * (1 - e)), rel=1e-9)


def test_a_start_a_hair_inside_the_ground_moving_away_is_not_a_missed_impact():
    run = F.simulate_contacts(bouncing_ball(), (0.0, 0.5), ([0.033 - 1e-4], [1.0]))
    assert run.status == 0, run.message
    assert [ev.kind for ev in run.events][:2] == ["impact", "bounces"] and run.events[0].t > 0.2


def test_the_particle_leaves_the_sphere_where_its_normal_force_vanishes():
    v0 = 0.1
    run = F.simulate_contacts(particle_on_sphere(v0), (0.0, 1.5))
    assert run.status == 0, run.message
    (leaves,) = run.events
    assert leaves.kind == "opens"
    p = leaves.before[0]
    assert p[1] / np.hypot(*p) == pytest.approx((2 + v0**2 / G) / 3, rel=1e-8)
    closed, open_ = run.t <= leaves.t, run.t > leaves.t
    assert np.all(run.reactions["normal force"][closed] > -1e-9) and np.all(run.reactions["normal force"][open_] == 0)
    assert np.all(np.hypot(run.p[open_, 0], run.p[open_, 1]) >= 1.0)  # it flies clear of the sphere
    assert np.ptp(run.energy) < 1e-8  # no friction, no impact: the energy holds


def test_contacts_that_switch_ever_faster_stop_with_a_message_and_keep_the_phases():
    run = F.simulate_contacts(bouncing_ball(), (0.0, 2.0), rest_speed=0.0, max_phases=12)
    assert run.status == -1 and "12 phases did not reach t = 2" in run.message
    assert len(run.modes) == 12 and run.t[-1] < 1.36


def test_a_system_without_contacts_is_refused_with_the_way_to_run_it():
    with pytest.raises(ArgumentError, match="declares no contacts"):
        F.simulate_contacts(systems.load("knife_edge"), (0.0, 1.0))


def test_an_open_start_is_a_valid_description_and_the_bilateral_run_says_where_to_go():
    ball = bouncing_ball()  # its default state is open: the description accepts it
    with pytest.raises(InconsistentStateError, match="formulations.simulate_contacts runs it"):
        F.create("dependent", ball).simulate((0.0, 1.0))


def test_the_summary_lists_the_events_and_modes():
    summary = F.simulate_contacts(sliding_ball(), (0.0, 0.5)).summary()
    assert summary["events"][0]["kind"] == "rolls" and summary["events"][0]["contact"] == "normal force"
    assert [m["mode"] for m in summary["modes"]] == ["sliding: normal force", "all closed, sticking"]


def test_the_command_line_runs_with_contacts_and_lists_the_modes(capsys):
    from formulations.workbench.cli.main import main

    assert main(["simulate", "sphere_in_cylinder", "--contacts", "--t-end", "0.5", "--quiet"]) == 0
    assert "0 .. 0.5 s: all closed, sticking" in capsys.readouterr().out  # mu = 0.6 holds it: one phase
    assert main(["simulate", "knife_edge", "--contacts", "--t-end", "0.5", "--quiet"]) == 2
    assert "declares no contacts" in capsys.readouterr().err
    assert main(["simulate", "sphere_in_cylinder", "--contacts", "--formulation", "minimal", "--quiet"]) == 2


def test_the_command_line_runs_a_system_that_starts_open_with_its_contacts_and_compare_says_where_to_go(capsys):
    from formulations.workbench.cli.main import main

    assert main(["simulate", "falling_rod", "--t-end", "1.5", "--quiet"]) == 0  # no --contacts: it starts open
    out, err = capsys.readouterr()
    assert "starts with a contact open or sliding: run with its contacts" in err
    assert "contact 'A normal force' slides" in out and "contact 'B normal force' impact" in out
    assert main(["compare", "bouncing_ball", "--quiet"]) == 2
    assert "`pfaff simulate bouncing_ball` runs it with its contacts" in capsys.readouterr().err
    assert main(["simulate", "bouncing_ball", "--formulation", "reduced", "--quiet"]) == 2
    assert "a formulation that holds every row cannot start" in capsys.readouterr().err


def test_a_restitution_parameter_must_be_declared_non_negative_and_at_most_one():
    import sympy as sp

    z, zd, e = sp.Symbol("z", real=True), sp.Symbol("z_dot", real=True), sp.Symbol("e", real=True)
    with pytest.raises(systems.SystemDescriptionError, match="restitution names 'e', which is not a parameter"):
        systems.from_lagrangian("drop", (z,), zd**2 / 2, 9.81 * z, unilateral=[("ground", z, "e")],
                                parameters=(systems.Parameter(e, 0.5, "", "restitution"),), default_p=(1,),
                                default_v=(0,))
    with pytest.raises(ValueError, match="restitution 1.5"):
        F.simulate_contacts(bouncing_ball().with_parameters(e=1.5), (0.0, 1.0))


def test_moreau_jean_brings_the_bouncing_ball_to_rest_at_first_order():
    """Time stepping takes the accumulating impacts a step at a time: the first impacts within a few
    steps of the closed form, the rest time within 15 steps, the error shrinking with the step."""
    h, e = 1.0, 0.5
    T1 = np.sqrt(2 * h / G)
    rest_error = []
    for step in (2e-3, 2e-4):
        run = F.simulate_contacts(bouncing_ball(h, e), (0.0, 1.5), scheme="moreau-jean", step=step)
        assert run.status == 0, run.message
        impacts = [ev.t for ev in run.events if ev.kind == "impact"]
        # each impact is placed within about a step of where the motion before it puts it, and the later
        # impacts inherit the earlier ones' errors
        errors = np.abs(impacts[:3] - T1 * np.array([1, 1 + 2 * e, 1 + 2 * e + 2 * e**2]))
        assert np.all(errors <= step * np.array([1.5, 3.0, 4.5]))
        moving = np.flatnonzero(np.abs(run.v[:, 0]) > 1e-9)
        rest_error.append(abs(run.t[moving[-1] + 1] - T1 * (1 + e) / (1 - e)))
        assert rest_error[-1] < 15 * step
        # an impact never adds kinetic energy (e <= 1); the positions of a contact step move by at most
        # h |v| against gravity, so no step gains more than m g h |v|
        assert np.all(np.diff(run.energy) <= G * step * np.abs(run.v[:-1, 0]) + 1e-12)
        resting = 0.06 * G * 0.033  # m g a, the energy at rest on the ground
        assert run.energy[-1] - resting < (run.energy[0] - resting) * (e**2) ** 10
    assert rest_error[1] < rest_error[0] / 3


def test_moreau_jean_slides_the_ball_with_coulomb_friction_until_it_rolls():
    v0, mu = 2.0, 0.2
    run = F.simulate_contacts(sliding_ball(v0, mu), (0.0, 0.5), scheme="moreau-jean", step=1e-3)
    assert run.status == 0, run.message
    slip = run.v[:, 0] - 0.028 * run.v[:, 2]  # the contact point's slip x' - a phi'
    rolls = run.t[np.argmax(np.abs(slip) < 1e-9)]
    assert abs(rolls - 2 * v0 / (7 * mu * G)) <= 1e-3
    assert run.v[-1][0] == pytest.approx(5 * v0 / 7, rel=1e-9)


def test_moreau_jean_asks_for_a_step():
    with pytest.raises(ArgumentError, match="expected a step size"):
        F.simulate_contacts(bouncing_ball(), (0.0, 1.0), scheme="moreau-jean")
    with pytest.raises(ArgumentError, match="expected 'events' or 'moreau-jean'"):
        F.simulate_contacts(bouncing_ball(), (0.0, 1.0), scheme="leapfrog")


def test_a_pendulum_imported_from_sympy_hangs_on_a_string_that_goes_slack():
    """sympy's LagrangesMethod pendulum (row x^2 + y^2 - L^2) with its row declared a contact: a
    string, which pulls but never pushes. Released at rest above the horizontal, the bob falls
    freely until the string is taut again, at t = sqrt(2 (y0 - y1) / g), y1 = -sqrt(L^2 - x0^2); the
    plastic jerk keeps only the velocity across the string."""
    import sympy_models

    angle, L = 2.5, 1.0
    x0, y0 = L * np.sin(angle), -L * np.cos(angle)
    string = systems.from_sympy(sympy_models.pendulum_lagrange(), {"m": 1.0, "L": L, "g": G}, name="string_pendulum",
                                constraint_names=["string tension"], state=((x0, y0), (0.0, 0.0)),
                                contacts=[systems.Contact("string tension", name="string")])
    held = F.create("dependent", string).simulate((0.0, 0.5))
    assert held.status == 2 and "contact 'string' pulls" in held.message  # a rod would push the bob up there
    run = F.simulate_contacts(string, (0.0, 1.0))
    assert run.status == 0, run.message
    assert run.modes[0].open == ("string",) and run.modes[-1].open == ()
    jerk = next(ev for ev in run.events if ev.kind == "impact")
    y1 = -np.sqrt(L**2 - x0**2)
    assert jerk.t == pytest.approx(np.sqrt(2 * (y0 - y1) / G), rel=1e-9)
    v_before, v_after = jerk.before[1], jerk.after[1]
    across = np.array([-y1, x0]) / L  # perpendicular to the string at the bob
    assert np.allclose(v_after, (v_before @ across) * across, atol=1e-9)


def test_output_times_are_kept_across_the_phases_with_the_events_among_them():
    t_eval = np.linspace(0.0, 0.5, 11)
    run = F.simulate_contacts(sliding_ball(), (0.0, 0.5), t_eval=t_eval)
    (rolls,) = run.events
    assert np.all(np.isin(t_eval, run.t)) and rolls.t in run.t and run.t.size == t_eval.size + 1
    assert np.all(np.diff(run.t) > 0)


def test_a_block_rocking_onto_its_other_corner_lifts_the_first():
    """With e = 0 the landing corner B takes the impact, and corner A, whose impulse would pull, lifts:
    the block rocks on (it does not stop dead); Moreau-Jean steps give the same rotation rate."""
    from contact_models import rocking_block

    run = F.simulate_contacts(rocking_block(), (0.0, 0.5))
    assert run.status == 0, run.message
    landing = [ev for ev in run.events if ev.t == run.events[0].t]
    assert [(ev.kind, ev.constraint) for ev in landing] == [("impact", "B"), ("closes", "B"), ("opens", "A")]
    rate = landing[0].after[1][2]
    assert rate < -0.1  # rotating the other way about B
    stepped = F.simulate_contacts(rocking_block(), (0.0, 0.5), scheme="moreau-jean", step=1e-4)
    k = np.searchsorted(stepped.t, landing[0].t + 0.002)
    assert stepped.v[k][2] == pytest.approx(rate, rel=2e-2)


def test_bad_states_spans_and_options_are_refused():
    ball = bouncing_ball()
    with pytest.raises(systems.ArgumentTypeError, match="expected a pair"):
        F.simulate_contacts(ball, (0.0, 1.0), np.array([1.0, 0.0]))
    with pytest.raises(ArgumentError, match="expected t1 > t0"):
        F.simulate_contacts(ball, (1.0, 0.0))
    with pytest.raises(ArgumentError, match="no t_eval"):
        F.simulate_contacts(ball, (0.0, 1.0), scheme="moreau-jean", step=1e-3, t_eval=[0.0, 1.0])
    with pytest.raises(ArgumentError, match="step= sets the Moreau-Jean step"):
        F.simulate_contacts(ball, (0.0, 1.0), step=1e-3)


@pytest.mark.parametrize("share", [0.5, 1.5])
def test_a_rod_dropped_on_its_end_sticks_or_slides_at_the_impact_as_coulomb_says(share):
    """The catalogue's rod, falling without turning at theta = 0.5 rad from the vertical, strikes the floor
    with its end A (e = 0). Any impulse at A keeps the angular momentum about A; A stops falling; the
    friction impulse sticks A where the cone holds the sticking impulse, whose ratio to the normal one is
    mu_c = 3 sin(theta) cos(theta) / (1 + 3 cos(theta)^2) (angular momentum about A: the rod pivots at
    theta' = 3 V sin(theta) / (2 L)), and slides A with |P_t| = mu P_n against its slip otherwise."""
    theta, L, V = 0.5, 1.0, 2.0
    critical = 3 * np.sin(theta) * np.cos(theta) / (1 + 3 * np.cos(theta) ** 2)
    rod = systems.load("falling_rod", mu=share * critical, e=0.0)
    state = ([0.0, L / 2 * np.cos(theta) + 1e-6, theta], [0.0, -V, 0.0])
    run = F.simulate_contacts(rod, (0.0, 1e-3), state)
    impact = next(ev for ev in run.events if ev.kind == "impact")
    assert impact.constraint == "A normal force"
    (_, _, th), (vx0, vy0, w0) = impact.before
    vx, vy, w = impact.after[1]
    r = L / 2 * np.array([np.sin(th), np.cos(th)])  # from A to the centre
    # about A, m = 1; theta' turns the rod clockwise, so its counterclockwise rate is -theta'
    momentum = lambda ux, uy, rate: r[0] * uy - r[1] * ux - L**2 / 12 * rate  # noqa: E731
    assert momentum(vx, vy, w) == pytest.approx(momentum(vx0, vy0, w0), abs=1e-10)
    assert vy + w * r[0] == pytest.approx(0.0, abs=1e-10)  # A's vertical velocity after: e = 0
    slip = vx - w * r[1]  # A's horizontal velocity after
    P_t, P_n = vx - vx0, vy - vy0  # the impulses, m = 1
    if share > 1:
        assert w == pytest.approx(3 * -vy0 * np.sin(th) / (2 * L), rel=1e-9)
        assert slip == pytest.approx(0.0, abs=1e-10) and abs(P_t) == pytest.approx(critical * P_n, rel=1e-9)
        assert [m.sliding for m in run.modes][-1] == ()
    else:
        assert abs(P_t) == pytest.approx(share * critical * P_n, rel=1e-9) and P_t * slip < 0
        assert "A normal force" in run.modes[-1].sliding


def test_events_of_ones_own_are_watched_in_every_phase_and_a_terminal_one_ends_the_run():
    """The sliding ball's centre, x = v0 t - mu g t^2 / 2 while it slides, passes 0.1 m at the root of that
    quadratic, and 0.5 m after it rolls, at t_s + (0.5 - x_s) / (5 v0 / 7)."""
    v0, mu = 2.0, 0.2
    t_s, x_s = 2 * v0 / (7 * mu * G), 12 * v0**2 / (49 * mu * G)
    passes = F.Event(lambda t, p, v: p[0] - 0.1, terminal=False, direction=1, name="passes 0.1 m")
    stop = F.Event(lambda t, p, v: p[0] - 0.5, terminal=True, direction=1, name="reaches 0.5 m")
    run = F.simulate_contacts(sliding_ball(v0, mu), (0.0, 5.0), events=[passes, stop], rtol=1e-12, atol=1e-12)
    assert run.status == 1 and "event 'reaches 0.5 m' ended the run" in run.message
    assert [(e.kind, e.name) for e in run.events] == [("event", "passes 0.1 m"), ("rolls", "rolls normal force"),
                                                      ("event", "reaches 0.5 m")]
    first = (v0 - np.sqrt(v0**2 - 2 * mu * G * 0.1)) / (mu * G)
    assert run.events[0].t == pytest.approx(first, rel=1e-9)
    assert run.events[-1].t == pytest.approx(t_s + (0.5 - x_s) / (5 * v0 / 7), rel=1e-9) == run.t[-1]
    assert run.events[-1].after[0][0] == pytest.approx(0.5, abs=1e-9)
    with pytest.raises(ArgumentError, match="no events"):
        F.simulate_contacts(sliding_ball(), (0.0, 1.0), scheme="moreau-jean", step=1e-3, events=[stop])
    bare = F.simulate_contacts(sliding_ball(v0, mu), (0.0, 5.0), events=lambda t, p, v: p[0] - 0.1)
    assert bare.status == 1 and "event 'event 1' ended the run" in bare.message  # a bare callable, named
    with pytest.raises(systems.ArgumentTypeError, match="expected an Event or a callable"):
        F.simulate_contacts(sliding_ball(), (0.0, 1.0), events=[0.1])


@pytest.mark.slow
def test_eulers_disk_starts_to_slide_along_the_direction_its_slip_then_grows_in():
    """Where friction no longer holds the disc (5.56 s), the slide starts along the consistent direction of
    the slip (event_driven._onset): the slip recorded over the next 1e-4 s grows and keeps its direction to
    0.05 rad (its first points, at 1e-10 m/s, carry the rounding of the onset)."""
    disk = systems.load("eulers_disk")
    run = F.simulate_contacts(disk, (0.0, 5.6), rtol=1e-9, atol=1e-9, method="LSODA")
    slides = next(ev for ev in run.events if ev.kind == "slides")
    rows = [disk.constraint_names.index(n) for n in disk.contacts[0].tangential]
    early = F.simulate_contacts(disk, (slides.t, slides.t + 1e-4), slides.after, rtol=1e-12, atol=1e-12,
                                t_eval=np.linspace(slides.t, slides.t + 1e-4, 6))
    later = early.t > slides.t  # the output times after the onset
    slips = np.array([disk.residuals(p, v, t)[1][rows] for t, p, v in zip(early.t[later], early.p[later],
                                                                           early.v[later])])
    sizes = np.linalg.norm(slips, axis=1)
    onset = int(np.argmin(sizes))  # the slide's first point: the slip put to zero, then its offset
    sizes, slips = sizes[onset + 1:], slips[onset + 1:]
    assert sizes.size >= 4 and np.all(np.diff(sizes) > 0)
    directions = slips / sizes[:, None]
    assert np.all(directions @ directions[-1] > np.cos(0.05))  # it keeps its direction as it grows


def test_the_rod_standing_on_a_rough_floor_slides_where_friction_no_longer_holds_its_pivot():
    """Pivoting on A from rest at theta0: theta'^2 = (3 g / L)(cos theta0 - cos theta), theta'' = (3 g / (2 L))
    sin theta; A slides at the angle where |F| = mu N for the floor's forces on A (m = 1)
    F = (L/2)(theta'' cos - theta'^2 sin), N = g - (L/2)(theta'' sin + theta'^2 cos); then B strikes the floor."""
    from scipy.optimize import brentq

    L, theta0, mu = 1.0, 0.3, 0.3  # the catalogue's defaults

    def margin(th):
        rate2, accel = 3 * G / L * (np.cos(theta0) - np.cos(th)), 1.5 * G / L * np.sin(th)
        return abs(L / 2 * (accel * np.cos(th) - rate2 * np.sin(th))) - mu * (
            G - L / 2 * (accel * np.sin(th) + rate2 * np.cos(th)))

    run = F.simulate_contacts(systems.load("falling_rod"), (0.0, 1.5))
    assert run.status == 0, run.message
    slides = run.events[0]
    assert (slides.kind, slides.constraint) == ("slides", "A normal force")
    assert slides.after[0][2] == pytest.approx(brentq(margin, theta0 + 1e-9, 1.2), abs=1e-9)
    assert [e.kind for e in run.events if e.constraint == "B normal force"] == ["impact", "closes"]
    assert np.all(np.diff(run.energy) < 1e-9) and run.modes[-1].label == "all closed, sticking"


CONTACT_SYSTEMS = ["sliding_ball", "bouncing_ball", "falling_rod", "eulers_disk", "rolling_disc", "sphere_in_cylinder",
                   "ball_on_turntable", pytest.param("bicycle", marks=pytest.mark.slow)]  # the bicycle's build: 5 s


@pytest.mark.parametrize("name", CONTACT_SYSTEMS)
def test_every_catalogue_contact_pushes_while_closed_stays_clear_while_open_and_takes_no_energy(name):
    """Over a run of 1 s with its contacts free: the normal force >= 0 on every closed contact of each
    phase and the gap >= 0 on every open one (to 1e-6 of the largest force, 1e-9 of the positions), and,
    where no input drives it (the turntable does), the energy never rises beyond the tolerance."""
    system = systems.load(name)
    run = F.simulate_contacts(system, (0.0, 1.0), rtol=1e-9, atol=1e-9)
    assert run.status in (0, 2), run.message
    names, lam = system.constraint_names, run.multipliers
    scale_p = 1.0 + np.max(np.abs(run.p))
    for mode in run.modes:
        inside = (run.t > mode.start) & (run.t < mode.end)
        for contact in system.contacts:
            column = lam[inside, names.index(contact.normal)]
            if contact.name in mode.open:
                gaps = [float(contact_gap) for contact_gap in
                        (-system.residuals(p, v, t)[0][names.index(contact.normal)]
                         for t, p, v in zip(run.t[inside], run.p[inside], run.v[inside]))]
                assert min(gaps, default=0.0) > -1e-9 * scale_p, (name, mode, contact.name)
            else:
                slack = 1e-6 * max(1.0, float(np.max(np.abs(lam[:, names.index(contact.normal)]))))
                assert np.min(column, initial=0.0) > -slack, (name, mode, contact.name)
    if name != "ball_on_turntable":
        assert np.all(np.diff(run.energy) < 1e-7 * (1.0 + np.max(np.abs(run.energy))))


def test_a_comparison_whose_runs_let_a_contact_go_reports_the_run_with_its_contacts_free(tmp_path, capsys):
    """The rolling disc with mu = 0.2: every formulation's check says the contact slides; the report adds
    the run of simulate_contacts from the same start, with its modes and events, and so does the JSON."""
    import json

    from formulations.workbench.cli.main import main

    out = tmp_path / "report"
    assert main(["compare", "rolling_disc", "--set", "mu=0.2", "--t-end", "0.5", "--out", str(out), "--quiet"]) == 1
    report = (out / "report.md").read_text()
    assert "## With its contacts free" in report and "| 0 | 0.5 | sliding: ground |" in report
    contacts = json.loads((out / "results.json").read_text())["contacts"]
    assert contacts["modes"] == [{"start": 0.0, "end": 0.5, "mode": "sliding: ground"}] and contacts["status"] == 0
    assert main(["compare", "rolling_disc", "--t-end", "0.5", "--out", str(tmp_path / "quiet"), "--quiet"]) == 0
    assert "With its contacts free" not in (tmp_path / "quiet" / "report.md").read_text()  # mu = 0.5 holds it
