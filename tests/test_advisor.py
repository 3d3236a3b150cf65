"""The formulation advisor (formulations.workbench.advisor): its rules on systems with redundant
rows, stiffness or a long horizon, a recommendation that reaches the target error when re-run,
the budget kept, and the command line."""
import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from formulations.workbench.advisor import _predicted, _score, advise, candidates, facts
from formulations import registry
from systems.numeric import codegen


def _kinds(configs):
    return {c.split("@")[0].split("+")[0] for c in configs}


def test_redundant_rows_leave_out_the_formulations_that_need_independent_rows():
    bricard = systems.load("bricard")  # one of its 24 rows depends on the others
    known = facts(bricard, (0.0, 2.0))
    configs, reasons = candidates(bricard, known)
    runs_them = {name for name in registry.names() if registry.formulation_class(name).redundant_rows}
    assert known["redundant_rows"] and _kinds(configs) == runs_them and "dependent" in runs_them
    assert any("redundant" in r for r in reasons)


def test_a_stiff_system_gets_implicit_methods_and_a_long_oscillation_a_variational_one():
    governor = systems.load("flyball_governor")  # a decay rate of about 8e3 1/s (its regulator)
    stiff, reasons = candidates(governor, facts(governor, (0.0, 10.0)))
    assert "dependent@Radau" in stiff and any("stiff" in r for r in reasons)
    skate = systems.load("knife_edge")
    calm, _ = candidates(skate, facts(skate, (0.0, 10.0)))
    assert not any("Radau" in c or "IDA" in c for c in calm)
    pendulum = systems.load("pendulum_cartesian")
    long, reasons = candidates(pendulum, facts(pendulum, (0.0, 200.0)))  # about 100 swings
    assert any(c.startswith("dependent@NH-RATTLE") for c in long) and any("periods" in r for r in reasons)
    short, _ = candidates(pendulum, facts(pendulum, (0.0, 2.0)))
    assert not any("NH-RATTLE" in c for c in short)


def _longest_run(advice) -> float:
    """The longest single run of the advice's last pilot round (s): the reference at 1e-13 or a
    sweep point. A round that starts before the deadline may end after it by about that much."""
    return max([point.wall_time for point in advice.comparison.sweep] + [advice.comparison.reference.stats.wall_time])


def test_the_recommendation_reaches_the_target_within_the_budget():
    """Re-run at the recommended tolerance over the pilot horizon, the recommended configuration
    deviates from the reference by less than the target; the advice takes no longer than its
    budget and one more pilot run."""
    skate = systems.load("knife_edge")
    advice = advise(skate, (0.0, 4.0), target_error=1e-6, budget=8.0,
                    configurations=["dependent", "dependent+projection", "minimal"])
    assert advice.recommended is not None and advice.table[0].label == advice.recommended
    check = F.compare(skate, [advice.recommended], advice.pilot_span, rtol=advice.rtol, samples=101,
                      backend="numpy")
    assert check.rows[0].status == 0 and check.rows[0].deviation < 1e-6
    assert advice.elapsed < advice.budget + _longest_run(advice)
    assert "Recommended" in advice.to_markdown() and advice.as_dict()["recommended"] == advice.recommended


def test_the_budget_holds_where_the_motion_speeds_up():
    """Andrews' mechanism turns ever faster: a probe of its first instants underestimates later
    runs, so the pilot horizon grows by measured rounds and the advice stays within its budget."""
    advice = advise(systems.load("andrews_squeezer"), (0.0, 10.0), budget=6.0, configurations=["dependent", "minimal"])
    longest = _longest_run(advice)
    assert advice.elapsed < advice.budget + longest
    assert advice.pilot_span[1] < 10.0 and "to fit the budget of 6 s" in advice.reasons[0]


def test_a_tighter_ladder_follows_where_no_candidate_reached_the_target():
    """The triple slider-crank over 4 s amplifies errors: at the first three tolerances no run comes
    within 1e-6 of the reference; the candidates run again tighter, and the one recommended reaches
    the target when re-run at the recommended tolerance."""
    crank = systems.load("triple_slider_crank")
    advice = advise(crank, (0.0, 4.0), budget=20.0, configurations=["dependent"])
    assert any("ran again" in reason for reason in advice.reasons), advice.reasons
    assert advice.recommended == "dependent" and len(advice.table[0].tolerances) == 6
    check = F.compare(crank, ["dependent"], advice.pilot_span, rtol=advice.rtol, samples=101, backend="numpy")
    assert check.rows[0].status == 0 and check.rows[0].deviation < 1e-6


def test_time_at_target_is_read_between_the_bracketing_runs():
    """The scoring of a configuration: the wall time where the deviation crosses the target, in
    log-log between the two runs around it, and no time where no run reaches it."""
    from formulations.workbench.comparison.compare import SweepPoint

    points = [SweepPoint("x", 1e-4, 0.01, 0, 1e-3, 0.0), SweepPoint("x", 1e-6, 0.04, 0, 1e-5, 0.0),
              SweepPoint("x", 1e-8, 0.16, 0, 1e-7, 0.0)]
    scored = _score("x", points, 1e-6)  # halfway in log deviation between 1e-5 and 1e-7: halfway in log time
    assert np.isclose(scored.time_at_target, 0.08) and scored.tolerance == 5e-8
    assert np.isnan(_score("x", points, 1e-9).time_at_target)
    # extended along the two tightest runs, the line meets 1e-9 a factor 4 in time beyond 1e-7
    assert np.isclose(_predicted(_score("x", points, 1e-9), 1e-9), 0.64)
    stopped = SweepPoint("x", 1e-3, 0.01, 0, 1e-2, 0.0, status=-1, message="system 'a', formulation 'b': stopped at "
                         "t = 1.5: singular configuration: Phi_p passed through a rank loss")
    failed = _score("x", [stopped] + points, 1e-6)
    assert failed.failed and failed.notes[0] == ("failed at 0.001 (at t = 1.5 s: singular configuration: Phi_p passed "
                                                 "through a rank loss)")


def test_advise_from_the_command_line(tmp_path, capsys):
    from formulations.workbench.cli.main import main

    out = tmp_path / "advice"
    assert main(["advise", "knife_edge", "--t-end", "1", "--budget", "5", "--out", str(out), "--quiet"]) == 0
    assert "Recommended" in capsys.readouterr().out
    assert {"advice.md", "advice.json", "work_precision.png"} <= {p.name for p in out.iterdir()}
    assert main(["advise", "knife_edge", "--target-error", "2"]) == 2


def _crossing(embedded):
    """A unit mass on the crossing lines x^2 = y^2 held by a spring k = 1 to the origin, started at
    rest at (-1, -1): on the branch y = x it moves as x = y = -cos t and passes the crossing, where
    Phi_p = (x, -y) vanishes, at t = pi/2. With ``embedded`` the branch is declared, g(s) = (s, s)."""
    x, y, xd, yd, s = sp.symbols("x y x_dot y_dot s", real=True)
    branch = systems.Embedding(coordinates=(s,), g=sp.Matrix([s, s]), inverse=sp.Matrix([(x + y) / 2]))
    return systems.from_lagrangian("crossing", (x, y), (xd**2 + yd**2) / 2, (x**2 + y**2) / 2, velocities=(xd, yd),
                                   holonomic=[("crossing", (x**2 - y**2) / 2)], default_p=(-1.0, -1.0),
                                   default_v=(0.0, 0.0), embedding=branch if embedded else None)


def test_a_singular_configuration_ahead_without_a_branch_is_said_to_stop():
    """The reference stops where Phi_p vanishes. With a declared branch, regular there, the advice
    recommends a formulation with singular="pass" that follows the closed form past the crossing
    (docs/choosing-a-formulation.md runs that case and checks it). Without the branch declared
    nothing passes with regular coordinates: the pilot runs end before the crossing, and the reasons
    say where the reference stopped and what would pass."""
    plain = advise(_crossing(False), (0.0, 2.0), target_error=1e-4, budget=30.0)
    assert plain.pilot_span[1] < np.pi / 2 and not any("[singular=pass]" in c.label for c in plain.table)
    assert any("stops at t = 1.5708" in reason and "has no embedding" in reason for reason in plain.reasons), \
        plain.reasons


@pytest.mark.xdist_group("compiled")  # the dependent module, compiled once with the other compiled tests
@pytest.mark.skipif(not codegen.available(), reason="numba is not installed")
def test_the_pilot_runs_use_the_backend_the_users_runs_will_use_and_say_which():
    """The advice ranks by the times of the backend it names: the one asked for, or create's default."""
    disc = systems.load("rolling_disc")  # its kernels, like the module, compiled once in the group
    configs = ["dependent", "dependent+projection"]
    advice = advise(disc, (0.0, 1.0), target_error=1e-6, budget=2.0, configurations=configs, backend="compiled")
    assert advice.backend == "compiled" and {row.backend for row in advice.comparison.rows} == {"compiled"}
    assert "on the compiled backend" in advice.to_markdown() and advice.as_dict()["backend"] == "compiled"
    default = advise(disc, (0.0, 1.0), target_error=1e-6, budget=2.0, configurations=configs)
    expected = F.create("dependent", disc).backend  # create's default ($PFAFF_BACKEND in the tests)
    assert default.backend == expected and f"on the {expected} backend" in default.to_markdown()
