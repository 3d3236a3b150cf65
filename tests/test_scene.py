"""The 3D scene page (formulations.workbench.scene): its data against the poses of the visuals, and the
page itself in a real headless Chromium (Debian's chromium, driven by Playwright): it loads without
console errors, asks for nothing over the network, draws the bodies in their colours where the
camera looks, and moving the time slider changes the picture. The browser tests skip, saying why,
where Chromium or Playwright cannot be had."""
import io
import shutil

import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from formulations.workbench.scene import scene_data, show
from systems import Poses, Visual
from systems.builders.rigid_body import RigidBody, from_rigid_bodies

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# as root in a container: no sandbox, no /dev/shm; no background connections (the network is closed);
# WebGL on the CPU (SwiftShader)
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]


def _run(system, formulation="minimal", t_end=1.0, samples=61):
    return F.create(formulation, system, backend="numpy").simulate((0.0, t_end), t_eval=np.linspace(0, t_end, samples))


def _user_system():
    """A block on a spring along x, spinning about z: a user's system with one red box."""
    x, y, z, th = sp.symbols("x y z theta", real=True)
    vs = sp.symbols("v_x v_y v_z omega", real=True)
    R = sp.Matrix([[sp.cos(th), -sp.sin(th), 0], [sp.sin(th), sp.cos(th), 0], [0, 0, 1]])
    block = RigidBody("block", 1.0, sp.diag(0.1, 0.2, 0.25), sp.Matrix([x, y, z]), rotation=R,
                      angular_velocity=sp.Matrix([0, 0, vs[3]]), force=sp.Matrix([-20 * x, 0, 0]))
    return from_rigid_bodies("block on a spring", (x, y, z, th), vs, sp.eye(4), [block], gravity=(0, 0, -9.81),
                             holonomic=[("table normal force", -(z - 0.15))], default_p=(0.5, 0, 0.15, 0),
                             default_v=(0, 0, 0, 2), visuals=[
                                 Visual.on_body(block, "box", (0.6, 0.4, 0.3), colour="#ff0000"),
                                 Visual("table", "plane", (1.0,), (0, 0, 0), colour="#0000ff")])


def test_the_page_data_hold_the_poses_of_the_recorded_states():
    system = systems.load("rolling_disc")
    traj = _run(system, t_end=0.5, samples=51)  # more than FRAME_RATE a second: the recorded states only
    data = scene_data(traj, system, trails=("disc",))
    assert data["t"] == pytest.approx(traj.t, abs=1e-9)
    disc = next(b for b in data["bodies"] if b["name"] == "disc")
    poses = Poses(system)
    for i in (0, 25, 50):
        pose = next(p for p in poses.at(traj.p[i], traj.t[i]) if p.name == "disc")
        assert np.allclose(disc["position"][3 * i:3 * i + 3], pose.position, atol=1e-8)
        assert np.allclose(disc["rotation"][9 * i:9 * i + 9], pose.rotation.ravel(), atol=1e-8)
    assert data["trails"][0]["points"] == disc["position"]
    arrow = next(b for b in data["bodies"] if b["kind"] == "arrow")  # the contact force, from the multipliers
    for i in (0, 25, 50):
        tip = next(p for p in poses.at(traj.p[i], traj.t[i], traj.multipliers[i]) if p.name == arrow["name"]).end
        assert np.allclose(arrow["end"][3 * i:3 * i + 3], tip, atol=1e-8)
    ground = next(b for b in data["bodies"] if b["kind"] == "plane")
    path = np.reshape(disc["position"], (-1, 3))
    assert np.all(np.abs(path[:, :2] - ground["position"][:2]) <= ground["sizes"][0])  # the ground is under it


def test_sparse_runs_are_filled_in_for_playback_with_unit_quaternions():
    system = systems.load("sphere_in_cylinder")
    traj = F.create("minimal", system, backend="numpy").simulate((0.0, 0.5))  # its steps only
    assert len(traj.t) < 30
    data = scene_data(traj, system)
    assert len(data["t"]) == 31 and data["t"][0] == traj.t[0] and data["t"][-1] == pytest.approx(traj.t[-1])
    rotations = np.reshape(next(b for b in data["bodies"] if b["name"] == "sphere")["rotation"], (-1, 3, 3))
    assert np.allclose(rotations @ rotations.transpose(0, 2, 1), np.eye(3), atol=1e-8)
    sphere = np.reshape(next(b for b in data["bodies"] if b["name"] == "sphere")["position"], (-1, 3))
    recorded = np.interp(data["t"], traj.t, traj.p[:, 2])  # the height, between the recorded states
    assert np.allclose(sphere[:, 2], recorded, atol=1e-8)


def test_long_runs_are_thinned_to_the_frame_limit_keeping_the_last_state():
    system = systems.load("rolling_disc")
    traj = _run(system, t_end=0.5, samples=301)
    data = scene_data(traj, system, max_frames=20)
    assert len(data["t"]) <= 20 and data["t"][-1] == pytest.approx(traj.t[-1])


def test_bad_requests_are_refused_with_the_reason():
    system = systems.load("rolling_disc")
    traj = _run(system, t_end=0.2, samples=5)
    with pytest.raises(ValueError, match="visuals of 'rolling_disc' are"):
        scene_data(traj, system, trails=("wheel",))
    abstract = systems.load("pfaffian_exact")  # an abstract Pfaffian example: no bodies, no shapes
    traj_abstract = _run(abstract, "dependent", t_end=0.01, samples=3)
    with pytest.raises(ValueError, match="has no visuals"):
        traj_abstract.show()


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for the module's page tests (skipped, saying why, where there is none)."""
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine (Debian: apt-get install chromium); the page itself is untested")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _picture(page):
    from matplotlib.image import imread

    return (imread(io.BytesIO(page.screenshot()), format="png")[..., :3] * 255).round().astype(int)


def _share_of(picture, colour):
    rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return float(np.mean(np.all(np.abs(picture - rgb) <= 3, axis=-1)))


CASES = {"rolling_disc": (lambda: systems.load("rolling_disc"), ["#2471a3", "#d68910"]),
         "bicycle": (lambda: systems.load("bicycle"), ["#2c3e50", "#d68910", "#e6b0aa", "#7d3c98"]),
         "user system": (_user_system, ["#ff0000"])}


@pytest.mark.parametrize("case", [c if c != "bicycle" else pytest.param(c, marks=pytest.mark.slow)  # its build: 5 s
                                  for c in CASES])
def test_the_page_draws_the_bodies_in_chromium_offline_and_the_slider_moves_them(case, browser, tmp_path):
    make, colours = CASES[case]
    system = make()
    traj = _run(system, "dependent" if case == "user system" else "minimal")
    assert traj.status == 0
    path = show(traj, system=system, path=tmp_path / "scene.html").save(tmp_path / "scene.html")
    context = browser.new_context(viewport={"width": 800, "height": 560})
    try:
        page = context.new_page()
        errors, requests = [], []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_function("window.pfaffScene && window.pfaffScene.ready", timeout=60_000)
        first = _picture(page)
        last_frame = page.evaluate("window.pfaffScene.frames") - 1
        page.locator("#frame").fill(str(last_frame))  # the slider, moved to the end
        page.wait_for_function(f"window.pfaffScene.frame === {last_frame}")
        last = _picture(page)
        page = context.new_page()
        page.goto(path.as_uri() + "#flat,follow")  # unlit: every body in exactly its colour, from near
        page.wait_for_function("window.pfaffScene && window.pfaffScene.ready", timeout=60_000)
        flat = _picture(page)
    finally:
        context.close()
    assert not errors, errors
    assert all(url.startswith(("file:", "blob:")) for url in requests), requests
    assert np.mean(np.any(first != last, axis=-1)) > 0.001  # the picture changed with the slider
    assert first.std() > 10  # not a blank page
    for colour in colours:
        assert _share_of(flat, colour) > 0.0002, f"{case}: no pixels of {colour} where the camera looks"


def test_cli_writes_the_scene_of_a_run_and_of_a_comparison(tmp_path, capsys):
    from formulations.workbench.cli.main import main

    page = tmp_path / "disc.html"
    assert main(["simulate", "rolling_disc", "--t-end", "0.5", "--backend", "numpy", "--html", str(page)]) == 0
    assert "scene written to" in capsys.readouterr().out
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and '"name":"disc"' in text and "three.js" in text.lower()
    assert "http://" not in text.split('<script id="three-js"')[0]  # the page's own part names no address
    out = tmp_path / "report"
    assert main(["compare", "rolling_disc", "--t-end", "0.3", "--formulations", "minimal", "--backend", "numpy",
                 "--out", str(out), "--quiet"]) == 0
    assert (out / "scene.html").exists() and "scene.html" in (out / "report.md").read_text()


def test_cli_refuses_a_scene_it_cannot_draw_before_running(tmp_path, capsys):
    from formulations.workbench.cli.main import main

    assert main(["simulate", "pfaffian_exact", "--t-end", "0.01", "--html", str(tmp_path / "s.html")]) == 2
    assert "has no visuals" in capsys.readouterr().err
    assert main(["simulate", "rolling_disc", "--t-end", "0.01", "--html", str(tmp_path / "no" / "s.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_run_with_contacts_carries_its_modes_and_events_to_the_page():
    """simulate_contacts' modes and events go to the page's data, which shows them for each frame's time."""
    ball = systems.load("sliding_ball")
    run = F.simulate_contacts(ball, (0.0, 0.5))
    data = scene_data(run, ball)
    assert [m["label"] for m in data["modes"]] == ["sliding: normal force", "all closed, sticking"]
    assert data["events"] == [{"t": round(run.events[0].t, 9), "text": "rolls normal force"}]
    assert "modes" not in scene_data(_run(systems.load("rolling_disc")), systems.load("rolling_disc"))


def test_the_page_shows_the_contact_state_of_the_frame_in_chromium(browser, tmp_path):
    ball = systems.load("sliding_ball")
    run = F.simulate_contacts(ball, (0.0, 0.5), t_eval=np.linspace(0.0, 0.5, 51))
    path = show(run, system=ball, path=tmp_path / "scene.html").save(tmp_path / "scene.html")
    context = browser.new_context(viewport={"width": 800, "height": 560})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(path.as_uri())
        page.wait_for_function("window.pfaffScene && window.pfaffScene.ready", timeout=60_000)
        first = page.locator("#contacts").inner_text()
        last_frame = page.evaluate("window.pfaffScene.frames") - 1
        page.locator("#frame").fill(str(last_frame))
        page.wait_for_function(f"window.pfaffScene.frame === {last_frame}")
        last = page.locator("#contacts").inner_text()
    finally:
        context.close()
    assert not errors, errors
    assert first == "contacts: sliding: normal force"
    assert last.startswith("contacts: all closed, sticking") and "last event: rolls normal force at t = 0.2912" in last
