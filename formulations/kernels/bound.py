"""A formulation's compiled functions with its system's model bound (formulations.kernels.compiled):
every function takes the model first — a named tuple of the system's sizes, flags, sparse programs
and kernels (numba first-class functions), of one numba type for every system — so that its machine
code is compiled once per machine; ``evaluate``, ``rhs`` and ``post_step`` are called through their
addresses, which the model carries (formulations.kernels.by_address)."""
from __future__ import annotations

import threading
import types as pytypes

import numpy as np

BY_ADDRESS = ("evaluate", "post_step", "rhs")  # the functions a model carries the addresses of


def _address_field(name: str) -> str:
    return f"ADDRESS_{name.upper()}"


def model_value(value):
    """A model value as numba sees it the same way for every system: Python ints and floats as
    they are, arrays C-contiguous."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value


class BoundModule:
    """A formulation's compiled functions with its system's model bound: ``bound.rhs(t, y, ...)``
    calls ``module.rhs(model, t, y, ...)``; the model's fields read as attributes (``bound.DYN``).
    ``module``: a namespace of numba functions with MODEL_TYPE, the type they are compiled for;
    ``model``: a named tuple of that type, its ADDRESS_* fields filled in here."""

    _OWN = ("module", "model", "_fields", "_by_address", "_model_type", "_entries", "_lock", "_memory", "_where",
            "_loop_form")

    def __init__(self, module: pytypes.SimpleNamespace, model):
        self.module, self.model = module, model
        self._fields = dict(zip(model._fields, model))
        self._by_address = [(name, model._fields.index(_address_field(name))) for name in BY_ADDRESS]
        self._model_type = None  # set once the addresses are in the model
        self._entries = {}  # (function, the arguments' kinds) -> the compiled overload's entry point
        self._lock = threading.Lock()  # binding compiles: one thread does it
        self._memory = self._where = self._loop_form = None  # the model stored (stored_model)

    def __getattr__(self, name):
        if name in BoundModule._OWN:
            raise AttributeError(name)
        if name in self._fields:
            return self._fields[name]
        attribute = getattr(self.module, name)
        if callable(attribute) and hasattr(attribute, "py_func"):
            def bound(*args):
                return self._call(attribute, args)

            bound.__name__ = bound.__qualname__ = name
            bound.__doc__ = attribute.__doc__
            return bound
        return attribute

    def _call(self, dispatcher, args):
        """dispatcher(model, *args), read-only arrays (a Trajectory's) copied. The entry point of the
        overload that served the same kinds of arguments before is called directly: numba's dispatch
        would find the type of the model, a tuple of some fifty items, anew at every call (0.2 ms)."""
        args = tuple(np.array(a) if isinstance(a, np.ndarray) and not a.flags.writeable else a for a in args)
        key = (dispatcher, *(_kind(a) for a in args))
        entry = self._entries.get(key)
        if entry is not None:
            return entry(self.model, *args)
        import numba

        model_type = self._bound()
        result = dispatcher(self.model, *args)
        overload = dispatcher.overloads.get((model_type, *(numba.typeof(a) for a in args)))
        if overload is not None:
            self._entries[key] = overload.entry_point
        return result

    def _bound(self):
        """The model's type, once the addresses of the functions called through them (compiled or
        loaded now) are in the model."""
        if self._model_type is not None:
            return self._model_type
        import numba

        from .by_address import address

        with self._lock:
            if self._model_type is None:
                model_type = numba.typeof(self.model)
                expected = self.module.MODEL_TYPE
                if model_type != expected:
                    raise TypeError(f"the model's type {model_type} is not the one its module is compiled for, "
                                    f"{expected}")
                model = list(self.model)
                for name, at in self._by_address:
                    model[at] = address(getattr(self.module, name), model_type, name)
                self._fields.update({_address_field(name): model[at] for name, at in self._by_address})
                self.model = type(self.model)(*model)
                self._model_type = model_type
        return self._model_type

    def stored_model(self) -> int:
        """Where the model is stored (by_address.store_model; the memory kept alive here): the first
        argument of the module's entry points ``rhs_at`` and ``post_step_at``."""
        from .by_address import store_model

        model_type = self._bound()
        with self._lock:
            if self._memory is None:
                self._memory, self._where = store_model(self.model, model_type)
        return self._where

    def loop_form(self) -> tuple:
        """What the machine-code loops (formulations.solvers.machine) take of this module: (where its
        model is stored (the memory kept alive here), the addresses of its entry points rhs_at and
        post_step_at, WORK, REJECT_FAILED_STAGES)."""
        from .by_address import address

        where = self.stored_model()
        with self._lock:
            if self._loop_form is None:
                self._loop_form = (where, address(self.module.rhs_at), address(self.module.post_step_at),
                                   int(self._fields["WORK"]), bool(self._fields["REJECT_FAILED_STAGES"]))
        return self._loop_form


def _kind(value):
    """What decides the numba type of an argument, cheaply: its class, and for an array its dtype,
    dimensions and layout."""
    if isinstance(value, np.ndarray):
        return np.ndarray, value.dtype.str, value.ndim, value.flags.c_contiguous, value.flags.f_contiguous
    return type(value)
