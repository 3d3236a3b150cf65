"""A heavy top: an aluminium box on a spherical joint at a fixed pivot, centre of mass offset.

After A. Mueller, *Is there an optimal choice of configuration space for Lie group integration
schemes applied to constrained MBS?*, example 5.1 (whose numbers were lost in the text used here;
the values below are chosen and stated). The box has sides 0.1 x 0.2 x 0.4 m along its body axes
x, y, z (mass 21.6 kg, central inertia diag(0.36, 0.306, 0.09) kg m^2); the pivot is the centre of
its bottom face, rho = (0, 0, -0.2) m from the centre of mass in body axes, fixed at the world
origin. p = (e0..e3, x, y, z) of the body frame at the centre of mass; v = (omega, u) with omega in
body axes and u the centre's velocity in body axes (``velocity="twist"``, the body-fixed twist of
SE(3)) or world axes (``velocity="hybrid"``, SO(3) x R^3). Constraint: the pivot point stays at the
origin (three rows; each multiplier is the pivot's force on the box along a world axis, N).

Default state: body axes aligned with the world, centre 0.2 m above the pivot, angular velocity
(0, 5, 150) rad/s in body axes: a fast spin about the long axis (the smallest moment of inertia
about the pivot, a stable spin) with a transverse rate, so the box precesses and nutates in space
(kinetic energy about 1 kJ). The paper runs its comparison without gravity (g = 0); the catalogue
default is g = 9.81 m/s^2.
"""
import sympy as sp

from ..builders.body_frames import from_body_frames, spherical_joint
from ..description import Embedding
from ._boxes import box, gravity_parameter, linear_velocity, reduced_orientation

NAME = "heavy_top"
SIDES = (0.1, 0.2, 0.4)
PIVOT = (0.0, 0.0, -0.2)          # from the centre of mass, body axes
OMEGA0 = (0.0, 5.0, 150.0)        # rad/s, body axes


def build(velocity="twist"):
    top = box("top", *SIDES, velocity)
    g, g_par = gravity_parameter(9.81)
    rho = sp.Matrix(PIVOT)
    q, w, G, R = reduced_orientation("top")
    embedding = Embedding(coordinates=q, g=sp.Matrix([*q, *(-R * rho)]), inverse=sp.Matrix(top.e), velocities=w,
                          A_q=G, unit_norm_blocks=((0, 1, 2, 3),))
    omega = sp.Matrix(OMEGA0)
    u_world = -omega.cross(rho)  # at R = 1: the pivot at rest
    return from_body_frames(
        NAME, [top], gravity=(0, 0, -g), holonomic=spherical_joint("pivot", top, PIVOT),
        parameters=(g_par,), default_p=(1, 0, 0, 0, *(-rho)),
        default_v=(*omega, *linear_velocity(top, sp.eye(3), u_world)), embedding=embedding,
        multipliers=sp.symbols("lambda_x lambda_y lambda_z", real=True), description=__doc__,
        reference="A. Mueller, Is there an optimal choice of configuration space for Lie group integration "
                  "schemes applied to constrained MBS?, 5.1")
