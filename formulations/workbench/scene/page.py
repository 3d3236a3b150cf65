"""A trajectory as a 3D scene in one self-contained HTML page: the system's visuals (systems.visuals)
posed at the recorded states, a time slider, play/pause and speed, a camera that orbits with the
mouse; three.js (vendored, MIT) and the data inlined, so the page opens offline in any browser and
can be sent as one file. ``Scene`` shows itself in Jupyter (``_repr_html_``, an iframe of the page).
"""
from __future__ import annotations

import base64
import html
import json
import pathlib

import numpy as np

from systems import Poses
from systems.state import normalize_blocks

FOLDER = pathlib.Path(__file__).parent
MAX_FRAMES = 2000  # states drawn at most (evenly chosen from longer runs); the last always
FRAME_RATE = 60   # states per second of simulated time below which states in between are interpolated
TRAIL_COLOUR = "#34495e"


def _frames(t, P, L, system, limit):
    """(times, states, multipliers) to draw. Where the run recorded fewer than FRAME_RATE states per
    second of its time (an adaptive run records its steps only), the states in between are
    interpolated linearly in p and lambda, unit quaternions normalized, for a smooth playback; where it
    recorded more than ``limit``, ``limit`` of them are drawn, spread evenly, the last kept."""
    t, P, L = np.asarray(t, float), np.asarray(P, float), np.asarray(L, float)
    span = t[-1] - t[0]
    wanted = min(limit, int(np.ceil(FRAME_RATE * span)) + 1)
    if len(t) >= wanted:
        index = np.unique(np.linspace(0, len(t) - 1, min(len(t), limit)).round().astype(int))
        return t[index], P[index], L[index]
    grid = np.linspace(t[0], t[-1], wanted)
    between = np.column_stack([np.interp(grid, t, column) for column in P.T])
    forces = np.column_stack([np.interp(grid, t, column) for column in L.T]) if L.size else np.zeros((wanted, 0))
    return grid, np.array([normalize_blocks(row, system.unit_norm_blocks) for row in between]), forces


def scene_data(traj, system, trails=(), max_frames=MAX_FRAMES) -> dict:
    """The page's data: times, each visual's shape, colour and pose per frame (positions flat (3 k,),
    rotations flat (9 k,) row by row, rod ends and arrow tips (from the run's multipliers); one pose
    for a shape that does not move), the centre paths named in ``trails`` (visual names). The ground
    is drawn under the whole path."""
    if len(traj.t) == 0:
        raise ValueError(f"trajectory of {traj.system_name!r} has no recorded state to draw")
    poses = Poses(system)
    names = [vis.name for vis in poses.visuals]
    unknown = [name for name in trails if name not in names]
    if unknown:
        raise ValueError(f"trails got {unknown} but the visuals of {system.name!r} are {names}")
    t, P, L = _frames(traj.t, traj.p, np.reshape(traj.multipliers, (len(traj.t), -1)), system, max_frames)
    along = poses.along(t, P, L)
    bodies, extent = [], 0.0
    for vis, sizes, colour in zip(poses.visuals, poses.sizes, poses.colours):
        positions, rotations, ends = along[vis.name]
        fixed = np.ptp(positions, axis=0).max() == 0 and np.ptp(rotations, axis=0).max() == 0 and ends is None
        body = {"name": vis.name, "kind": vis.kind, "sizes": list(sizes), "colour": colour,
                "opacity": float(vis.opacity),
                "position": _flat(positions[:1] if fixed else positions),
                "rotation": _flat(rotations[:1] if fixed else rotations)}
        if ends is not None:  # a rod's end point or an arrow's tip (NaN where the run has no multipliers)
            body["end"] = _flat(ends)
        if vis.kind not in ("plane", "wall") and not fixed:  # the size of what moves
            extent = max(extent, max(sizes))
        bodies.append(body)
    _ground_under(bodies, extent)
    return {"title": f"{traj.system_name}, {traj.formulation}", "t": _flat(t), "bodies": bodies,
            "trails": [{"name": name, "colour": TRAIL_COLOUR, "points": _flat(along[name][0])} for name in trails],
            "extent": extent, **_contact_state(traj)}


def _contact_state(traj) -> dict:
    """For a run with contacts (formulations.simulate_contacts): its modes (start, end, label) and events
    (t, "kind contact"), which the page shows for the frame's time; nothing for another run."""
    modes = getattr(traj, "modes", ()) or ()
    if not modes:
        return {}
    return {"modes": [{"start": round(m.start, 9), "end": round(m.end, 9), "label": m.label} for m in modes],
            "events": [{"t": round(e.t, 9), "text": e.name if e.kind == "event" else f"{e.kind} {e.constraint}"}
                       for e in traj.events]}


def _ground_under(bodies, extent):
    """A ground plane (an infinite plane, drawn as a square) grows and moves in x and y to lie under
    the whole path of the moving shapes, with a margin; its height stays."""
    moving = [np.reshape(b[key], (-1, 3)) for b in bodies if b["kind"] not in ("plane", "wall")
              for key in ("position", "end") if key in b and not (key == "end" and b["kind"] == "arrow")]
    if not moving:
        return
    points = np.vstack(moving)[:, :2]
    low, high = points.min(axis=0), points.max(axis=0)
    for body in (b for b in bodies if b["kind"] == "plane"):
        half = max(body["sizes"][0], float(np.max(high - low)) / 2 + 2 * extent)
        centre = (low + high) / 2
        body["sizes"] = [half]
        body["position"] = [float(centre[0]), float(centre[1]), body["position"][2]]


def _flat(array) -> list:
    """Numbers for JSON: rounded to 1e-9, NaN as None (null: the viewer hides the shape then)."""
    return [round(float(x), 9) if np.isfinite(x) else None for x in np.asarray(array, float).ravel()]


def scene_html(traj, system, trails=(), max_frames=MAX_FRAMES) -> str:
    """The whole page of ``traj`` of ``system`` as one string (see the module's docstring)."""
    data = scene_data(traj, system, trails, max_frames)
    three = (FOLDER / "vendor" / "three.module.min.js").read_text()
    viewer = (FOLDER / "viewer.js").read_text()
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    title = html.escape(data["title"])
    t_end = data["t"][-1]
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
html, body {{ margin: 0; height: 100%; font: 14px system-ui, sans-serif; color: #2c3e50; background: #f4f6f7; }}
body {{ display: flex; flex-direction: column; }}
#view {{ flex: 1; min-height: 240px; position: relative; }}
#legend {{ position: absolute; top: 8px; left: 8px; margin: 0; padding: 4px 8px; list-style: none;
  background: rgba(255, 255, 255, 0.8); border-radius: 4px; font-size: 12px; }}
#legend:empty {{ display: none; }}
#contacts {{ position: absolute; bottom: 8px; left: 8px; padding: 4px 8px; background: rgba(255, 255, 255, 0.85);
  border-radius: 4px; font-size: 12px; }}
#view canvas {{ display: block; width: 100%; height: 100%; }}
#bar {{ display: flex; gap: 10px; align-items: center; padding: 6px 10px; background: #eaeded; }}
#frame {{ flex: 1; }}
#time {{ min-width: 9em; font-variant-numeric: tabular-nums; }}
</style></head>
<body>
<div id="bar"><strong>{title}</strong><button id="play" type="button">play</button>
<input id="frame" type="range" min="0" max="0" value="0" step="1" aria-label="time">
<span id="time">t = 0 s</span>
<label>speed <select id="speed"><option>0.25</option><option>0.5</option><option selected>1</option>
<option>2</option><option>4</option></select></label>
<label><input id="follow" type="checkbox"> follow</label>
<span title="drag to turn the view, wheel to zoom">0 .. {t_end:g} s, {len(data["t"])} states</span></div>
<div id="view"><ul id="legend"></ul><div id="contacts" hidden></div></div>
<script id="scene-data" type="application/json">{payload}</script>
<script id="three-js" type="text/plain">{three}</script>
<script type="module">
{viewer}
</script>
</body></html>
"""


class Scene:
    """A scene page: ``html`` the page, ``save(path)`` writes it, Jupyter shows it inline."""

    def __init__(self, page: str):
        self.html = page

    def save(self, path) -> pathlib.Path:
        """Write the page to ``path`` (atomically); returns the path."""
        from ..output import write_atomic

        return write_atomic(pathlib.Path(path), self.html)

    def _repr_html_(self) -> str:
        encoded = base64.b64encode(self.html.encode()).decode()
        return (f'<iframe src="data:text/html;base64,{encoded}" style="width:100%;height:480px;border:0" '
                f'title="3D scene"></iframe>')


def show(traj, system=None, trails=(), path=None, max_frames=MAX_FRAMES) -> Scene:
    """The scene of ``traj`` (system: the System it ran on, default the one it records); written to
    ``path`` where given."""
    system = system if system is not None else traj.system
    if system is None:
        raise ValueError(f"trajectory of {traj.system_name!r} does not hold its system; pass system=")
    scene = Scene(scene_html(traj, system, trails, max_frames))
    if path is not None:
        scene.save(path)
    return scene
