"""The Whipple-Carvallo bicycle against the benchmark of Meijaard, Papadopoulos, Ruina & Schwab,
"Linearized dynamics equations for the balance and steer of a bicycle: a benchmark and review",
Proc. R. Soc. A 463 (2007) 1955-1982: the eigenvalues of Table 2 and its weave and capsize speeds,
and the static reactions from the moment balance of the benchmark's masses."""
import numpy as np
import pytest

import formulations
import systems

# Table 2 (b), (c): per forward speed v (m/s), the four eigenvalues (1/s) of the upright straight motion
CAPSIZE = [-3.13164324790656, -3.13423125066578, -3.07158645641514, -2.63366137253667, -1.42944427361326,
           -0.32286642900409, -0.00406690076970, 0.10268170574766, 0.14327879765713, 0.15790184030917,
           0.16105338653172]
CASTERING = [-5.53094371765393, -7.11008014637442, -8.67387984831735, -10.35101467245920, -12.15861426576450,
             -14.07838969279820, -16.08537123098030, -18.15788466125262, -20.27940894394569, -22.43788559040858,
             -24.62459635017404]
WEAVE = [None, (3.52696170990070, 0.80774027519930), (2.68234517512745, 1.68066296590675),
         (1.70675605663975, 2.31582447384325), (0.41325331521125, 3.07910818603206),
         (-0.77534188219585, 4.46486771378823), (-1.52644486584142, 5.87673060598709),
         (-2.13875644258362, 7.19525913329805), (-2.69348683581097, 8.46037971396931),
         (-3.21675402252485, 9.69377351531791), (-3.72016840437287, 10.90681139476287)]
STANDING = (3.13164324790656, 5.53094371765393)  # v = 0: the two falling modes and their mirror images
WEAVE_SPEED, CAPSIZE_SPEED = 4.29238253634111, 6.02426201538837  # Table 2 (a)


def table_2(speed: int) -> np.ndarray:
    if speed == 0:
        return np.array([-STANDING[1], -STANDING[0], STANDING[0], STANDING[1]], complex)
    re, im = WEAVE[speed]
    return np.array([CAPSIZE[speed], CASTERING[speed], complex(re, im), complex(re, -im)])


def _matched(ours, theirs):
    """max |ours - theirs| over the pairing that sorts both by real, then imaginary part."""
    return float(np.max(np.abs(np.sort_complex(np.asarray(ours, complex)) - np.sort_complex(theirs))))


@pytest.fixture(scope="module")
def bicycle():
    return systems.load("bicycle")


def test_eigenvalues_equal_table_2(bicycle):
    """v = 0, 1, ..., 10 m/s, the minimal formulation's independent state (roll, steer and their
    rates; the yaw, position and wheel angles drift, the forward speed is conserved)."""
    worst = {}
    for speed in range(11):
        system = bicycle.with_parameters(v=float(speed))
        lin = formulations.linearize(system, *system.default_state(), formulation="minimal")
        assert len(lin.nontrivial) == 4, lin.labels
        worst[speed] = _matched(lin.nontrivial, table_2(speed))
    assert max(worst.values()) < 1e-8, worst


def test_weave_and_capsize_speeds(bicycle):
    result = formulations.stability(bicycle, None, "v", [3.0, 4.0, 5.0, 6.0, 7.0], xtol=1e-11)
    assert result.classes == ("unstable", "unstable", "stable", "stable", "unstable")
    weave, capsize = result.critical_values
    assert abs(weave - WEAVE_SPEED) < 1e-8 and abs(capsize - CAPSIZE_SPEED) < 1e-8, (weave, capsize)


def test_upright_running_is_steady_with_static_reactions(bicycle):
    """At every speed the default state is consistent, the accelerations vanish, the friction forces
    are zero and the normal forces carry the weight split by the moment balance about the rear
    contact: N_front w = g (m_B x_B + m_H x_H + m_F w)."""
    par = bicycle.parameter_dict
    weight = par["g"] * (par["m_R"] + par["m_B"] + par["m_H"] + par["m_F"])
    front = par["g"] * (par["m_B"] * par["x_B"] + par["m_H"] * par["x_H"] + par["m_F"] * par["w"]) / par["w"]
    for speed in (0.0, 4.6, 10.0):
        system = bicycle.with_parameters(v=speed)
        p, v = system.default_state()
        assert v[0] == speed and v[7] == pytest.approx(speed / par["r_R"]) and v[8] == pytest.approx(speed / par["r_F"])
        Phi, Cv = system.residuals(p, v)
        assert np.max(np.abs(Phi)) < 1e-12 and np.max(np.abs(Cv)) < 1e-12 * (1 + speed)
        form = formulations.create("dependent", system)
        vdot = form.evaluate(0.0, form.initial_state(p, v)).vdot
        assert np.max(np.abs(vdot)) < 1e-10 * 9.81
        forces = formulations.reactions(system, 0.0, p, v)
        assert forces["front normal force"] == pytest.approx(front, rel=1e-10)
        assert forces["rear normal force"] == pytest.approx(weight - front, rel=1e-10)
        for name in bicycle.nonholonomic_names:
            assert abs(forces[name]) < 1e-9, (name, forces[name])


def test_parameters_are_overridable():
    system = systems.load("bicycle", v=5.0, c=0.1)
    assert system.parameter_dict["v"] == 5.0 and system.parameter_dict["c"] == 0.1
    assert system.default_state()[1][0] == 5.0
    assert (system.n, system.m, system.l, system.r) == (9, 2, 4, 3)


def test_the_capsize_eigenvalue_stays_dynamic_next_to_the_capsize_speed(bicycle):
    """Conserved quantities are decided structurally, not by a per-point threshold: 8.5e-8 m/s above
    Meijaard's capsize speed the crossing eigenvalue (about 1e-8 1/s) is a dynamic mode, and it
    grows linearly with the distance to the crossing, as a simple root crossing zero does."""
    small = {}
    for dv in (8.5e-8, 8.5e-7, 8.5e-6):
        system = bicycle.with_parameters(v=CAPSIZE_SPEED + dv)
        lin = formulations.linearize(system, *system.default_state(), formulation="minimal")
        assert len(lin.nontrivial) == 4 and lin.kinds.count("conserved") == 1, lin.labels
        small[dv] = min(lin.nontrivial, key=abs)
    assert all(value.real > 0 and abs(value.imag) == 0 for value in small.values()), small  # capsize: unstable
    assert np.isclose(small[8.5e-7].real / small[8.5e-8].real, 10, rtol=0.05), small
    assert np.isclose(small[8.5e-6].real / small[8.5e-7].real, 10, rtol=0.05), small
