"""The rolling disc: a thin disc or a coin rolling without slipping on a horizontal plane.

Blajer's dependent form. p = (x, y, z, psi, theta, phi): centre G and orientation by yaw psi
about the vertical, lean theta about the new horizontal x axis (the rolling direction), spin phi
about the new y axis (the axle); theta = 0 is upright. v = (v_x, v_y, v_z, omega_1, omega_2,
omega_3): centre velocity in world axes and angular velocity in the lean frame (1 rolling
direction, 2 axle, 3 in the disc plane towards the centre). The lean frame is not body-fixed, so
A carries 1/cos(theta): the description is valid until the disc lies flat. Named speeds omega_x,
omega_y, omega_z: the angular velocity in the disc's own axes (turning with the spin phi about the
axle), quasi-velocities for the minimal formulation.

Constraints (the multipliers are forces on the disc at the contact point):
  contact normal force        Phi = r cos(theta) + (h/2) sin(theta) - z  (minus the contact height)
  longitudinal friction force (no slip along the rolling direction)
  lateral friction force      (no slip across it)
The contact is declared (systems.Contact): it holds while the normal force is >= 0 and the friction
forces stay within mu times it; every run checks this and says where it does not.
A coin (thickness h > 0) touches the plane on the rim edge that is lower for theta > 0. Rolling
resistance: a moment -delta N sign(omega_2) about the axle, N the normal force; it makes f
depend on the multiplier, a non-ideal constraint.

Reference: W. Blajer, "A geometrical framework for modeling and simulation of nonholonomic
mechanical systems"; Neimark & Fufaev, Dynamics of Nonholonomic Systems. The upright thin disc
rolling straight at spin rate Omega is stable for Omega > sqrt(g / (3 r)).
"""
import numpy as np
import sympy as sp

from ..builders.rigid_body import Kinematics, RigidBody, from_rigid_bodies
from ..contacts import Contact
from ..description import Embedding, Parameter
from ..families import Outcome, StateFamily, StateVariable
from ..visuals import Visual
from ._rotations import Rx, Ry, Rz

NAME = "rolling_disc"
SMOOTHING = sp.Rational(1, 1000)  # rad/s: the "horizontal" rolling resistance is smooth below this rate


def build():
    return disc_system(NAME, description=__doc__, reference="Blajer (rolling disc); Neimark & Fufaev")


def disc_system(name, *, values=None, resistance="axle", default=None, families=None, description, reference):
    """The disc on the plane, shared with eulers_disk. values: parameter defaults by name (m, r, thickness,
    rolling_resistance, mu); resistance: "axle" (a moment -delta N sign(omega_2) about the axle) or
    "horizontal" (-delta N w / sqrt(|w|^2 + SMOOTHING^2), w the horizontal part of the disc's angular
    velocity in world axes: resistance to rolling about whichever horizontal axis it rolls, smooth where w
    passes zero); default: a function (r, h, g) -> the
    default (p, v) as expressions (default: rolling straight at lean 0.3 rad); families (default:
    rolling and turning)."""
    values = {"m": 1.0, "r": 0.5, "thickness": 0.0, "rolling_resistance": 0.0, "mu": 0.5, **(values or {})}
    x, y, z, psi, theta, phi = sp.symbols("x y z psi theta phi", real=True)
    vx, vy, vz = sp.symbols("v_x v_y v_z", real=True)
    w1, w2, w3 = sp.symbols("omega_1 omega_2 omega_3", real=True)
    m, r, g = sp.symbols("m r g", positive=True)
    h, delta = sp.symbols("h delta", nonnegative=True)
    tau_drive, tau_steer = sp.symbols("tau_drive tau_steer", real=True)
    mu = sp.Symbol("mu", nonnegative=True)
    p, v = (x, y, z, psi, theta, phi), (vx, vy, vz, w1, w2, w3)
    c, s = sp.cos(theta), sp.sin(theta)
    A = sp.diag(sp.eye(3), sp.Matrix([[0, 0, 1 / c], [1, 0, 0], [0, 1, -s / c]]))
    R_lean = Rz(psi) * Rx(theta)
    omega_lean = sp.Matrix([w1, w2, w3])
    N = sp.Symbol("lambda_N", real=True)
    torque = R_lean * sp.Matrix([0, tau_drive, 0]) + sp.Matrix([0, 0, tau_steer])
    if resistance not in ("axle", "horizontal"):
        raise ValueError(f"disc_system got resistance {resistance!r} but expected 'axle' or 'horizontal'")
    if resistance == "axle":
        torque -= R_lean * sp.Matrix([0, delta * N * sp.sign(w2), 0])
    else:  # against the horizontal part of the angular velocity in world axes
        w_h = sp.Matrix((R_lean * omega_lean)[:2] + [0])
        torque -= delta * N * w_h / sp.sqrt(w_h[0] ** 2 + w_h[1] ** 2 + SMOOTHING**2)
    disc = RigidBody("disc", m, sp.diag(m * (r**2 / 4 + h**2 / 12), m * r**2 / 2, m * (r**2 / 4 + h**2 / 12)),
                     sp.Matrix([x, y, z]), rotation=R_lean * Ry(phi),
                     angular_velocity=Ry(phi).T * omega_lean, torque=torque)
    kin = Kinematics(p, v, A)
    e1, e2, e3 = (R_lean[:, i] for i in range(3))
    r_GP = -r * e3 - h / 2 * e2
    lateral = sp.Matrix([-sp.sin(psi), sp.cos(psi), 0])
    params = (Parameter(m, values["m"], "kg", "mass"), Parameter(r, values["r"], "m", "radius"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(h, values["thickness"], "m", "thickness (0: thin disc)", alias="thickness"),
              Parameter(delta, values["rolling_resistance"], "m", "rolling-resistance lever arm of the normal force",
                        alias="rolling_resistance"),
              Parameter(tau_drive, 0.0, "N m", "driving torque about the axle (an input)"),
              Parameter(tau_steer, 0.0, "N m", "steering torque about the vertical (an input)"),
              Parameter(mu, values["mu"], "", "friction coefficient at the contact (checked after each run; "
                        "formulations.simulate_contacts lets it slide)"))
    q = (x, y, psi, theta, phi)
    embedding = Embedding(coordinates=q, g=sp.Matrix([x, y, r * c + h / 2 * s, psi, theta, phi]),
                          inverse=sp.Matrix([x, y, psi, theta, phi]))
    default_p, default_v = (default or _rolling_default)(r, h, g)
    lam_long, lam_lat = sp.symbols("lambda_long lambda_lat", real=True)
    contact = sp.Matrix([x, y, z]) + r_GP
    force = N * sp.Matrix([0, 0, 1]) + lam_long * e1 + lam_lat * lateral  # on the disc at the contact point
    return from_rigid_bodies(
        name, p, v, A, [disc], gravity=(0, 0, -g),
        holonomic=[("contact normal force", r * c + h / 2 * s - z)],
        nonholonomic=[("longitudinal friction force", kin.reaction_row(disc, r_GP, e1)),
                      ("lateral friction force", kin.reaction_row(disc, r_GP, lateral))],
        parameters=params, multipliers=(N, lam_long, lam_lat),
        contacts=[Contact("contact normal force", ("longitudinal friction force", "lateral friction force"), "mu",
                          name="ground")],
        default_p=default_p, default_v=default_v,
        embedding=embedding, independent_velocities=("psi_dot", "theta_dot", "phi_dot"),
        speeds=dict(zip(("omega_x", "omega_y", "omega_z"), Ry(phi).T * omega_lean)),
        description=description, reference=reference, families=(ROLLING, TURNING) if families is None else families,
        visuals=_visuals(disc, r, h, m * g, contact, force))


def _rolling_default(r, h, g):
    """Rolling straight at lean 0.3 rad, spin sin(0.3) + 8 rad/s about the axle and cos(0.3) about e_3."""
    t0 = sp.Rational(3, 10)
    omega3 = sp.cos(t0)
    return ((0, 0, r * sp.cos(t0) + h / 2 * sp.sin(t0), 0, t0, 0),
            (r * (sp.sin(t0) + 8) - h * omega3 / 2, 0, 0, 0, sp.sin(t0) + 8, omega3))


def _visuals(disc, r, h, weight, contact, force):
    """The disc (drawn at least r / 25 thick), a bar across it that shows its spin, the contact point
    (to trail: its path on the ground), the contact force (the weight drawn r long) and the ground."""
    width = sp.Max(h, r / 25)
    return (Visual.on_body(disc, "cylinder", (r, width), colour="#2471a3"),
            Visual.on_body(disc, "box", (1.8 * r, 1.2 * width, r / 8), colour="#d68910", name="spin marking"),
            Visual("contact point", "point", (r / 30,), contact, colour="#2c3e50"),
            Visual("contact force", "arrow", (r / weight,), contact, end=force, colour="#c0392b"),
            Visual("ground", "plane", (8 * r,), (0, 0, 0), colour="#bfc9ca"))


def _rolling(system, values):
    """Rolling straight along x at the spin rate about the axle, leaned by ``lean``, no yaw or lean
    rate: the upright member (lean 0) is the steady motion whose stability threshold is
    sqrt(g / (3 r)) for the thin disc."""
    r, h = system.parameter_dict["r"], system.parameter_dict["thickness"]
    lean, spin = values["lean"], values["spin"]
    p = (0.0, 0.0, r * np.cos(lean) + h / 2 * np.sin(lean), 0.0, lean, 0.0)
    v = (r * spin, 0.0, 0.0, 0.0, spin, 0.0)
    return p, v, ("psi", "theta", "phi", "omega_1", "omega_2", "omega_3")


ROLLING = StateFamily(
    "rolling", (StateVariable("lean", 0.0, "rad", "initial lean from upright"),
                StateVariable("spin", 8.0, "rad/s", "initial spin rate about the axle")),
    _rolling, "rolling straight, leaned and spinning", outcome=Outcome("theta", 1.0, "fallen"))


def _turning(system, values):
    """Steady turning at constant lean and yaw rate: no lean rate, omega_3 = psi' cos(lean) and the
    spin from the moment balance about the centre, resolved along the rolling direction e_1,

        I_1 omega_3^2 tan(lean) - I_3 omega_2 omega_3 = m r (V omega_3 + g sin(lean))
                                                         - (h/2) m (g cos(lean) - V omega_3 tan(lean)),

    V = r omega_2 - (h/2) omega_3 the speed of the centre along e_1, I_1 = m (r^2/4 + h^2/12) and
    I_3 = m r^2 / 2 (for h = 0: omega_2 = (I_1 omega_3^2 tan - m g r sin) / ((I_3 + m r^2) omega_3))."""
    r, h, g = (system.parameter_dict[k] for k in ("r", "thickness", "g"))
    lean, yaw_rate = values["lean"], values["yaw_rate"]
    if yaw_rate == 0.0:
        raise ValueError("steady turning of rolling_disc got yaw_rate = 0 but expected a turning rate (rolling "
                         "straight upright is the family 'rolling' at lean 0)")
    return (*steady_turning(r, h, g, lean, yaw_rate, np), ("psi", "theta", "phi", "omega_1", "omega_2", "omega_3"))


def steady_turning(r, h, g, lean, yaw_rate, lib=np):
    """(p, v) of steady turning (``_turning``), in numbers (lib=numpy) or expressions (lib=sympy)."""
    c, s, t = lib.cos(lean), lib.sin(lean), lib.tan(lean)
    w3 = yaw_rate * c
    I1, I3 = r**2 / 4 + h**2 / 12, r**2 / 2  # per unit mass
    w2 = (I1 * w3**2 * t + r * h / 2 * w3**2 + h**2 / 4 * w3**2 * t - g * r * s + h / 2 * g * c) / (
        w3 * (I3 + r**2 + h * r / 2 * t))
    return (0, 0, r * c + h / 2 * s, 0, lean, 0), (r * w2 - h / 2 * w3, 0, 0, 0, w2, w3)


TURNING = StateFamily(
    "turning", (StateVariable("lean", 0.2, "rad", "lean from upright"),
                StateVariable("yaw_rate", -1.0, "rad/s", "turning rate psi' (negative: towards the lean)")),
    _turning, "steady turning on a circle at constant lean and yaw rate", outcome=Outcome("theta", 1.0, "fallen"))
