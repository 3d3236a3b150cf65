"""Results of the workbench: trajectories with their stats and constraint errors, and the
constraint reactions at a state (immutable objects with named fields)."""
from .ensemble import EnsembleResult
from .reactions import reactions
from .status import LoopStop, Status
from .trajectory import ConstraintErrors, EventRecord, Stats, Trajectory

__all__ = ["EnsembleResult", "Trajectory", "Stats", "ConstraintErrors", "EventRecord", "reactions", "Status", "LoopStop"]
