"""A symmetric top whose tip is held at a fixed distance from a fixed point (Haug & Pavesic).

p = (x, y, z, e0, e1, e2, e3): centroid and orientation as Euler parameters (no orientation is
singular); v = (v_x, v_y, v_z, omega_1, omega_2, omega_3): centroid velocity (world axes) and
angular velocity in body axes. The tip lies 1 m from the centroid along the body's -z axis and is
held 1 m from the origin:
  tip rod force   Phi = |r - R(e) (0, 0, 1)| - 1   (the reaction pulls the tip towards the origin)
so five degrees of freedom remain. Mass 30 kg, inertia diag(90, 90, 30) kg m^2 about the centroid,
gravity along -z.

Released upright — centroid at the origin, tip at (0, 0, -1) — with spin rate `spin` about the
body z axis and transverse rates `perturbation` about x and y. Haug & Pavesic report that the top
stays up for spin rates above about 13.5 rad/s. Reference: E. J. Haug, P. Pavesic, "Mechanical
system kinematics and dynamics on differentiable manifolds", section 7.1.
"""
import sympy as sp

from ..builders.rigid_body import RigidBody, from_rigid_bodies
from ..description import Parameter
from ._rotations import quaternion_rates_body, rotation_from_quaternion

NAME = "spinning_top"


def build():
    x, y, z = sp.symbols("x y z", real=True)
    e = sp.symbols("e0:4", real=True)
    vx, vy, vz, w1, w2, w3 = sp.symbols("v_x v_y v_z omega_1 omega_2 omega_3", real=True)
    m, Jt, Ja, g, spin = sp.symbols("m J_t J_a g spin", positive=True)
    eps = sp.Symbol("epsilon", nonnegative=True)
    p, v = (x, y, z, *e), (vx, vy, vz, w1, w2, w3)
    A = sp.diag(sp.eye(3), quaternion_rates_body(e))
    R = rotation_from_quaternion(e)
    top = RigidBody("top", m, sp.diag(Jt, Jt, Ja), sp.Matrix([x, y, z]), rotation=R,
                    angular_velocity=sp.Matrix([w1, w2, w3]))
    s = sp.Matrix([x, y, z]) - R * sp.Matrix([0, 0, 1])
    params = (Parameter(m, 30.0, "kg", "mass"), Parameter(Jt, 90.0, "kg m^2", "transverse moment of inertia"),
              Parameter(Ja, 30.0, "kg m^2", "axial moment of inertia"),
              Parameter(g, 9.81, "m/s^2", "gravitational acceleration"),
              Parameter(spin, 20.0, "rad/s", "initial spin rate about the body z axis"),
              Parameter(eps, 1e-6, "rad/s", "initial transverse rates (the perturbation)", alias="perturbation"))
    return from_rigid_bodies(
        NAME, p, v, A, [top], gravity=(0, 0, -g),
        holonomic=[("tip rod force", sp.sqrt((s.T * s)[0, 0]) - 1)],
        parameters=params, multipliers=(sp.Symbol("lambda_tip", real=True),),
        default_p=(0, 0, 0, 1, 0, 0, 0), default_v=(eps, -eps, 0, eps, eps, spin),
        unit_norm_blocks=((3, 4, 5, 6),), description=__doc__,
        reference="Haug & Pavesic, Mechanical system kinematics and dynamics on differentiable manifolds, 7.1")
