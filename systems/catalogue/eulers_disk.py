"""Euler's disk: a heavy coin rolling round on its rim on a table. It sinks towards lying flat while
its precession speeds up without bound, and slides once friction no longer holds its rolling.

The rolling disc's description (p = (x, y, z, psi, theta, phi), yaw, lean from upright and spin;
v = (v_x, v_y, v_z, omega_1, omega_2, omega_3), see rolling_disc), as a thick steel disc with a
friction coefficient mu and rolling resistance: a moment -delta N w / |w| against the horizontal part
w of its angular velocity (N the normal force, delta its lever arm; smoothed below |w| = 1e-3 rad/s),
the loss that lowers it. The
contact "ground" (normal force, longitudinal and lateral friction forces) holds while N >= 0 and
the friction stays within mu N; formulations.simulate_contacts lets it slide where it does not.

Default state: rolling steadily round a small circle, leaned 1 rad from upright (alpha = pi/2 - theta
= 0.57 rad from flat), its plane turning at psi' = -40 rad/s, near the motion whose centre stays put.
For a thin disc in that motion the precession rate is Omega ~ sqrt(4 g / (r alpha)) at small alpha
(Moffatt). Rolling resistance takes energy each turn, alpha sinks and Omega grows; the friction the
rolling needs grows too (the centre of a thick disc circles at about h/2, so the ratio to the normal
force grows like h / (r alpha)), so that with mu = 0.3 the disc starts to slide at alpha ~ 0.45. The
lean frame's 1/cos(theta) makes the rows singular flat on the table (the whole rim touches there): a
run ends with an event at a small alpha (docs: when constraints let go).

Reference: H. K. Moffatt, "Euler's disk and its finite-time singularity", Nature 404 (2000) 833;
rolling and sliding friction in the disc's contact: Le Saux, Leine & Glocker, J. Nonlinear Sci. 15
(2005) 27.
"""
import sympy as sp

from .rolling_disc import disc_system, steady_turning

NAME = "eulers_disk"


def build():
    return disc_system(NAME, values={"m": 0.4, "r": 0.0375, "thickness": 0.012, "rolling_resistance": 5e-5,
                                     "mu": 0.3},
                       resistance="horizontal", default=_precessing, families=(), description=__doc__,
                       reference="Moffatt, Nature 404 (2000); Le Saux, Leine & Glocker, J. Nonlinear Sci. 15 (2005)")


def _precessing(r, h, g):
    """Steady rolling on a small circle at lean 1 rad from upright, the plane turning at -40 rad/s: near
    the motion whose centre stays put (rolling_disc.steady_turning)."""
    return steady_turning(r, h, g, sp.Integer(1), -40, sp)
