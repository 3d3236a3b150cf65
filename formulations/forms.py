"""The vocabulary shared by formulations and solvers: the forms of the equations a formulation can
give, and the capabilities a solver can offer.

A formulation says which forms it gives (``Formulation.gives``) and which capabilities it needs
from a solver (``Formulation.needs``); a solver says which forms it integrates and which
capabilities it offers (formulations.solvers.base.Solver). ``formulations.solvers.simulate``
matches the two.

Forms, with the formulation methods that serve them (y the formulation's own state):

    EXPLICIT_ODE  y' = F(t, y)                        rhs, accelerations, post_step, project
    COMPILED_ODE  y' = F(t, y) in machine code (backend "compiled"): numba functions and the
                  system's model                                      compiled_model
    INDEX1_DAE    p' = kinematics(y), K(y) [a; lambda] = rhs(y)        saddle
    GGL_DAE       the index-1 rows plus Psi(y_pos) = 0 and G y_vel = 0 (Gear, Gupta & Leimkuhler)
                                                                       saddle, position_constraints
    INDEX3        M v' + d = f - C^T lambda with Phi(p) = 0, C_nh v = 0 on the dependent (p, v)
                                                                       dynamics, accelerations
    LIE_GROUP     (p, v) made of rigid-body blocks, a configuration in SE(3) or SO(3) x R^3 per body
                                                                       rhs (system.bodies)
    VARIATIONAL   the Lagrangian in (p, p') with p' = A v, A square: a discrete Lagrangian and
                  impulses of the constraints (formulations.discrete_lagrangian)      system
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EXPLICIT_ODE = "explicit ODE"
COMPILED_ODE = "compiled explicit ODE"
INDEX1_DAE = "index-1 DAE"
GGL_DAE = "GGL index-2 DAE"
INDEX3 = "index-3 equations"
LIE_GROUP = "Lie-group structure"
VARIATIONAL = "discrete Lagrangian"
FORMS = (EXPLICIT_ODE, COMPILED_ODE, INDEX1_DAE, GGL_DAE, INDEX3, LIE_GROUP, VARIATIONAL)

# capabilities of a solver
ADAPTIVE = "adaptive steps"
DENSE_OUTPUT = "dense output"
EVENTS = "event location"
POST_STEP = "a post-step hook"
STATE_UPDATE = "a projection or a new chart between steps (a post-step hook)"  # every loop with a post-step hook, and the compiled loops
CAPABILITIES = (ADAPTIVE, DENSE_OUTPUT, EVENTS, POST_STEP, STATE_UPDATE)


def not_made_of_bodies(system) -> str:
    """Why ``system`` has no Lie-group structure (its coordinates are not all rigid-body blocks)."""
    return (f"Lie-group integration got system {system.name!r} whose coordinates and velocities are not all "
            f"rigid-body blocks but expected a system built from body frames (systems.builders.body_frames)")


@dataclass(frozen=True)
class StepChange:
    """What a formulation's post-step hook did after an accepted step: the state y to go on from and
    the changes that made it (a projection onto the constraints, a new choice of independent
    velocities, a new chart). The loop counts them into the run's record; the formulation keeps no
    count."""

    y: np.ndarray
    projected: bool = False
    rechosen: bool = False
    charted: bool = False
