"""Runs in which contacts open, close on impact, slide and roll (systems.contacts):

    event_driven    phase by phase, each ended by a located event (formulations.simulate_contacts)
    moreau_jean     fixed time steps with any number of impacts per step (scheme="moreau-jean")
"""
from .event_driven import simulate_contacts

__all__ = ["simulate_contacts"]
