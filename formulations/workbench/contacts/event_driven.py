"""Runs in which contacts open, close, slide and roll (systems.contacts), event-driven.

Each phase runs the dependent formulation of its mode's system (systems.contact_phases) on the
numpy backend until one of these events ends it (located by the solver's event search):

    closed contact    its normal force falls to zero                      -> "opens"
    rolling contact   mu N - |lambda_t| falls to zero                      -> "slides"
    sliding contact   the slip speed |C_t v + c_t| falls to the rest speed -> "rolls" (where sticking
                      or the slip reverses within a step     then needs at most mu N; otherwise it slides on)
    open contact      its gap g(p) falls to zero                           -> "impact"
                      (and, where the solver stepped over a short flight, falls SINK below zero:
                      the phase runs again with a smaller first step, or the run stops saying so)

An impact changes the velocities at once, M (v+ - v-) = -C^T Lambda, with the impulses of a small
complementarity problem: every row no contact owns held; on each closed contact's normal row (the
impacting one's too) Lambda_n >= 0, complementary to Newton's law U+ + e U- >= 0 (U = -(C_n v + c_n)
the separation speed; a resting contact has U- = 0); its friction impulse inside Coulomb's cone,
sticking inside and opposing the slip after the impact on its edge. Projected Gauss-Seidel solves it
(moreau_jean.impulses_of). A closed contact that separates after it opens ("opens": lifted by the
impact); one that slips after it slides. The impacting contact then "closes", or "bounces" (stays open)
where it separates faster than the rest speed, at least the slowest bounce whose flight the positions
resolve (``_resolved_speed``):
a ball bouncing to rest ends its sequence of impacts there, a finite number of them (the rest is the
accumulation point of the geometric series, where an event-driven run would otherwise stall).

``simulate_contacts`` returns one Trajectory over all phases, with ``events`` (ContactEvent: t, kind, contact, the
state before and after) and ``modes`` (a Mode per phase). Its status is 0 over t_span; 1 where an event of one's
own (``events=``) ended it; 2 where a phase's result failed a check (its notes in ``warnings``); -1 where a phase or an impact failed or max_phases phases did not reach
the end (the message says where; the phases so far are kept). Each phase records the output times t_eval in its
interval, and its end. scheme="moreau-jean" (formulations.workbench.contacts.moreau_jean) takes fixed steps of size
``step`` instead: impacts at velocity level, any number per step, for impacts that accumulate.
"""
from __future__ import annotations

import time as _time
from dataclasses import replace

import numpy as np

from systems.catalogue import as_system
from systems.contact_phases import SLIP_ONSET, offset_names, phase_system
from systems.arguments import state_pair, time_grid, time_span
from systems.errors import ArgumentError
from systems.state import on_constraints, renormalize

from ...base import create
from ...dependent import Dependent
from ...results.reactions import reactions
from ...results.trajectory import (EVENT, FAILED, SUCCESS, WARNED, ConstraintErrors, ContactEvent, Mode, Stats,
                                   Trajectory)
from ...solvers.base import Event
from ...solvers.options import as_events
from .moreau_jean import ImpulsesNotFound, contact_blocks, impulses_of, moreau_jean

RETRIES = 3  # runs of a phase again, with a smaller first step, where an impact was missed
SINK = 1e-6  # an open contact's gap that falls SINK x (1 + max |p|) below zero: its impact was missed
RESOLUTION = 1024  # the gap's rounding in units of eps x (1 + max |p|), for the slowest bounce (_resolved_speed)
ONSET_ITERATIONS = 200  # fixed-point sweeps for the direction a slide starts in (_onset)
REST = 1e-10  # default rest speed, in units of the velocity scale (1 + max |v| at the start)


class _Phases:
    """The phase systems of one run, built once per mode, and the reactions at a state (the last
    one kept: the events of a phase ask for them at the same states)."""

    def __init__(self, system):
        self.system, self.built, self.last = system, {}, (None, None)
        self.names = system.constraint_names

    def system_of(self, open_contacts, sliding, offsets=None, state=None):
        """The system of the mode, built at its first ``state`` (t, p, v), which, put on the rows the mode
        holds (to round-off: a run leaves it on them to its tolerance), becomes its default."""
        key = (tuple(sorted(open_contacts)), tuple(sorted(sliding)))
        if key not in self.built:
            held = None if state is None else _onto_rows(self.system, _held(self.system, *key), *state)
            self.built[key] = phase_system(self.system, *key, state=held)
        phase = self.built[key]
        return phase.with_parameters(**offsets) if offsets else phase

    def reactions(self, phase, t, p, v):
        key = (id(phase), t, p.tobytes(), v.tobytes())
        if self.last[0] != key:
            lam = reactions(phase, t, p, v, as_dict=False, tol=np.inf)
            self.last = (key, dict(zip(phase.constraint_names, lam)))
        return self.last[1]

    def slip(self, contact, t, p, v):
        """The friction rows' residuals C_t v + c_t of ``contact`` at (t, p, v)."""
        Cv = self.system.residuals(p, v, t)[1]
        return Cv[[self.names.index(n) for n in contact.tangential]]

    def gap(self, contact, t, p, v):
        return -self.system.residuals(p, v, t)[0][self.names.index(contact.normal)]


def _held(system, open_contacts, sliding):
    """The indices of the rows a mode holds: all but the rows of its open contacts and the friction rows of
    its sliding ones."""
    free = {row for c in system.contacts if c.name in open_contacts for row in (c.normal, *c.tangential)}
    free |= {row for c in system.contacts if c.name in sliding for row in c.tangential}
    return [i for i, name in enumerate(system.constraint_names) if name not in free]


def _onto_rows(system, rows, t, p, v, sweeps=4):
    """(p, v) moved least (Gauss-Newton, minimum-norm steps) onto the rows ``rows`` of ``system``: the
    holonomic ones at position level, all at velocity level (systems.state.on_constraints takes a system
    that holds the rows, the mode's, which this state is for)."""
    p, v = np.array(p, dtype=float), np.array(v, dtype=float)
    holonomic = [i for i in rows if i < system.m]
    for _ in range(sweeps):
        Phi, Phi_p = system.numeric.constraint_terms(p, system.params, t)[:2]
        if holonomic:
            p = p - np.linalg.lstsq(Phi_p[holonomic], Phi[holonomic], rcond=None)[0]
            p = renormalize(system, p) if system.unit_norm_blocks else p
    _, _, C, c = system.numeric.constraint_terms(p, system.params, t)
    if rows:
        v = v - np.linalg.lstsq(C[rows], C[rows] @ v + c[rows], rcond=None)[0]
    return p, v


def simulate_contacts(system, t_span, state0=None, *, rtol=1e-10, atol=1e-10, rest_speed=None, max_phases=500,
                      scheme="events", step=None, t_eval=None, events=(), **options) -> Trajectory:
    """Run ``system`` while its contacts open, close on impact, slide and roll.

    Event-driven (default): each phase is a smooth run of the dependent formulation with the contacts
    in one mode, ended by an event where a contact opens, starts to slide, rolls again or is hit;
    impacts follow Newton's restitution. ``scheme="moreau-jean"`` takes fixed steps instead, with any
    number of impacts per step (module docstring).

    Parameters
    ----------
    system : System or str
        A system with contacts (``systems.Contact``).
    t_span : tuple of float
        (t0, t1) in s.
    state0 : tuple of array_like, optional
        (p, v), by default the system's: contacts may be open (gap > 0) or sliding (friction rows off);
        the closed rows must hold.
    rtol, atol : float, optional
        The tolerances of each phase's run (default 1e-10).
    rest_speed : float, optional
        In m/s or rad/s (default 1e-10 × (1 + max abs(v0))): a contact that separates slower after an
        impact stays closed, one that slides slower turns to rolling.
    max_phases : int, optional
        At most this many phases (default 500), else the run stops with status -1.
    scheme : {"events", "moreau-jean"}, optional
        The event-driven scheme or Moreau–Jean's time stepping (fixed steps of ``step`` s).
    t_eval : array_like, optional
        Output times inside t_span (event-driven scheme).
    events : sequence of Event, optional
        Events of your own (formulations.Event, g(t, p, v)), watched in every phase (event-driven
        scheme): each crossing is recorded in ``events`` as kind "event" under its name, and a terminal
        one ends the run there (status 1).
    **options
        Passed to each phase's simulate (method, max_step, ...), on the numpy backend.

    Returns
    -------
    Trajectory
        The phases joined, with ``events`` (ContactEvent: time, kind, contact, the states (p, v) just
        before and after) and ``modes`` (Mode: the span and the open and sliding contacts of each
        phase); status 0, 2 where a check fails, -1 where a phase fails (the phases so far are kept).

    Raises
    ------
    systems.ArgumentError
        For a system without contacts, a contact whose normal is a velocity row, an unknown scheme,
        or options the scheme does not take.

    Examples
    --------
    >>> import systems, formulations
    >>> disc = systems.load("rolling_disc"); p, v = disc.default_state()
    >>> run = formulations.simulate_contacts(disc, (0.0, 0.1), (p + [0, 0, 0.01, 0, 0, 0], v))  # dropped 1 cm
    >>> [e.kind for e in run.events], [m.open for m in run.modes], run.status.name
    (['impact', 'closes'], [('ground',), ()], 'SUCCESS')
    """
    system = _with_contacts(system)
    t, t_end = time_span(t_span)
    p, v = (np.array(x, dtype=float) for x in state_pair(system, state0 if state0 is not None
                                                          else system.default_state()))
    rest = float(rest_speed) if rest_speed is not None else REST * (1.0 + float(np.max(np.abs(v), initial=0.0)))
    if scheme not in ("events", "moreau-jean"):
        raise ArgumentError(f"simulate_contacts got scheme {scheme!r} but expected 'events' or 'moreau-jean'")
    if scheme == "moreau-jean":
        unused = sorted(options) + (["t_eval"] if t_eval is not None else []) + (["events"] if events else [])
        if unused:
            raise ArgumentError(f"simulate_contacts with scheme 'moreau-jean' takes fixed steps (step=) and no "
                                f"{', '.join(unused)}")
        return moreau_jean(system, (t, t_end), (p, v), step, rest_speed=rest)
    if step is not None:
        raise ArgumentError("simulate_contacts: step= sets the Moreau-Jean step (scheme='moreau-jean'); the "
                            "event-driven scheme takes rtol and atol")
    t_eval = None if t_eval is None else time_grid(t_eval, (t, t_end))
    velocity_rows = [c.name for c in system.contacts if system.constraint_names.index(c.normal) >= system.m]
    if velocity_rows:
        raise ArgumentError(f"system {system.name!r}: contact {velocity_rows[0]!r} has a velocity row as its normal "
                            f"row; a contact that opens and closes needs its gap, a holonomic row")
    return _run_phases(system, (t, t_end), (p, v), rest, t_eval, max_phases, rtol, atol,
                       dict(options, events=_named(as_events(events))))


def _named(events):
    """Events of one's own, each with a name (a bare callable's: "event k")."""
    return tuple(ev if ev.name else replace(ev, name=f"event {k + 1}") for k, ev in enumerate(events))


def _with_contacts(system):
    """The System of ``system`` (or of a catalogue name), refused where it has no contacts or a restitution
    parameter above 1."""
    system = as_system(system)
    if not system.contacts:
        raise ArgumentError(f"system {system.name!r} declares no contacts (systems.Contact); simulate it with "
                            f"formulations.create(...).simulate")
    for contact in system.contacts:
        contact.restitution_coefficient(system)
    return system


def _run_phases(system, t_span, state, rest, t_eval, max_phases, rtol, atol, options) -> Trajectory:
    """The event-driven scheme: phases from one contact event to the next, joined."""
    (t, t_end), (p, v) = t_span, state
    own = tuple(options.pop("events"))
    phases = _Phases(system)
    open_, sliding, offsets = _initial_mode(phases, t, p, v, rest)
    pieces, events, message, status = [], [], "", SUCCESS
    started = _time.perf_counter()
    while t < t_end:
        if len(pieces) == max_phases:
            status, message = FAILED, (f"system {system.name!r}: {max_phases} phases did not reach t = {t_end:g} "
                                       f"(the contacts switched at t = {t:.9g} and ever faster: raise max_phases or "
                                       f"the rest speed {rest:.3g}); the phases so far are kept")
            break
        phase = phases.system_of(open_, sliding, offsets, state=(t, p, v))
        p, v = on_constraints(phase, p, v, t)
        start = (t, p, v)
        watch = _events(phases, phase, (open_, sliding), rest, start) + [(ev, "event", None) for ev in own]
        times = None if t_eval is None else t_eval[t_eval >= t]  # the output times left (time_grid kept them in span)
        times = None if times is None else (times if times.size else np.array([t, t_end]))
        run, missed = _phase_run(phases, phase, (t, t_end), (p, v), watch, times, rtol, atol, options)
        pieces.append((run, Mode(t, float(run.t[-1]), tuple(sorted(open_)), tuple(sorted(sliding)))))
        if missed:
            status, message = FAILED, missed
            break
        events += [_own_event(run, e) for e in run.events if watch[e.index][1] == "event"]
        if run.status != 1:
            if not run.success and run.status != 2:
                status, message = FAILED, f"the phase with {pieces[-1][1].label} failed: {run.message}"
            break
        t, p, v = float(run.t[-1]), run.p[-1].copy(), run.v[-1].copy()
        _, kind, contact = watch[run.events[-1].index]
        if kind == "event":
            status, message = EVENT, f"event {run.events[-1].name!r} ended the run at t = {t:.9g}"
            break
        try:
            floor = _resolved_speed(system, contact, t, p, v, run.vdot[-1]) if kind == "impact" else 0.0
            open_, sliding, offsets, v_after, kinds = _switch(phases, kind, contact, t, p, v, open_, sliding,
                                                              max(rest, floor))
        except (np.linalg.LinAlgError, ImpulsesNotFound) as exc:  # a singular M, or impulses that did not converge
            status, message = FAILED, (f"system {system.name!r}: the {kind} of contact {contact.name!r} at t = "
                                       f"{t:.9g} failed: {exc}; the phases so far are kept")
            break
        events += [_event(t, k, contact.name, p, v, v_after) for k in kinds]
        v = v_after
    return _joined(system, pieces, events, status, message, rtol, atol, rest, _time.perf_counter() - started)


def _own_event(run, event):
    """The ContactEvent (kind "event") of an event of one's own in a phase's run, with the state there
    where the run recorded one at its time (a terminal event's last point)."""
    k = int(np.argmin(np.abs(run.t - event.t)))
    state = (run.p[k], run.v[k]) if abs(run.t[k] - event.t) <= 1e-12 * (1.0 + abs(event.t)) else ()
    return ContactEvent(event.t, event.name, -1, "event", "", state, state)


def _resolved_speed(system, contact, t, p, v, vdot):
    """The slowest bounce whose flight the positions resolve: sqrt(2 |g''| delta), delta = RESOLUTION x eps x
    (1 + max |p_j|) the rounding of the gap, over the coordinates p_j it depends on, and
    g'' = -(C_n v' + xi_n) its acceleration as the contact closed (a flight lower than delta ends below the
    rounding of its own start, which no event search can see)."""
    n = system.constraint_names.index(contact.normal)
    Phi_p = system.numeric.constraint_terms(p, system.params, t)[1]
    pieces = system.numeric.dynamics(t, p, v, system.params)
    gap_acceleration = abs(float(pieces.C[n] @ vdot + pieces.xi[n]))
    size = float(np.max(np.abs(p[Phi_p[n] != 0]), initial=0.0))
    delta = RESOLUTION * np.finfo(float).eps * (1.0 + size)
    return float(np.sqrt(2.0 * gap_acceleration * delta))


def _event(t, kind, name, p, v, v_after):
    """The ContactEvent of ``kind`` ("lifts OTHER": the other contact opens at this impact)."""
    if kind.startswith("lifts "):
        kind, name = "opens", kind[len("lifts "):]
    return ContactEvent(t, f"{kind} {name}", -1, kind, name, (p, v), (p, v_after))


def _initial_mode(phases, t, p, v, rest):
    """(open, sliding, offsets) at the start: open where the gap is open or separating, sliding where
    the friction rows slip, then open where closed rows would pull and sliding where they exceed mu N."""
    system = phases.system
    Phi, Cv = system.residuals(p, v, t)
    names = system.constraint_names
    open_, sliding = set(), set()
    scale = 1e-9 * (1.0 + float(np.max(np.abs(p), initial=0.0)))
    for c in system.contacts:
        i = names.index(c.normal)
        if (i < system.m and -Phi[i] > scale) or Cv[i] < -rest:
            open_.add(c.name)
        elif c.mu is not None and c.tangential and np.linalg.norm(phases.slip(c, t, p, v)) > rest:
            sliding.add(c.name)
    return _settled(phases, t, p, v, open_, sliding)


def _settled(phases, t, p, v, open_, sliding):
    """The mode whose closed contacts push and whose rolling contacts stay within mu N at (t, p, v):
    contacts that would pull open, those that need more friction slide (the slip starting in its
    consistent direction, ``_onset``)."""
    offsets = {}
    for _ in range(len(phases.system.contacts) + 1):
        phase = phases.system_of(open_, sliding, state=(t, p, v))
        lam = phases.reactions(phase, t, *on_constraints(phase, p, v, t))
        changed = False
        for c in phases.system.contacts:
            if c.name in open_:
                continue
            if lam[c.normal] < 0:
                open_.add(c.name)
                sliding.discard(c.name)
                changed = True
                break
            mu = c.friction_coefficient(phases.system)
            if c.name not in sliding and mu is not None and c.tangential:
                force = np.array([lam[n] for n in c.tangential])
                if np.linalg.norm(force) > mu * lam[c.normal]:
                    offsets.update(_onset(phases, c, lam, (t, p, v), (open_, sliding)))
                    sliding.add(c.name)
                    changed = True
                    break
        if not changed:
            return open_, sliding, offsets
    return open_, sliding, offsets


def _onset(phases, contact, lam, state, mode):
    """The slip offsets that start a slide of ``contact`` (systems.contact_phases) from sticking in ``mode``
    (open, sliding) at ``state`` (t, p, v), where it needed the friction force lambda_s (``lam``: the
    mode's reactions by name) beyond mu N: along the consistent direction w of the slip, the one in which
    the slip grows where Coulomb's force mu N w takes the friction rows' place,

        w ~ r'(w),   |w| = 1,   r' = C_t v' + xi_t,
        M v' = f0 - d + F lambda - C_o^T lambda_o - mu lambda_n (C_t - F_t)^T w,   C_o v' + xi_o = 0,

    with o the mode's other rows (N among them, so that it changes with w as it does). Found by fixed
    point from lambda_s's direction (the answer where the friction rows' Delassus matrix is isotropic);
    lambda_s's direction where the sweeps do not settle."""
    system, (t, p, v) = phases.system, state
    names = system.constraint_names
    force = np.array([lam[n] for n in contact.tangential])
    start = force / max(np.linalg.norm(force), 1e-300)
    pieces = system.numeric.dynamics(t, p, v, system.params)
    k = [names.index(n) for n in contact.tangential]
    o = [i for i in _held(system, *mode) if i not in k]
    F = pieces.F if pieces.F is not None and np.size(pieces.F) else np.zeros_like(pieces.C.T)
    bound = contact.friction_coefficient(system)
    normal = o.index(names.index(contact.normal))
    direction = start
    for _ in range(ONSET_ITERATIONS):
        rows = (pieces.C[o] - F[:, o].T).T.copy()
        rows[:, normal] += bound * (pieces.C[k] - F[:, k].T).T @ direction
        K = np.block([[pieces.M, rows], [pieces.C[o], np.zeros((len(o), len(o)))]])
        vdot = np.linalg.solve(K, np.concatenate([pieces.f0 - pieces.d, -pieces.xi[o]]))[:len(v)]
        rate = pieces.C[k] @ vdot + pieces.xi[k]
        turned = direction + rate / max(np.linalg.norm(rate), 1e-300)  # damped
        turned /= max(np.linalg.norm(turned), 1e-300)
        if np.linalg.norm(turned - direction) < 1e-12:
            direction = turned
            break
        direction = turned
    else:
        direction = start
    size = SLIP_ONSET * (1.0 + float(np.max(np.abs(v), initial=0.0)))
    offsets = np.where(np.abs(direction) > 1e-3, size * direction, 0.0)  # parameters keep clear of underflow
    return dict(zip(offset_names(system, contact), offsets.tolist()))


def _events(phases, phase, mode, rest, start):
    """(Event, kind, contact) for every change the mode (open, sliding) can take next from ``start`` (t, p, v)."""
    (open_, sliding), out = mode, []
    for c in phases.system.contacts:
        i = phases.names.index(c.normal)
        if c.name in open_:
            if i < phases.system.m:  # a gap to close, and how far below zero it may not sink unseen
                depth = SINK * (1.0 + float(np.max(np.abs(start[1]), initial=0.0)))
                out.append((Event(lambda t, p, v, c=c: phases.gap(c, t, p, v), True, -1, f"impact {c.name}"),
                            "impact", c))
                out.append((Event(lambda t, p, v, c=c, depth=depth: phases.gap(c, t, p, v) + depth, True, -1,
                                  f"sinks {c.name}"), "sinks", c))
            continue
        if i < phases.system.m:
            out.append((Event(lambda t, p, v, c=c: phases.reactions(phase, t, p, v)[c.normal], True, -1,
                              f"opens {c.name}"), "opens", c))
        mu = c.friction_coefficient(phases.system)
        if mu is None or not c.tangential:
            continue
        if c.name in sliding:
            out.append((Event(_slip_speed(phases, phase, c, start, rest), True, -1, f"rolls {c.name}"), "rolls", c))
        else:
            def margin(t, p, v, c=c, mu=mu):
                lam = phases.reactions(phase, t, p, v)
                return mu * lam[c.normal] - np.linalg.norm([lam[n] for n in c.tangential])
            out.append((Event(margin, True, -1, f"slides {c.name}"), "slides", c))
    return out


def _slip_speed(phases, phase, contact, start, rest):
    """The event function of a sliding contact's return to rolling: sign(s . s_ref) |s| - rest, s the slip
    and s_ref its direction where last seen above the rest speed (|s| - rest until then). It is
    |s| - rest while the slip keeps to one side, and falls through zero where the slip passes zero within a
    step, where |s| - rest would stay positive at both ends. s_ref follows the slip as it turns (a disc's
    slip turns with its precession), so that the sign changes where the slip reverses within a step:
    where it passes zero, to the solver's resolution."""
    ref = [None]

    def event(t, p, v):
        if t <= start[0]:  # the phase's start (again, where the phase runs again): no direction seen yet
            ref[0] = None
        s = phases.slip(contact, t, p, v)
        size = np.linalg.norm(s)
        value = size - rest if ref[0] is None else np.copysign(size, float(s @ ref[0])) - rest
        if value > 0:
            ref[0] = s / size
        return value
    return event


def _phase_run(phases, phase, t_span, state, watch, times, rtol, atol, options):
    """One phase's run and, where an open contact sank SINK below zero (its "sinks" event), the message
    that ends the run there. A contact that has just bounced starts its phase on its gap's zero (or a
    rounding either side), where a flight that lands within the solver's first step is not seen (the
    event search compares the ends of a step): the phase then runs again with a first step a hundredth
    of the last (or of the time to the sinking), up to RETRIES times."""
    options, form = dict(options), create(Dependent.name, phase, backend="numpy")
    for _ in range(RETRIES + 1):
        run = form.simulate(t_span, state, events=[w[0] for w in watch], rtol=rtol, atol=atol, t_eval=times,
                            **options)
        if run.status != 1 or watch[run.events[-1].index][1] != "sinks":
            return run, ""
        sank = run.events[-1].t
        options["first_step"] = min(options.get("first_step") or np.inf, sank - t_span[0]) / 100
    contact = watch[run.events[-1].index][2]
    return run, (f"system {phases.system.name!r}: contact {contact.name!r} is open but sank "
                 f"{abs(phases.gap(contact, sank, run.p[-1], run.v[-1])):.3g} below its gap's zero at t = {sank:.9g}: "
                 f"an impact was missed (take a smaller max_step or first_step, or a larger rest_speed); the "
                 f"phases so far are kept")


def _switch(phases, kind, contact, t, p, v, open_, sliding, rest):
    """(open, sliding, offsets, v after, event kinds) after ``kind`` of ``contact`` at (t, p, v)."""
    open_, sliding = set(open_), set(sliding)
    if kind == "opens":
        open_.add(contact.name)
        sliding.discard(contact.name)
        return (*_settled(phases, t, p, v, open_, sliding), v, ["opens"])
    if kind == "slides":
        lam = phases.reactions(phases.system_of(open_, sliding), t, p, v)
        offsets = _onset(phases, contact, lam, (t, p, v), (open_, sliding))
        sliding.add(contact.name)
        return open_, sliding, offsets, v, ["slides"]
    if kind == "rolls":  # with every other contact that has stopped slipping too (rows that move together)
        sliding -= {c.name for c in phases.system.contacts if c.name in sliding
                    and (c is contact or np.linalg.norm(phases.slip(c, t, p, v)) <= rest)}
        open_, sliding, offsets = _settled(phases, t, p, v, open_, sliding)
        return open_, sliding, offsets, v, ["rolls"] if contact.name not in sliding else ["slides"]
    v_after, separating, slipping = _impact(phases, contact, t, p, v, open_, rest)
    released = separating - {contact.name}  # other contacts the impact lifts
    open_ |= released
    lifts = ["lifts " + name for name in sorted(released)]
    if contact.name in separating:  # it stays open; the other closed contacts settle into a mode that holds
        return (*_settled(phases, t, p, v_after, open_, set(slipping)), v_after, ["impact", "bounces"] + lifts)
    open_.discard(contact.name)
    sliding = set(slipping)  # the closed contacts that slip after the impact slide; the others roll
    return (*_settled(phases, t, p, v_after, open_, sliding), v_after, ["impact", "closes"] + lifts)


def _impact(phases, contact, t, p, v, open_, rest):
    """(v+, the contacts that separate faster than ``rest`` after it, those that slip faster) for the
    impact of ``contact`` with the contacts ``open_`` open: the impact's complementarity problem, Newton's
    restitution on every closed normal row and Coulomb's cone on every closed contact's friction rows,
    solved by projected Gauss-Seidel (moreau_jean.impulses_of). A contact whose impulse vanishes and that
    separates after the impact is lifted by it; one whose friction reached its cone and that slips after
    it slides."""
    system = phases.system
    M = system.numeric.dynamics(t, p, v, system.params).M
    _, _, C, c = system.numeric.constraint_terms(p, system.params, t)
    closed = {k.name for k in system.contacts if k.name not in open_} | {contact.name}
    v_after, _ = impulses_of(system, contact_blocks(system, closed), M, C, c, v, C @ v + c)
    names = system.constraint_names
    rates = C @ v_after + c
    separating = {k.name for k in system.contacts if k.name in closed and -rates[names.index(k.normal)] > rest}
    slipping = {k.name for k in system.contacts if k.name in closed - separating and k.mu is not None
                and np.linalg.norm(rates[[names.index(r) for r in k.tangential]]) > rest}
    return v_after, separating, slipping


def _joined(system, pieces, events, status, message, rtol, atol, rest, wall):
    """One Trajectory of the phases, the multipliers on every row of ``system`` (zero where a contact
    is open; Coulomb's force where it slides)."""
    names = system.constraint_names
    columns = {k: [] for k in ("t", "p", "v", "vdot", "lam", "energy", "position", "velocity", "acceleration")}
    steps = evaluations = 0
    for run, mode in pieces:
        lam = np.zeros((run.t.size, len(names)))
        for j, name in enumerate(run.constraint_names):
            lam[:, names.index(name)] = run.multipliers[:, j]
        for c in system.contacts:
            if c.name in mode.sliding:
                lam[:, [names.index(x) for x in c.tangential]] = _coulomb(system, c, run, lam[:, names.index(c.normal)])
        for key, value in (("t", run.t), ("p", run.p), ("v", run.v), ("vdot", run.vdot), ("lam", lam),
                           ("energy", run.energy), ("position", run.constraint_errors.position),
                           ("velocity", run.constraint_errors.velocity),
                           ("acceleration", run.constraint_errors.acceleration)):
            columns[key].append(value)
        steps += run.stats.steps
        evaluations += run.stats.rhs_evaluations
    joined = {k: np.concatenate(v) for k, v in columns.items()}
    notes = tuple(f"{mode.label} from t = {mode.start:.6g}: {note}" for run, mode in pieces for note in run.warnings)
    if status == EVENT:
        message = f"{message}, after {len(pieces)} phases and {sum(e.kind != 'event' for e in events)} contact events"
    if status == SUCCESS:
        message = (f"finished over t_span in {len(pieces)} phases with {sum(e.kind != 'event' for e in events)} "
                   f"contact events")
        if notes:  # a phase finished, but a check of its result failed
            status, message = WARNED, f"{message}, but {'; '.join(notes)}"
    first = pieces[0][0]
    return Trajectory(
        system_name=system.name, formulation=f"{Dependent.name} (contacts)", t=joined["t"], p=joined["p"],
        v=joined["v"],
        state=np.concatenate([joined["p"], joined["v"]], axis=1), state_names=first.state_names,
        vdot=joined["vdot"], multipliers=joined["lam"], constraint_names=names,
        constraint_errors=ConstraintErrors(joined["position"], joined["velocity"], joined["acceleration"]),
        energy=joined["energy"], stats=Stats(wall_time=wall, rhs_evaluations=evaluations, steps=steps),
        status=status, message=message, events=tuple(events), warnings=notes,
        settings={"rtol": rtol, "atol": atol, "rest_speed": rest, "backend": "numpy"}, system=system,
        modes=tuple(mode for _, mode in pieces))


def _coulomb(system, contact, run, normal):
    """Coulomb's friction force (N, len(tangential)) of a sliding contact along a phase's points."""
    mu = contact.friction_coefficient(system)
    rows = [system.constraint_names.index(n) for n in contact.tangential]
    slip = np.array([system.residuals(p, v, t)[1][rows] for t, p, v in zip(run.t, run.p, run.v)])
    size = np.maximum(np.linalg.norm(slip, axis=1, keepdims=True), 1e-300)
    return mu * normal[:, None] * slip / size
