"""Suslov's problem: a rigid body turning about a fixed point whose angular velocity has no
component along an axis fixed in the body.

p = (psi, phi, theta): the body's attitude R = Rz(psi) Rx(phi) Ry(theta) (Tait-Bryan angles z-x-y,
singular at phi = +-pi/2); v = p'. The body's inertia about the fixed point, in body axes, is
I = [[I1, 0, I13], [0, I2, 0], [I13, 0, I3]]: the constraint axis e3 is not a principal axis. With
omega = (R^T R')^v the body angular velocity,
  Suslov constraint moment   omega . e3 = 0
(the multiplier is the moment about e3 that keeps it). No forces act: the energy
E = (I1 omega1^2 + I2 omega2^2) / 2 is conserved, and Euler's equations with the constraint moment,
I1 omega1' = -I13 omega1 omega2 and I2 omega2' = I13 omega1^2, have the closed form
(``angular_velocity``): from omega(0) = (w, 0, 0),
  omega1 = w sech(k t),   omega2 = c tanh(k t),   c = w sqrt(I1 / I2),   k = I13 c / I1.
Every motion goes from a steady rotation about -e2 to one about +e2 (Fedorov & Kozlov 1995; Bloch,
Nonholonomic Mechanics and Control, section 1.8): the flow keeps the energy and is reversible
(v -> -v), but does not keep any volume, so that the rotations attract and repel the motions
around them.

The default attitude and spin, w = 2 rad/s about e1 from R = I, keep phi within [0, 0.83) rad for
all time (it settles near 0.81 rad): the angles stay away from their singularity at pi/2 while the
body spins up about e2.
"""
import numpy as np
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual
from ._rotations import Rx, Ry, Rz

NAME = "suslov"
SPIN = 2.0  # rad/s, omega1 at t = 0


def build():
    psi, phi, theta = sp.symbols("psi phi theta", real=True)
    rates = sp.symbols("psi_dot phi_dot theta_dot", real=True)
    I1, I2, I3, I13 = sp.symbols("I1 I2 I3 I13", positive=True)
    omega = body_angular_velocity((psi, phi, theta), rates)
    inertia = sp.Matrix([[I1, 0, I13], [0, I2, 0], [I13, 0, I3]])
    T = (omega.T * inertia * omega)[0, 0] / 2
    params = (Parameter(I1, 1.0, "kg m^2", "moment of inertia about e1"),
              Parameter(I2, 1.5, "kg m^2", "moment of inertia about e2"),
              Parameter(I3, 5.0, "kg m^2", "moment of inertia about e3, the constraint axis"),
              Parameter(I13, 2.0, "kg m^2", "product of inertia of e1 and e3 (I1 I3 > I13^2)"))
    return from_lagrangian(
        NAME, (psi, phi, theta), T, 0, velocities=rates,
        nonholonomic=[("Suslov constraint moment", omega[2])],
        parameters=params, default_p=(0, 0, 0), default_v=(0, SPIN, 0),  # omega = (phi', theta', psi') at R = I
        description=__doc__,
        reference="Fedorov & Kozlov, Various aspects of n-dimensional rigid body dynamics, 1995; Bloch, "
                  "Nonholonomic Mechanics and Control, 2003, section 1.8",
        visuals=(Visual("body", "box", (sp.Rational(6, 5), sp.Rational(4, 5), sp.Rational(2, 5)), sp.zeros(3, 1),
                        Rz(psi) * Rx(phi) * Ry(theta), colour="#2471a3"),))


def body_angular_velocity(angles, rates):
    """omega (3, 1) in body axes of R = Rz(psi) Rx(phi) Ry(theta), (R^T R')^v: each rate about its
    own axis, carried into the body axes by the rotations that follow it."""
    psi, phi, theta = angles
    psi_dot, phi_dot, theta_dot = rates
    return (Ry(theta).T * (Rx(phi).T * sp.Matrix([0, 0, psi_dot]) + sp.Matrix([phi_dot, 0, 0]))
            + sp.Matrix([0, theta_dot, 0]))


def angular_velocity(t, I1, I2, I13, w=SPIN):
    """The closed form (module docstring): omega (N, 3) in rad/s at times t (N,) in s, from
    omega(0) = (w, 0, 0)."""
    t = np.asarray(t, float)
    c = w * np.sqrt(I1 / I2)
    k = I13 * c / I1
    return np.stack([w / np.cosh(k * t), c * np.tanh(k * t), np.zeros_like(t)], axis=1)
