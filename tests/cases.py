"""The formulation lists the tests parametrize over, in one place: every registered formulation, and
which of them apply to a system (the others refuse it with a CapabilityError at create)."""
import formulations
import systems

FORMULATIONS = formulations.names()  # "dependent", "reduced", "minimal", "manifold", ...


def applicable(system, names=FORMULATIONS) -> list:
    """The formulations of ``names`` that ``system`` (a System or a catalogue name) can be created in."""
    system = systems.as_system(system)
    found = []
    for name in names:
        try:
            formulations.create(name, system, backend="numpy")
        except formulations.CapabilityError:
            continue
        found.append(name)
    return found
