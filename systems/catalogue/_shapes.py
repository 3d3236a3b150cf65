"""Shapes shared by catalogue systems that are not built from rigid bodies (systems.visuals): a
point mass on a rod, a blade on the ground, an upright rolling disc. Planar systems are drawn in
the vertical x-z plane of a 3D scene (their y is the scene's z) or, when they move on the ground,
in its x-y plane."""
import sympy as sp

from ..visuals import Visual
from ._rotations import Ry, Rz


def point_pendulum(x, y, L):
    """A bob at (x, y) on a rod from the pivot at the origin (vertical plane), and the pivot."""
    return (Visual("rod", "link", (L / 60,), (0, 0, 0), end=(x, 0, y), colour="#5d6d7e"),
            Visual("bob", "sphere", (L / 12,), (x, 0, y), colour="#c0392b"),
            Visual("pivot", "sphere", (L / 40,), (0, 0, 0), colour="#2c3e50"))


def blade(x, y, heading, length, colour="#2471a3"):
    """A blade of ``length`` with its contact at (x, y) on the ground, along ``heading`` (from x)."""
    return Visual("blade", "box", (length, length / 20, length / 6), (x, y, length / 12), Rz(heading), colour=colour)


def blade_force(heading, multiplier):
    """The force on a blade along its normal, in its plane's axes (3,): the row sin(heading) x' -
    cos(heading) y' = n . v_P with n = (sin, -cos, 0), so the force is -lambda n (DESIGN section 2)."""
    return -multiplier * sp.Matrix([sp.sin(heading), -sp.cos(heading), 0])


def ground(size):
    return Visual("ground", "plane", (size,), (0, 0, 0), colour="#bfc9ca")


def upright_disc(x, y, heading, spin, r):
    """A disc of radius r standing on its contact point (x, y), rolling along ``heading``, with a bar
    across it that turns with ``spin`` (about its axle, the disc's y axis)."""
    R = Rz(heading) * Ry(spin)
    centre = (x, y, r)
    return (Visual("disc", "cylinder", (r, r / 25), centre, R, colour="#2471a3"),
            Visual("spin marking", "box", (1.8 * r, 1.2 * r / 25, r / 8), centre, R, colour="#d68910"))
