"""Builders that turn a Lagrangian or a set of rigid bodies into a System."""
from .body_frames import BodyFrame, from_body_frames, spherical_joint
from .common import SlowBuildWarning, affine_rows, pfaffian_matrix
from .contact import rolling_contact
from .frames import Frame, Point
from .lagrangian import from_lagrangian, velocity_symbols
from .rigid_body import Kinematics, RigidBody, from_rigid_bodies

__all__ = ["from_lagrangian", "velocity_symbols", "from_rigid_bodies", "RigidBody", "Kinematics",
           "pfaffian_matrix", "affine_rows", "from_body_frames", "BodyFrame", "spherical_joint", "Frame", "Point",
           "rolling_contact", "SlowBuildWarning"]
