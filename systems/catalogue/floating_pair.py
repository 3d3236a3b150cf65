"""Two free-floating bars linked by one spherical joint, no ground and no gravity.

After A. Mueller, *Is there an optimal choice of configuration space for Lie group integration
schemes applied to constrained MBS?*, example 5.3: the bodies of the spherical double pendulum
(0.3 x 0.05 x 0.01 m aluminium bars, 0.405 kg each) with only the joint between them, the +x end
of bar 1 held to the -x end of bar 2. Per body p_i = (e0..e3, x, y, z) at the centre of mass and
v_i = (omega, u), omega in body axes, u in body axes (``velocity="twist"``) or world axes
(``velocity="hybrid"``). Multipliers: the joint's force on bar 1 (minus its force on bar 2), world
axes, N.

Default state: both bars along the world x axis, bar 1's centre at rest at (0.15, 0, 0) m,
angular velocities (0, 2, 5) rad/s and (3, -4, 2) rad/s in body axes; bar 2's centre velocity
follows from the joint. Linear and angular momentum and the kinetic energy are conserved.
"""
import sympy as sp

from ..builders.body_frames import from_body_frames, spherical_joint
from ..description import Embedding
from ._boxes import box, linear_velocity, reduced_orientation
from .spherical_double_pendulum import OMEGA0, SIDES

NAME = "floating_pair"


def build(velocity="twist"):
    a = SIDES[0]
    bar1, bar2 = box("bar1", *SIDES, velocity), box("bar2", *SIDES, velocity)
    back, front = sp.Matrix([-a / 2, 0, 0]), sp.Matrix([a / 2, 0, 0])
    q1, w1, G1, R1 = reduced_orientation("bar1")
    q2, w2, G2, R2 = reduced_orientation("bar2")
    c1 = sp.Matrix(sp.symbols("c1_x c1_y c1_z", real=True))
    c1dot = sp.symbols("c1_xdot c1_ydot c1_zdot", real=True)
    r2 = c1 + R1 * front - R2 * back
    embedding = Embedding(coordinates=(*q1, *c1, *q2), g=sp.Matrix([*q1, *c1, *q2, *r2]),
                          inverse=sp.Matrix([*bar1.e, *bar1.r, *bar2.e]), velocities=(*w1, *c1dot, *w2),
                          A_q=sp.diag(G1, sp.eye(3), G2), unit_norm_blocks=((0, 1, 2, 3), (7, 8, 9, 10)))
    om1, om2 = sp.Matrix(OMEGA0[0]), sp.Matrix(OMEGA0[1])
    u2 = om1.cross(front) - om2.cross(back)
    return from_body_frames(
        NAME, [bar1, bar2], holonomic=spherical_joint("joint", bar1, front, bar2, back),
        default_p=(1, 0, 0, 0, a / 2, 0, 0, 1, 0, 0, 0, 3 * a / 2, 0, 0),
        default_v=(*om1, 0, 0, 0, *om2, *linear_velocity(bar2, sp.eye(3), u2)), embedding=embedding,
        description=__doc__,
        reference="A. Mueller, Is there an optimal choice of configuration space for Lie group integration "
                  "schemes applied to constrained MBS?, 5.3")
