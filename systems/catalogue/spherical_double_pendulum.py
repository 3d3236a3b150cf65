"""A spherical double pendulum: two aluminium bars linked by spherical joints, the first to the ground.

After A. Mueller, *Is there an optimal choice of configuration space for Lie group integration
schemes applied to constrained MBS?*, example 5.2 (dimensions chosen here): two equal flat boxes
of 0.3 x 0.05 x 0.01 m along their body axes x, y, z (0.405 kg each). Joint 1 holds the -x end of
bar 1, rho = (-0.15, 0, 0) m from its centre, at the world origin; joint 2 joins the +x end of bar 1
to the -x end of bar 2. Per body p_i = (e0..e3, x, y, z) at the centre of mass and v_i =
(omega, u), omega in body axes, u the centre's velocity in body axes (``velocity="twist"``) or
world axes (``velocity="hybrid"``). Multipliers: joint 1's force on bar 1 and joint 2's force on
bar 1 (minus its force on bar 2), world axes, N. Gravity along -z.

Default state: both bars along the world x axis (horizontal), body axes aligned with the world,
angular velocities (0, 2, 5) rad/s (bar 1) and (3, -4, 2) rad/s (bar 2) in body axes; the
centre velocities follow from the joints.
"""
import sympy as sp

from ..builders.body_frames import from_body_frames, spherical_joint
from ..description import Embedding
from ._boxes import box, gravity_parameter, linear_velocity, reduced_orientation

NAME = "spherical_double_pendulum"
SIDES = (0.3, 0.05, 0.01)
OMEGA0 = ((0.0, 2.0, 5.0), (3.0, -4.0, 2.0))


def build(velocity="twist"):
    a = SIDES[0]
    bar1, bar2 = box("bar1", *SIDES, velocity), box("bar2", *SIDES, velocity)
    g, g_par = gravity_parameter(9.81)
    back, front = sp.Matrix([-a / 2, 0, 0]), sp.Matrix([a / 2, 0, 0])
    q1, w1, G1, R1 = reduced_orientation("bar1")
    q2, w2, G2, R2 = reduced_orientation("bar2")
    r1 = -R1 * back
    r2 = r1 + R1 * front - R2 * back
    embedding = Embedding(coordinates=(*q1, *q2), g=sp.Matrix([*q1, *r1, *q2, *r2]),
                          inverse=sp.Matrix([*bar1.e, *bar2.e]), velocities=(*w1, *w2), A_q=sp.diag(G1, G2),
                          unit_norm_blocks=((0, 1, 2, 3), (4, 5, 6, 7)))
    om1, om2 = sp.Matrix(OMEGA0[0]), sp.Matrix(OMEGA0[1])
    u1 = -om1.cross(back)                         # at R = 1: joint 1 at rest
    u2 = u1 + om1.cross(front) - om2.cross(back)  # joint 2 common to both bars
    return from_body_frames(
        NAME, [bar1, bar2], gravity=(0, 0, -g),
        holonomic=spherical_joint("joint 1", bar1, back) + spherical_joint("joint 2", bar1, front, bar2, back),
        parameters=(g_par,), default_p=(1, 0, 0, 0, a / 2, 0, 0, 1, 0, 0, 0, 3 * a / 2, 0, 0),
        default_v=(*om1, *linear_velocity(bar1, sp.eye(3), u1), *om2, *linear_velocity(bar2, sp.eye(3), u2)),
        embedding=embedding, description=__doc__,
        reference="A. Mueller, Is there an optimal choice of configuration space for Lie group integration "
                  "schemes applied to constrained MBS?, 5.2")
