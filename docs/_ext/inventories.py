"""intersphinx inventories: the names these pages refer to, stored in ``docs/_inventories/NAME.txt``
(one line per object, in the inventory's own format: ``name domain:role priority uri display``) and
written out as an ``objects.inv`` when the site is built. The links go to each site; the build
reads no network, so it gives the same result offline and online (a name missing from the stored
lists fails the nitpicky build either way: add its line)."""
import atexit
import pathlib
import shutil
import tempfile
import zlib

STORED = pathlib.Path(__file__).parent.parent / "_inventories"
SITES = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "sympy": "https://docs.sympy.org/latest/",
    "matplotlib": "https://matplotlib.org/stable/",
}


def _written(name: str, folder: pathlib.Path) -> str:
    """The stored names of site ``name`` as an objects.inv (version 2) file in ``folder``."""
    lines = [line for line in (STORED / f"{name}.txt").read_text().splitlines() if line and not line.startswith("#")]
    header = (f"# Sphinx inventory version 2\n# Project: {name}\n# Version: \n"
              "# The remainder of this file is compressed using zlib.\n")
    path = folder / f"{name}.inv"
    path.write_bytes(header.encode() + zlib.compress(("\n".join(lines) + "\n").encode()))
    return str(path)


_FOLDER = pathlib.Path(tempfile.mkdtemp(prefix="pfaff-inventories-"))
atexit.register(shutil.rmtree, _FOLDER, ignore_errors=True)
intersphinx_mapping = {name: (url, _written(name, _FOLDER)) for name, url in SITES.items()}
