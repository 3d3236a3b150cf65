"""Random planar mechanisms: every formulation agrees, and the multipliers balance every body.

A mechanism is an open chain of 2-5 rigid bodies in absolute coordinates, v = p',
p = (x1, y1, phi1, ..., xn, yn, phin) (centre and angle of every body), built with the frames
builders (Frame.rotated, Point.at/located, Frame.body) and from_rigid_bodies. Body 1 hangs from
the ground and body i from body i - 1 by a joint, two rows each:

  revolute   the joint point fixed in the parent coincides with the one fixed in the child (x, y)
  prismatic  the child's slider point stays on a line fixed in the parent (random direction), and
             the relative angle is locked

so the chain has n degrees of freedom. Optionally one velocity row on a random body:

  knife edge  the velocity of a body point along a body-fixed direction is zero
  rolling     a disc of radius r fixed in the body rolls on a ground line: the material point at
              the contact has no velocity along the line

and optionally one holonomic closing row: the last body's tip stays on a fixed line of the plane
(through the tip at the assembled configuration, with a random direction). Masses, moments of
inertia and offsets are random but well conditioned; gravity points along a random direction of
the plane (an inclined plane). Numbers are rationals so that the sympy build stays exact.
"""
import time

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import formulations
from systems.builders.frames import Frame, Point
from systems.builders.rigid_body import Kinematics, from_rigid_bodies
from systems.parameters import Parameter

TOL = 1e-9


def _q(x):
    """A rational close to x (two decimals), so that sympy keeps the build exact."""
    return sp.Rational(int(round(100 * x)), 100)


def _rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def build_mechanism(kinds, row, closing, seed):
    """(system, bodies, p_assembled, g): the random chain described in the module docstring.

    ``kinds``: "revolute" or "prismatic" per joint (one per body); ``row``: None, "knife edge" or
    "rolling"; ``closing``: whether the tip is held on a line; ``seed``: the numbers.
    ``bodies``: (mass, moment of inertia) per body, floats; ``p_assembled``: a configuration that
    satisfies every holonomic row exactly (forward kinematics from random joint variables);
    ``g``: the gravity vector of the plane (2,).
    """
    rng = np.random.default_rng(seed)
    n = len(kinds)
    names = [f"{c}{i + 1}" for i in range(n) for c in ("x", "y", "phi")]
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{s}_dot" for s in names), real=True)
    kin = Kinematics(p, v, sp.eye(3 * n))
    ground = Frame.ground(kin)
    g = sp.Symbol("g", positive=True)
    gamma = _q(rng.uniform(-0.5, 0.5))  # gravity tilted by gamma from -y within the plane
    gravity = (g * sp.sin(gamma), -g * sp.cos(gamma), 0)

    frames, centres, bodies, rigid, holonomic = [], [], [], [], []
    p_num = np.zeros(3 * n)
    tip_offset = None
    for i, kind in enumerate(kinds):
        x, y, phi = p[3 * i: 3 * i + 3]
        frame = ground.rotated(phi, "z", f"body {i + 1}")
        centre = Point.at(ground, (x, y, 0), f"G{i + 1}")
        length = rng.uniform(0.6, 1.4)
        mass = _q(rng.uniform(0.5, 2.0))
        J = _q(float(mass) * length**2 / 12 * rng.uniform(0.7, 1.5))
        bodies.append((float(mass), float(J)))
        rigid.append(frame.body(f"body {i + 1}", mass, sp.diag(J, J, J), centre))
        # the joint point: in the parent at offset a (parent axes; a world point for the ground),
        # in the child at offset b from its centre (the child's upper end, roughly)
        b = (_q(-length / 2), _q(rng.uniform(-0.2, 0.2)), 0)
        if i == 0:
            a = (_q(rng.uniform(-0.3, 0.3)), _q(rng.uniform(-0.3, 0.3)), 0)
            parent_point = Point.at(ground, a, "support")
            parent_phi, parent_phi_num = sp.S.Zero, 0.0
            P_num = np.array([float(a[0]), float(a[1])])
            parent_frame = ground
        else:
            a = (_q(rng.uniform(0.3, 0.7)), _q(rng.uniform(-0.2, 0.2)), 0)
            parent_frame = frames[-1]
            parent_point = centres[-1].located(parent_frame, a, f"J{i + 1} on body {i}")
            parent_phi = p[3 * i - 1]
            parent_phi_num = p_num[3 * i - 1]
            P_num = p_num[3 * i - 3: 3 * i - 1] + _rot(parent_phi_num) @ np.array([float(a[0]), float(a[1])])
        if kind == "revolute":
            child_point = centre.located(frame, b, f"J{i + 1} on body {i + 1}")
            d = sp.Matrix(parent_point.position) - sp.Matrix(child_point.position)
            holonomic += [(f"joint {i + 1} force x", d[0]), (f"joint {i + 1} force y", d[1])]
            phi_num = parent_phi_num + rng.uniform(-2.0, 2.0)
            slide_num = np.zeros(2)
        else:
            alpha, beta = _q(rng.uniform(-np.pi, np.pi)), _q(rng.uniform(-0.8, 0.8))
            normal = parent_frame.vector((-sp.sin(alpha), sp.cos(alpha), 0))  # normal of the slide line
            child_point = centre.located(frame, b, f"slider {i + 1}")
            d = sp.Matrix(child_point.position) - sp.Matrix(parent_point.position)
            holonomic += [(f"joint {i + 1} normal force", (normal.T * d)[0, 0]),
                          (f"joint {i + 1} moment", phi - parent_phi - beta)]
            phi_num = parent_phi_num + float(beta)
            s = rng.uniform(-0.5, 0.5)
            slide_num = s * _rot(parent_phi_num) @ np.array([np.cos(float(alpha)), np.sin(float(alpha))])
        child_num = P_num + slide_num - _rot(phi_num) @ np.array([float(b[0]), float(b[1])])
        p_num[3 * i: 3 * i + 3] = (*child_num, phi_num)
        frames.append(frame)
        centres.append(centre)
        tip_offset = (_q(length / 2), 0, 0)

    nonholonomic = []
    if row is not None:
        k = int(rng.integers(n))
        frame, body = frames[k], rigid[k]
        c = (_q(rng.uniform(-0.4, 0.4)), _q(rng.uniform(-0.2, 0.2)), 0)
        if row == "knife edge":
            delta = _q(rng.uniform(-np.pi, np.pi))
            direction = frame.vector((sp.cos(delta), sp.sin(delta), 0))
            nonholonomic.append((f"blade force on body {k + 1}", kin.reaction_row(body, frame.vector(c), direction)))
        else:  # a disc of radius r at c rolls on a ground line of direction (cos delta, sin delta)
            delta, r = _q(rng.uniform(-0.5, 0.5)), _q(rng.uniform(0.2, 0.5))
            along = sp.Matrix([sp.cos(delta), sp.sin(delta), 0])
            down = sp.Matrix([sp.sin(delta), -sp.cos(delta), 0])
            nonholonomic.append((f"rolling friction on body {k + 1}",
                                 kin.reaction_row(body, frame.vector(c) + r * down, along)))
    if closing:
        tip = sp.Matrix(centres[-1].located(frames[-1], tip_offset, "tip").position)
        tip_num = p_num[3 * n - 3: 3 * n - 1] + _rot(p_num[3 * n - 1]) @ np.array([float(tip_offset[0]), 0.0])
        theta = rng.uniform(-np.pi, np.pi)
        nx, ny = _q(np.cos(theta)), _q(np.sin(theta))
        level = sp.Rational(float(nx) * tip_num[0] + float(ny) * tip_num[1])  # exact: the line meets the tip
        holonomic.append(("tip guide force", nx * tip[0] + ny * tip[1] - level))
    system = from_rigid_bodies(
        f"random_chain_{''.join(k[0] for k in kinds)}", p, v, sp.eye(3 * n), rigid, gravity=gravity,
        holonomic=holonomic, nonholonomic=nonholonomic,
        parameters=(Parameter(g, 9.81, "m/s^2", "gravity"),), default_p=tuple(p_num), default_v=(0,) * (3 * n))
    return system, bodies, p_num, np.array([float(gravity[0].subs(g, 9.81)), float(gravity[1].subs(g, 9.81))])


@st.composite
def mechanisms(draw, max_bodies=5):
    """The structure of a random chain (joint kinds, extra rows) and a seed for its numbers."""
    n = draw(st.integers(2, max_bodies))
    kinds = tuple(draw(st.lists(st.sampled_from(["revolute", "prismatic"]), min_size=n, max_size=n)))
    row = draw(st.sampled_from([None, "knife edge", "rolling"]))
    closing = draw(st.booleans()) if (n >= 3 or row is None) else False  # keep at least one freedom
    return kinds, row, closing, draw(st.integers(0, 2**32 - 1))


def random_state(system, p_assembled, seed):
    """A consistent state near the assembled configuration, from a random guess."""
    rng = np.random.default_rng(seed + 1)
    p_guess = p_assembled + 0.05 * rng.standard_normal(p_assembled.shape)
    v_guess = rng.standard_normal(p_assembled.shape)
    return system.consistent_state(p_guess, v_guess)


def well_posed(system, p):
    """Whether the rows are independent with some margin at p (a random mechanism may sit near a
    singular configuration, where the multipliers are not unique and no formulation can agree)."""
    s = np.linalg.svd(system.numeric.constraints(p, system.params)[2], compute_uv=False)
    return s.size == 0 or s[-1] > 1e-3 * s[0]


def applicable_forms(system, backend="numpy"):
    forms = {}
    for name in formulations.names():
        try:
            forms[name] = formulations.create(name, system, backend=backend)
        except formulations.CapabilityError:
            continue
    return forms


def check_mechanism(system, bodies, p, v, g_vec, forms):
    """The properties at one consistent state; returns the dependent (v', lambda)."""
    n_b = len(bodies)
    ref = formulations.create("dependent", system, backend="numpy")
    out = ref.evaluate(0.0, ref.initial_state(p, v))
    vdot, lam = np.asarray(out.vdot), np.asarray(out.lam)
    # (a) every formulation gives the same v' (and the same multipliers where it has them)
    scale_a = 1.0 + np.max(np.abs(vdot))
    for name, form in forms.items():
        got = form.evaluate(0.0, form.initial_state(p, v))
        assert np.max(np.abs(np.asarray(got.vdot) - vdot)) < TOL * scale_a, (name, got.vdot, vdot)
        if getattr(got, "lam", None) is not None and np.size(got.lam) == lam.size:
            scale_l = 1.0 + np.max(np.abs(lam), initial=0.0)
            assert np.max(np.abs(np.asarray(got.lam) - lam)) < TOL * scale_l, (name, got.lam, lam)
    resolved = formulations.reactions(system, 0.0, p, v, as_dict=False)
    assert np.max(np.abs(resolved - lam), initial=0.0) < TOL * (1.0 + np.max(np.abs(lam), initial=0.0))
    # (b) the dynamics with these multipliers, and the constraint rows at acceleration level
    M, d, f0, F_lam, C, xi, A, pdd2 = system.numeric.dynamics(0.0, p, v, system.params)
    reaction = -C.T @ lam + F_lam @ lam  # generalized reaction forces on the bodies
    newton_euler_per_body(bodies, g_vec, vdot, reaction, M, d, f0)
    scale_c = 1.0 + np.max(np.abs(C), initial=0.0) * np.max(np.abs(vdot)) + np.max(np.abs(xi), initial=0.0)
    assert np.max(np.abs(C @ vdot + xi), initial=0.0) < TOL * scale_c
    return vdot, lam


def newton_euler_per_body(bodies, g_vec, vdot, reaction, M, d, f0):
    """Body i (rows 3i..3i+2: its centre's x, y and its angle): Newton m a_G = m g + F and Euler
    J phi'' = tau, with (F, tau) the reactions -C^T lambda on that body. The model's M, d and f0 are
    checked to be exactly those of free bodies (blocks diag(m, m, J), no velocity terms in absolute
    coordinates, gravity only), so the identity is Newton-Euler body by body, not a restatement."""
    for i, (m, J) in enumerate(bodies):
        rows = slice(3 * i, 3 * i + 3)
        inertia = np.diag([m, m, J])
        applied = np.array([m * g_vec[0], m * g_vec[1], 0.0])
        block = np.zeros((3, M.shape[1]))
        block[:, rows] = inertia
        assert np.allclose(M[rows, :], block, rtol=0, atol=1e-12 * np.max(np.abs(M)))
        assert np.allclose(f0[rows], applied, rtol=0, atol=1e-12 * 10 * m)
        assert np.max(np.abs(d[rows])) < 1e-12 * (1.0 + np.max(np.abs(M)) * np.max(np.abs(vdot)))
        momentum_rate = inertia @ vdot[rows] + d[rows]
        force = applied + reaction[rows]
        scale = 1.0 + max(np.max(np.abs(momentum_rate)), np.max(np.abs(force)), np.max(np.abs(reaction)))
        assert np.max(np.abs(momentum_rate - force)) < TOL * scale, (i, momentum_rate, force)


def _run(structure, backend="numpy"):
    kinds, row, closing, seed = structure
    system, bodies, p0, g_vec = build_mechanism(kinds, row, closing, seed)
    p, v = random_state(system, p0, seed)
    assume(well_posed(system, p))
    forms = applicable_forms(system, backend)
    assert "dependent" in forms
    vdot, lam = check_mechanism(system, bodies, p, v, g_vec, forms)
    return system, p, v, vdot, lam


@settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(structure=mechanisms())
def test_random_chains_formulations_agree_and_bodies_balance(structure):
    """Every applicable formulation gives the dependent accelerations (and multipliers), the
    resolved reactions equal the dependent multipliers, each body obeys Newton-Euler under them
    and the acceleration-level rows hold."""
    _run(structure)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(structure=mechanisms(max_bodies=5))
def test_random_chains_many(structure):
    """The same properties on more and larger chains (up to 5 bodies)."""
    _run(structure)


def test_perturbed_multipliers_break_newton_euler():
    """The Newton-Euler check can fail: a multiplier off by 1e-6 of the scale unbalances a body."""
    system, bodies, p0, g_vec = build_mechanism(("revolute", "prismatic", "revolute"), "knife edge", True, 7)
    p, v = random_state(system, p0, 7)
    form = formulations.create("dependent", system)
    out = form.evaluate(0.0, form.initial_state(p, v))
    M, d, f0, F_lam, C, xi, A, pdd2 = system.numeric.dynamics(0.0, p, v, system.params)
    lam = np.asarray(out.lam)
    newton_euler_per_body(bodies, g_vec, out.vdot, -C.T @ lam, M, d, f0)
    for k in range(lam.size):
        bad = lam.copy()
        bad[k] += 1e-6 * (1.0 + np.max(np.abs(lam)))
        with pytest.raises(AssertionError):
            newton_euler_per_body(bodies, g_vec, out.vdot, -C.T @ bad, M, d, f0)


@pytest.mark.slow
@pytest.mark.xdist_group("compiled")
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(structure=mechanisms(max_bodies=4))
def test_random_chains_compiled_agrees_with_numpy(structure):
    """The compiled backend gives the numpy accelerations and multipliers of every formulation."""
    pytest.importorskip("numba")
    system, p, v, vdot, lam = _run(structure)
    for name, form in applicable_forms(system, "compiled").items():
        got = form.evaluate(0.0, form.initial_state(p, v))
        assert np.max(np.abs(np.asarray(got.vdot) - vdot)) < TOL * (1.0 + np.max(np.abs(vdot))), name
        if getattr(got, "lam", None) is not None and np.size(got.lam) == lam.size:
            assert np.max(np.abs(np.asarray(got.lam) - lam)) < TOL * (1.0 + np.max(np.abs(lam))), name
