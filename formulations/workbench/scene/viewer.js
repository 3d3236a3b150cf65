// The scene page's viewer: three.js (inlined in the page, imported from a Blob URL: no network) draws
// the system's visuals at the recorded states; a slider, play/pause, speed and an orbiting camera.
// Axes: z up (world axes of the description). window.pfaffScene exposes the frame for tests.
const source = document.getElementById("three-js").textContent;
const THREE = await import(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
const data = JSON.parse(document.getElementById("scene-data").textContent);
const k = data.t.length;

const view = document.getElementById("view");
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
view.appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0xf4f6f7);
scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(3, -4, 6);
scene.add(sun);

function geometry(body) {
  const s = body.sizes;
  switch (body.kind) {
    case "box": return new THREE.BoxGeometry(s[0], s[1], s[2]);
    case "cylinder": return new THREE.CylinderGeometry(s[0], s[0], s[1], 48);  // axis y, as the shape's
    case "sphere": return new THREE.SphereGeometry(s[0], 40, 20);
    case "point": return new THREE.SphereGeometry(s[0], 16, 8);
    case "ellipsoid": return new THREE.SphereGeometry(1, 40, 20).scale(s[0], s[1], s[2]);
    case "torus": return new THREE.TorusGeometry(s[0], s[1], 16, 72).rotateX(Math.PI / 2);  // axis z -> y
    case "link": return new THREE.CylinderGeometry(s[0], s[0], 1, 20).translate(0, 0.5, 0);  // unit rod along y
    case "plane": return new THREE.PlaneGeometry(2 * s[0], 2 * s[0]);  // normal z
    case "wall": return new THREE.CylinderGeometry(s[0], s[0], s[1], 72, 1, true).rotateX(Math.PI / 2)
      .translate(0, 0, s[1] / 2);  // axis z, from the pose's height up
  }
  throw new Error("unknown shape " + body.kind);
}

// "#flat" in the address: unlit, opaque colours (each body in exactly its colour, for checking pictures);
// "#follow": the camera follows the bodies from the start (both may be given: "#flat,follow")
const flat = window.location.hash.includes("flat");
const meshes = data.bodies.map((body) => {
  if (body.kind === "arrow") {  // a force: redrawn at every frame from its point and tip
    const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 1, body.colour);
    arrow.name = body.name;
    for (const part of [arrow.line, arrow.cone]) {  // drawn over the bodies: a force at a contact is inside them
      part.material.depthTest = false;
      part.renderOrder = 10;
    }
    scene.add(arrow);
    return arrow;
  }
  const options = {
    color: body.colour, transparent: !flat && body.opacity < 1, opacity: flat ? 1 : body.opacity,
    side: body.kind === "wall" || body.kind === "plane" ? THREE.DoubleSide : THREE.FrontSide,
  };
  const material = flat ? new THREE.MeshBasicMaterial(options)
    : new THREE.MeshStandardMaterial({ ...options, roughness: 0.6, metalness: 0.05 });
  const mesh = new THREE.Mesh(geometry(body), material);
  mesh.matrixAutoUpdate = false;
  mesh.name = body.name;
  scene.add(mesh);
  if (body.kind === "plane") {
    const grid = new THREE.GridHelper(2 * body.sizes[0], 16, 0x95a5a6, 0xd5dbdb);
    grid.rotateX(Math.PI / 2);
    grid.position.set(body.position[0], body.position[1], body.position[2] + 1e-4);
    scene.add(grid);
  }
  return mesh;
});

const trails = data.trails.map((trail) => {
  const points = [];
  for (let i = 0; i < k; i++) points.push(new THREE.Vector3(...trail.points.slice(3 * i, 3 * i + 3)));
  const line = new THREE.Line(new THREE.BufferGeometry().setFromPoints(points),
    new THREE.LineBasicMaterial({ color: trail.colour }));
  scene.add(line);
  return line;
});

const up = new THREE.Vector3(0, 1, 0);
function pose(i) {
  data.bodies.forEach((body, b) => {
    const p = body.position.length === 3 ? body.position : body.position.slice(3 * i, 3 * i + 3);
    const mesh = meshes[b];
    if (body.kind === "arrow") {
      const e = body.end.slice(3 * i, 3 * i + 3);
      const d = new THREE.Vector3(e[0] - p[0], e[1] - p[1], e[2] - p[2]);
      const length = d.length();
      mesh.visible = e[0] !== null && length > 0;  // null: the run has no multipliers here
      if (mesh.visible) {
        mesh.position.set(...p);
        mesh.setDirection(d.normalize());
        const head = Math.min(0.3 * length, 0.25 * data.extent);
        mesh.setLength(length, head, 0.5 * head);
      }
      return;
    }
    if (body.kind === "link") {
      const e = body.end.slice(3 * i, 3 * i + 3);
      const d = new THREE.Vector3(e[0] - p[0], e[1] - p[1], e[2] - p[2]);
      const length = d.length();
      const q = new THREE.Quaternion().setFromUnitVectors(up, d.clone().normalize());
      mesh.matrix.compose(new THREE.Vector3(...p), q, new THREE.Vector3(1, Math.max(length, 1e-9), 1));
    } else {
      const R = body.rotation.length === 9 ? body.rotation : body.rotation.slice(9 * i, 9 * i + 9);
      mesh.matrix.set(R[0], R[1], R[2], p[0], R[3], R[4], R[5], p[1], R[6], R[7], R[8], p[2], 0, 0, 0, 1);
    }
    mesh.matrixWorldNeedsUpdate = true;
  });
  trails.forEach((line) => line.geometry.setDrawRange(0, i + 1));
}

// the camera looks at the middle of everything that moves, from a distance that holds it all; where
// the path is much larger than the bodies, it follows them instead ("follow", on by default then)
const moving = data.bodies.filter((body) => body.kind !== "plane" && body.kind !== "wall");
function boxAt(i) {
  const box = new THREE.Box3();
  for (const body of moving) {
    for (const list of [body.position, body.kind === "arrow" ? [] : body.end || []]) {
      const j = list.length === 3 ? 0 : 3 * i;
      if (j + 2 < list.length) box.expandByPoint(new THREE.Vector3(list[j], list[j + 1], list[j + 2]));
    }
  }
  return box;
}
const path = new THREE.Box3();
for (let i = 0; i < k; i++) path.union(boxAt(i));
for (const wall of data.bodies.filter((body) => body.kind === "wall")) {  // its circle, at the bodies' heights
  const [x, y] = wall.position, z = path.isEmpty() ? wall.position[2] : path.min.z, r = wall.sizes[0];
  path.expandByPoint(new THREE.Vector3(x - r, y - r, z)).expandByPoint(new THREE.Vector3(x + r, y + r, z));
}
const size = (box) => (box.isEmpty() ? 0 : box.getSize(new THREE.Vector3()).length() / 2);
const pathRadius = Math.max(size(path), data.extent, 1e-3);
const bodyRadius = Math.max(size(boxAt(0)), size(boxAt(k - 1))) + Math.max(data.extent, 1e-3);
const followBox = document.getElementById("follow");
const walled = data.bodies.some((body) => body.kind === "wall");  // a wall bounds the stage: show it all
followBox.checked = window.location.hash.includes("follow") || (!walled && pathRadius > 5 * bodyRadius);
const FAR = 3.2;  // distance / radius: a 40 degree view holds the sphere of that radius
const target = path.isEmpty() ? new THREE.Vector3() : path.getCenter(new THREE.Vector3());
const camera = new THREE.PerspectiveCamera(40, 1, bodyRadius / 100, pathRadius * 100);
camera.up.set(0, 0, 1);
// a planar mechanism (everything in one plane y = const, as the catalogue draws them) is seen from the front
const planar = !path.isEmpty() && path.max.y - path.min.y < 1e-9 * Math.max(1, pathRadius);
let azimuth = planar ? -Math.PI / 2 : -Math.PI / 3, elevation = planar ? 0.12 : 0.45;
let distance = FAR * (followBox.checked ? bodyRadius : pathRadius);
function aim(i) {
  if (followBox.checked) {
    const box = boxAt(i);
    if (!box.isEmpty()) box.getCenter(target);
  } else if (!path.isEmpty()) {
    path.getCenter(target);
  }
}
function place() {
  camera.position.set(target.x + distance * Math.cos(elevation) * Math.cos(azimuth),
    target.y + distance * Math.cos(elevation) * Math.sin(azimuth), target.z + distance * Math.sin(elevation));
  camera.lookAt(target);
}
place();

let dragging = null;
renderer.domElement.addEventListener("pointerdown", (e) => { dragging = [e.clientX, e.clientY]; });
window.addEventListener("pointerup", () => { dragging = null; });
window.addEventListener("pointermove", (e) => {
  if (!dragging) return;
  azimuth -= (e.clientX - dragging[0]) * 0.01;
  elevation = Math.min(1.5, Math.max(-1.5, elevation + (e.clientY - dragging[1]) * 0.01));
  dragging = [e.clientX, e.clientY];
  place();
  draw();
});
renderer.domElement.addEventListener("wheel", (e) => {
  e.preventDefault();
  distance *= Math.exp(e.deltaY * 0.001);
  place();
  draw();
}, { passive: false });

const slider = document.getElementById("frame");
const clock = document.getElementById("time");
const play = document.getElementById("play");
const speed = document.getElementById("speed");
slider.max = String(k - 1);
let frame = 0;
function draw() {
  renderer.render(scene, camera);
}
// a run with contacts: the mode at the frame's time and the last contact event before it
const contactBox = document.getElementById("contacts");
function contactState(t) {
  if (!data.modes) return;
  const mode = data.modes.filter((m) => m.start <= t + 1e-12).pop() || data.modes[0];
  const event = data.events.filter((e) => e.t <= t + 1e-12).pop();
  contactBox.hidden = false;
  contactBox.textContent = "contacts: " + mode.label
    + (event ? " \u00b7 last event: " + event.text + " at t = " + event.t.toFixed(4) + " s" : "");
}
function show(i) {
  frame = Math.max(0, Math.min(k - 1, i | 0));
  slider.value = String(frame);
  clock.textContent = "t = " + data.t[frame].toFixed(3) + " s";
  contactState(data.t[frame]);
  pose(frame);
  aim(frame);
  place();
  draw();
}
followBox.addEventListener("change", () => {
  distance = FAR * (followBox.checked ? bodyRadius : pathRadius);
  show(frame);
});
function resize() {
  const w = view.clientWidth, h = view.clientHeight;
  renderer.setSize(w, h, false);
  camera.aspect = w / Math.max(h, 1);
  camera.updateProjectionMatrix();
  draw();
}
slider.addEventListener("input", () => { playing = false; play.textContent = "play"; show(Number(slider.value)); });
let playing = false, started = 0, startT = 0;
play.addEventListener("click", () => {
  playing = !playing;
  play.textContent = playing ? "pause" : "play";
  if (frame >= k - 1) show(0);
  started = performance.now();
  startT = data.t[frame];
  if (playing) requestAnimationFrame(tick);
});
function tick(now) {
  if (!playing) return;
  const t = startT + (now - started) / 1000 * Number(speed.value);
  let i = frame;
  while (i < k - 1 && data.t[i + 1] <= t) i++;
  show(i);
  if (i >= k - 1) { playing = false; play.textContent = "play"; return; }
  requestAnimationFrame(tick);
}
// the named forces and paths, in their colours
const legend = document.getElementById("legend");
for (const item of data.bodies.filter((body) => body.kind === "arrow").concat(data.trails)) {
  const entry = document.createElement("li");
  const mark = document.createElement("span");
  mark.style.color = item.colour;
  mark.textContent = item.kind === "arrow" ? "\u2192 " : "\u2014 ";
  entry.append(mark, item.kind === "arrow" ? `${item.name} (${(1 / item.sizes[0]).toPrecision(3)} N per m)`
    : `path of ${item.name}`);
  legend.appendChild(entry);
}
window.addEventListener("resize", resize);
resize();
show(0);
window.pfaffScene = { frames: k, show, get frame() { return frame; }, ready: true };
document.body.dataset.ready = "yes";
