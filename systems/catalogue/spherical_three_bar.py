"""A closed-loop spherical three-bar linkage: two bars on ground joints, linked to each other.

After A. Mueller, *Is there an optimal choice of configuration space for Lie group integration
schemes applied to constrained MBS?*, example 5.4 (whose equations and numbers are not in the text
used here; this linkage is chosen and stated). The ground is the third bar: spherical joints hold
bar 1's -x end at A = (0, 0, 0) and bar 2's +x end at B = (0.3, 0, 0) m, and join bar 1's +x end
to bar 2's -x end (joint 2). Both bars are the 0.3 x 0.05 x 0.01 m aluminium boxes of the
spherical double pendulum, so the joints form an equilateral triangle. Three degrees of freedom
remain: the triangle turns about the line AB, and each bar spins about its own axis. Per body
p_i = (e0..e3, x, y, z) at the centre of mass and v_i = (omega, u), omega in body axes, u in body
axes (``velocity="twist"``) or world axes (``velocity="hybrid"``). Multipliers: the forces of base
joint 1 on bar 1, of joint 2 on bar 1 (minus that on bar 2) and of base joint 3 on bar 2, world
axes, N. Gravity along -z.

Default state: the triangle horizontal (joint 2 at (0.15, 0.26, 0) m), turning about AB at
2 rad/s; bar 1 spins at 5 rad/s and bar 2 at -3 rad/s about their axes.
"""
import sympy as sp

from ..builders.body_frames import from_body_frames, spherical_joint
from ._boxes import box, gravity_parameter, linear_velocity
from ._rotations import Rz
from .spherical_double_pendulum import SIDES

NAME = "spherical_three_bar"
TURN, SPINS = 2.0, (5.0, -3.0)  # rad/s


def build(velocity="twist"):
    a = SIDES[0]
    bar1, bar2 = box("bar1", *SIDES, velocity), box("bar2", *SIDES, velocity)
    g, g_par = gravity_parameter(9.81)
    back, front = sp.Matrix([-a / 2, 0, 0]), sp.Matrix([a / 2, 0, 0])
    B = sp.Matrix([a, 0, 0])
    R1, R2 = Rz(sp.pi / 3), Rz(-sp.pi / 3)
    r1, r2 = R1 * front, B - R2 * front
    quaternion1 = (sp.cos(sp.pi / 6), 0, 0, sp.sin(sp.pi / 6))
    quaternion2 = (sp.cos(sp.pi / 6), 0, 0, -sp.sin(sp.pi / 6))
    ex = sp.Matrix([1, 0, 0])
    w1 = TURN * ex + SPINS[0] * R1 * ex  # world axes; every rotation of bar 1 passes through A
    w2 = TURN * ex + SPINS[1] * R2 * ex  # and of bar 2 through B
    u1, u2 = w1.cross(r1), w2.cross(r2 - B)
    return from_body_frames(
        NAME, [bar1, bar2], gravity=(0, 0, -g),
        holonomic=(spherical_joint("base joint 1", bar1, back) + spherical_joint("joint 2", bar1, front, bar2, back)
                   + spherical_joint("base joint 3", bar2, front, anchor=B)),
        parameters=(g_par,), default_p=(*quaternion1, *r1, *quaternion2, *r2),
        default_v=(*(R1.T * w1), *linear_velocity(bar1, R1, u1), *(R2.T * w2), *linear_velocity(bar2, R2, u2)),
        description=__doc__,
        reference="A. Mueller, Is there an optimal choice of configuration space for Lie group integration "
                  "schemes applied to constrained MBS?, 5.4")
