"""3D scenes of trajectories in the browser and in Jupyter (``Trajectory.show()``, ``pfaff simulate
... --html FILE``): see page.py."""
from ...results.trajectory import install_scene
from .page import MAX_FRAMES, Scene, scene_data, scene_html, show

install_scene(show)

__all__ = ["show", "Scene", "scene_html", "scene_data", "MAX_FRAMES"]
