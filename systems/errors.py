"""Exceptions raised by the system description and its tools."""


class SystemDescriptionError(ValueError):
    """A system description is malformed; the message lists every problem found."""

    def __init__(self, system_name, problems):
        self.system_name = system_name
        self.problems = list(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        count = len(self.problems)
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"system {system_name!r}: {count} {noun} in the description:\n{lines}")


class InconsistentStateError(ValueError):
    """A state violates the constraints and could not be (or was not asked to be) repaired."""


class UnknownNameError(ValueError):
    """A name (system, parameter, coordinate, formulation ...) is not known; lists the valid ones."""

    def __init__(self, kind, name, valid):
        self.kind, self.name, self.valid = kind, name, tuple(valid)
        super().__init__(f"unknown {kind} {name!r}; expected one of: {', '.join(self.valid)}")
