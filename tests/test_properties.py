"""Properties over random inputs (hypothesis).

1. A planar rigid body (x, y, theta) under gravity, a spring and damping, with one or two random
   Pfaffian rows a(p) . v = 0 whose coefficients are affine in p: at random consistent states every
   formulation gives the accelerations and multipliers of the closed form
       lambda = (C M^-1 C^T)^-1 (C M^-1 f + xi),  v' = M^-1 (f - C^T lambda),  xi = (dC/dt) v,
   computed here with numpy alone.
2. Malformed arguments to simulate raise one of the library's own errors naming the argument;
   never a generic Python error, never a run that reports success.
"""
import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import formulations as F
import systems

from cases import applicable

M_, J_, G_, K_, C_ = 2.0, 0.5, 9.81, 3.0, 0.4
X, Y, TH = sp.symbols("x y theta", real=True)
XD, YD, THD = sp.symbols("x_dot y_dot theta_dot", real=True)
P, V = (X, Y, TH), (XD, YD, THD)

coefficient = st.integers(-3, 3).map(lambda k: sp.Rational(k, 2))
row = st.tuples(st.lists(coefficient, min_size=3, max_size=3),                       # a0
                st.lists(st.lists(coefficient, min_size=3, max_size=3), min_size=3, max_size=3))  # A1


def body_with_rows(rows):
    """The planar body with rows a_i(p) = a0_i + A1_i p (numeric a0, A1 returned for the closed form)."""
    constraints, a0s, A1s = [], [], []
    for i, (a0, A1) in enumerate(rows):
        a = sp.Matrix(a0) + sp.Matrix(A1) * sp.Matrix(P)
        constraints.append((f"row {i + 1}", sum(a[j] * V[j] for j in range(3))))
        a0s.append(np.array(a0, float))
        A1s.append(np.array(A1, float))
    T = M_ * (XD**2 + YD**2) / 2 + J_ * THD**2 / 2
    Vpot = M_ * G_ * Y + K_ * (X**2 + TH**2) / 2
    system = systems.from_lagrangian("random_rows", P, T, Vpot, forces=[-C_ * XD, -C_ * YD, -C_ * THD],
                                     nonholonomic=constraints, default_p=(0, 0, 0), default_v=(0, 0, 0))
    return system, np.array(a0s), np.array(A1s)


def closed_form(a0, A1, p, v):
    C = a0 + A1 @ p                                   # (l, 3)
    xi = np.einsum("ijk,k,j->i", A1, v, v)            # (dC/dt) v = (A1 v) . v per row
    Minv = np.diag([1 / M_, 1 / M_, 1 / J_])
    f = -np.array([K_ * p[0], M_ * G_, K_ * p[2]]) - C_ * v
    lam = np.linalg.solve(C @ Minv @ C.T, C @ Minv @ f + xi)
    return Minv @ (f - C.T @ lam), lam, C


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.lists(row, min_size=1, max_size=2), p=st.lists(st.floats(-1, 1), min_size=3, max_size=3),
       v=st.lists(st.floats(-2, 2), min_size=3, max_size=3))
def test_formulations_agree_with_the_closed_form_on_random_pfaffian_rows(rows, p, v):
    a0 = np.array([r[0] for r in rows], float)
    assume(np.linalg.matrix_rank(a0) == len(rows) and np.linalg.svd(a0, compute_uv=False)[-1] > 0.3)
    system, a0, A1 = body_with_rows(rows)
    p = np.array(p)
    C = a0 + A1 @ p
    assume(np.linalg.svd(C, compute_uv=False)[-1] > 0.3)  # independent rows at the state
    v = np.array(v)
    v = v - C.T @ np.linalg.solve(C @ C.T, C @ v)        # onto C v = 0
    vdot, lam, _ = closed_form(a0, A1, p, v)
    scale = 1 + np.max(np.abs(vdot)) + np.max(np.abs(lam))
    for name in applicable(system):
        form = F.create(name, system)
        form.prepare(p, v)
        got = form.evaluate(0.0, form.initial_state(p, v))
        assert np.max(np.abs(got.vdot - vdot)) < 1e-9 * scale, (name, got.vdot, vdot)
        assert np.max(np.abs(got.lam - lam)) < 1e-9 * scale, (name, got.lam, lam)
    assert np.allclose(F.reactions(system, 0.0, p, v, as_dict=False), lam, rtol=1e-9, atol=1e-9 * scale)


DISC = systems.load("rolling_disc")
P0, V0 = DISC.default_state()
CLEAR = (systems.ArgumentError, systems.ArgumentTypeError, systems.UnknownNameError, F.CapabilityError,
         systems.InconsistentStateError)
junk = st.one_of(st.text(max_size=5), st.none(), st.booleans(), st.lists(st.floats(), max_size=3),
                 st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))
not_finite = st.sampled_from([np.nan, np.inf, -np.inf])


def _a_valid_span(x) -> bool:
    """junk can draw [t0, t1] with t1 > t0, which is a good t_span."""
    return (isinstance(x, list) and len(x) == 2 and all(np.isfinite(x)) and x[1] > x[0])


BAD = {
    "rtol": st.one_of(junk, not_finite, st.floats(max_value=0.0), st.floats(min_value=0.11, allow_infinity=False),
                      st.floats(min_value=1e-300, max_value=1e-17)),
    "atol": st.one_of(junk, not_finite, st.floats(max_value=0.0), st.floats(min_value=10.0, allow_infinity=False)),
    "t_span": st.one_of(junk.filter(lambda x: not _a_valid_span(x)), st.tuples(st.floats(-10, 10), st.floats(-10, 10)).filter(lambda s: s[1] <= s[0]),
                        st.tuples(st.just(0.0), not_finite), st.lists(st.floats(0, 1), min_size=3, max_size=4)),
    "t_eval": st.one_of(st.just([]), st.lists(st.floats(0.0, 0.2), min_size=2, max_size=5, unique=True).map(
        lambda x: sorted(x, reverse=True)), st.lists(st.floats(0.3, 5.0), min_size=1, max_size=3).map(sorted),
        st.lists(not_finite, min_size=1, max_size=2), st.lists(st.text(max_size=2), min_size=1, max_size=2)),
    "step": st.one_of(st.text(max_size=3), not_finite, st.floats(max_value=0.0), st.floats(0.21, 1e6)),
    "state0": st.one_of(junk.filter(lambda x: x is not None), st.tuples(st.lists(st.floats(-1, 1), max_size=5), st.just(list(V0))),
                        st.tuples(st.just(list(P0)), st.lists(not_finite, min_size=6, max_size=6))),
    "events": st.lists(st.one_of(st.integers(), st.text(max_size=3), st.floats()), min_size=1, max_size=2),
    "max_steps": st.one_of(st.integers(max_value=0), st.floats(0.1, 99.9).filter(lambda x: x != int(x)),
                           st.text(alphabet="abc", min_size=1, max_size=3)),
}


@settings(max_examples=150, deadline=None)
@given(data=st.data(), argument=st.sampled_from(sorted(BAD)))
def test_malformed_arguments_are_named_never_run(data, argument):
    value = data.draw(BAD[argument], label=argument)
    options = dict(rtol=1e-6, atol=1e-6, t_span=(0.0, 0.2))
    if argument == "step":
        options["method"] = "rk4"
    options[argument] = value
    t_span = options.pop("t_span")
    state0 = options.pop("state0", None)
    with pytest.raises(CLEAR) as info:
        F.create("dependent", DISC).simulate(t_span, state0, **options)
    assert argument in str(info.value), str(info.value)


text = st.text(alphabet="xyz-+e.", min_size=1, max_size=4).filter(lambda x: x != "--")  # "--": argparse's end of options
CLI_BAD = {
    "--rtol": st.one_of(text, st.sampled_from(["0", "1", "10", "nan", "inf", "-1e-6", "1e300"])),
    "--atol": st.one_of(text, st.sampled_from(["0", "-1", "nan", "inf"])),
    "--t-end": st.one_of(text, st.sampled_from(["0", "-1", "nan", "inf"])),
    "--max-steps": st.one_of(text, st.sampled_from(["0", "-3", "2.5", "1e400"])),
    "--set": st.one_of(text, st.sampled_from(["r=abc", "r=-1", "nope=1", "r", "=1", "r=1e200", "r=nan"])),
    "--formulation": text,
    "--method": text,
    "--backend": text,
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), option=st.sampled_from(sorted(CLI_BAD)))
def test_malformed_command_line_options_exit_2_naming_the_option(capsys, data, option):
    from formulations.workbench.cli.main import main

    value = data.draw(CLI_BAD[option], label=option)
    system = "rolling_disc" if option == "--set" else "knife_edge"
    code = main(["simulate", system, "--t-end", "0.05", "--quiet", f"{option}={value}"])
    err = capsys.readouterr().err
    assert code == 2, err
    named = option.lstrip("-") if option != "--set" else value.partition("=")[0] if value[0] not in "=-" else "set"
    assert "Traceback" not in err and named in err, err
