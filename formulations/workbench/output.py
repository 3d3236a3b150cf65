"""Report folders written safely.

The target is checked before any work starts (an empty path, an existing file, a path under a file,
a folder that cannot be made, a folder that is not empty without ``force``). The report is built
in a temporary folder beside the target (``.NAME.XXXX.partial``) and moved into place when it is
complete, so that the target never holds half a report; a lock file beside the target
(``.NAME.lock``) keeps a second writer out while the first one runs. With ``force`` an existing
folder keeps its other files: only the files of the previous report (listed in its manifest
``.pfaff-report``) and the files of the new one are replaced.
"""
from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import tempfile

from ..solvers.interrupts import held_back

try:
    import fcntl
except ImportError:  # pragma: no cover  (not POSIX: an exclusive create stands in for the lock)
    fcntl = None

MANIFEST = ".pfaff-report"


class OutputError(Exception):
    """An output path that cannot be used; the message names the path, the reason and the fix."""


def write_atomic(path, text: str) -> pathlib.Path:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename, so that a
    reader sees the old file or the new one, never a part."""
    path = pathlib.Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def check(path, force: bool = False, option: str = "--out") -> pathlib.Path:
    """The absolute target folder for ``path``, or OutputError saying why it cannot be used."""
    text = "" if path is None else str(path)
    if not text.strip():
        raise OutputError(f"{option} got an empty path; expected a folder name, e.g. {option} report")
    target = pathlib.Path(text).expanduser().absolute()
    if target.exists() and not target.is_dir():
        raise OutputError(f"{option} {text!r} is an existing file; expected a folder (a new or an empty one)")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{option} {text!r} lies under the file {str(existing)!r}; expected a folder path")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"{option} {text!r}: no permission to write in {str(existing)!r}; choose another folder")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise OutputError(f"{option} {text!r} is a folder that is not empty; choose a new folder, or add --force "
                          f"to replace the report files in it (other files are kept)")
    return target


class OutputFolder:
    """A report folder: ``with OutputFolder(path, force) as out:`` checks the target, takes the lock
    and makes the temporary folder ``out.tmp``; ``out.commit()`` moves the files into place. On
    leaving without a commit (an error, Ctrl-C) the temporary folder and any parent folders made
    for it are removed; the lock is always released."""

    def __init__(self, path, force: bool = False, option: str = "--out"):
        self.text, self.option, self.force = str(path), option, force
        self.target = check(path, force, option)
        self.lock_path = self.target.parent / f".{self.target.name}.lock"
        self.tmp = None
        self.committed = False
        self._made = []   # parent folders made here, removed again if still empty
        self._lock = None

    def __enter__(self):
        try:
            self._make_parents()
            self._acquire()
            self.tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{self.target.name}.", suffix=".partial",
                                                     dir=self.target.parent))
        except OSError as exc:
            self._cleanup()
            raise OutputError(f"{self.option} {self.text!r}: cannot make the folder there ({exc.strerror or exc}); "
                              f"choose another folder") from None
        except BaseException:
            self._cleanup()
            raise
        return self

    def __exit__(self, *exc):
        self._cleanup()
        return False

    def _make_parents(self):
        missing = []
        parent = self.target.parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        for folder in reversed(missing):
            folder.mkdir()
            self._made.append(folder)

    def _acquire(self):
        while True:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | (0 if fcntl else os.O_EXCL), 0o644)
            except FileExistsError:
                raise OutputError(f"{self.option} {self.text!r} is locked by {str(self.lock_path)!r}: another run "
                                  f"is writing it, or one stopped without removing the lock") from None
            if fcntl is None:
                break
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                owner = os.read(fd, 32).decode(errors="replace").strip() or "?"
                os.close(fd)
                raise OutputError(f"{self.option} {self.text!r} is being written by another run (process {owner}); "
                                  f"wait for it to finish or choose another folder") from None
            try:  # the file may have been removed by the run that held it just before
                same = os.fstat(fd).st_ino == os.stat(self.lock_path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock = fd

    def commit(self) -> pathlib.Path:
        """Move the finished report into place (Ctrl-C is held back until the move is done)."""
        with _interrupt_deferred():
            names = sorted(p.name for p in self.tmp.iterdir())
            write_atomic(self.tmp / MANIFEST, "\n".join(names) + "\n")
            try:
                if self.target.is_dir() and not any(self.target.iterdir()):
                    self.target.rmdir()
                if not self.target.exists():
                    os.rename(self.tmp, self.target)
                else:
                    self._replace_files(names)
            except OSError as exc:
                raise OutputError(f"{self.option} {self.text!r}: could not move the report into place "
                                  f"({exc.strerror or exc}); it is kept in {str(self.tmp)!r}") from None
            self.committed = True
        return self.target

    def _replace_files(self, names):
        manifest = self.target / MANIFEST
        old = manifest.read_text().split() if manifest.is_file() else []
        for name in old:
            path = self.target / name
            if name not in names and "/" not in name and path.is_file():
                path.unlink()
        for name in names + [MANIFEST]:
            os.replace(self.tmp / name, self.target / name)
        self.tmp.rmdir()

    def _cleanup(self):
        if self.tmp is not None and not self.committed and self.tmp.exists():
            shutil.rmtree(self.tmp, ignore_errors=True)
        if self._lock is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.lock_path)
            os.close(self._lock)
            self._lock = None
        if not self.committed:
            for folder in reversed(self._made):
                with contextlib.suppress(OSError):
                    folder.rmdir()


@contextlib.contextmanager
def _interrupt_deferred():
    """Hold SIGINT back for the duration of the block; raise KeyboardInterrupt after it if one came."""
    with held_back() as caught:
        yield
    if caught:
        raise KeyboardInterrupt
