"""A private local socket per store, where a long-lived process of the store (``hindsight mcp``,
``hindsight ui``) answers the hooks' repeat recall warm (docs/hooks.md, "Warm recall").

Only this user's processes meet there, and a failure of any kind means "no server": the caller
does the work itself. The rules, against another local user and against a repository that ships a
``.hindsight/`` or a link:

- the socket lives in a directory of this user's runtime files (``$XDG_RUNTIME_DIR/hindsight``,
  else ``/tmp/hindsight-<uid>``), which must be a real directory (not a link) that this user owns
  and nobody else can enter (mode 0700); its name is a hash of the store's real path, so a path of
  any length fits ``sun_path`` (108 bytes);
- the socket is 0600 and owned by this user, and the client does not connect to anything else (a
  link, a file, another user's socket); both ends then check the other's uid on the connection
  (``SO_PEERCRED`` on Linux, ``LOCAL_PEERCRED`` on macOS; elsewhere, Windows included, nobody
  meets: the hooks always work cold);
- a socket left by a killed server refuses at once (the hook goes cold); the next server replaces
  it only if it is a socket of this user's that nobody answers, by renaming its own over it.

Standard library only, and only ``os`` and ``stat`` at import: a hook without a server pays for
nothing more than two ``lstat`` calls (``socket`` and the rest load once there is a socket).
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable

_EUID = os.geteuid() if hasattr(os, "geteuid") else None
# connections answered at once; more are closed (their hooks go cold)
WORKERS = 4
# seconds a connection may take to send its request and read its answer
REQUEST_TIMEOUT = 2.0
_LISTENERS: list[Listener] = []


def _private(directory: str, create: bool) -> bool:
    """Whether ``directory`` is a real directory of this user's that nobody else may enter (made so
    when missing and ``create``)."""
    if create:
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass
        except OSError:
            return False
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == _EUID and not stat.S_IMODE(st.st_mode) & 0o077


def runtime_dir(create: bool = False) -> str | None:
    """This user's directory for sockets, or None where there is none that is safe."""
    if _EUID is None or sys.platform == "win32":
        return None
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isabs(base) and _private(base, create=False):
        directory = os.path.join(base, "hindsight")
    else:
        directory = os.path.join("/tmp", f"hindsight-{_EUID}")
    return directory if _private(directory, create) else None


def socket_path(store: str, create: bool = False) -> str | None:
    """Where the server of ``store`` listens (None: nowhere safe)."""
    try:
        # the same digest as hashlib's, without loading OpenSSL (2.5 ms of a hook)
        from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        from hashlib import sha256

    directory = runtime_dir(create)
    if directory is None:
        return None
    key = sha256(os.path.realpath(store).encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(directory, key[:24] + ".sock")


def peer_uid(conn: socket.socket) -> int | None:
    """The uid of the process at the other end of ``conn`` (None: the platform cannot tell)."""
    import socket
    import struct

    try:
        option = getattr(socket, "SO_PEERCRED", None)
        if option is not None:
            data = conn.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
            return int(struct.unpack("3i", data)[1])
        if sys.platform == "darwin":
            # struct xucred: cr_version, cr_uid, ... (SOL_LOCAL 0, LOCAL_PEERCRED 1)
            data = conn.getsockopt(0, 1, 76)
            return int(struct.unpack("Ii", data[:8])[1])
    except (OSError, ValueError):
        return None
    return None


def _ours(path: str) -> os.stat_result | None:
    """``path``'s status if it is a socket of this user's (not a link, not anything else)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st if stat.S_ISSOCK(st.st_mode) and st.st_uid == _EUID else None


def connect(store: str, timeout: float) -> socket.socket | None:
    """A connection to the server of ``store``, or None (no server, or not one to trust)."""
    path = socket_path(store)
    if path is None or _ours(path) is None:
        return None
    import socket

    if not hasattr(socket, "AF_UNIX"):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return None
    if _EUID is None or peer_uid(conn) != _EUID:
        conn.close()
        return None
    return conn


def read_line(conn: socket.socket, limit: int) -> bytes:
    """One line (without its newline) of at most ``limit`` bytes; ``ValueError`` past it or at an
    end without a newline. The socket's timeout bounds each wait."""
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise ValueError("the connection ended before a whole line")
        data += chunk
        if len(data) > limit + 1:
            raise ValueError("the line is too long")
    line, _, _ = data.partition(b"\n")
    if len(line) > limit:
        raise ValueError("the line is too long")
    return line


class Listener:
    """The server end: accepts this user's connections on a thread and hands each to ``handle`` on
    a thread of its own (at most ``WORKERS`` at once); ``close`` removes the socket."""

    def __init__(self, store: str, handle: Callable[[socket.socket], None]) -> None:
        import threading

        self.store, self.handle = store, handle
        self.path: str | None = None
        self._sock: socket.socket | None = None
        self._inode: tuple[int, int] | None = None
        self._closed = threading.Event()
        # connections being answered
        self._busy = threading.Condition()
        self._active = 0

    def start(self) -> str | None:
        """Listen; the reason it does not (another server answers there, no safe place), or None."""
        import socket
        import threading

        path = socket_path(self.store, create=True)
        if path is None or not hasattr(socket, "AF_UNIX"):
            return "no private runtime directory for the socket"
        if os.path.lexists(path):
            if _ours(path) is None:
                return f"{path} is not a socket of this user's; left alone"
            probe = connect(self.store, 0.2)
            if probe is not None:
                probe.close()
                return "another process of this store answers there"
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        staging = f"{path}.{os.getpid()}.{threading.get_ident()}"
        try:
            if os.path.lexists(staging):
                os.unlink(staging)
            sock.bind(staging)
            os.chmod(staging, 0o600)
            sock.listen(16)
            # replaces a dead server's socket in one step; nobody ever finds no file mid-way
            os.rename(staging, path)
            st = os.lstat(path)
        except OSError as error:
            sock.close()
            if os.path.lexists(staging):
                os.unlink(staging)
            return f"cannot listen at {path}: {error}"
        self.path, self._sock, self._inode = path, sock, (st.st_dev, st.st_ino)
        sock.settimeout(0.5)
        _LISTENERS.append(self)
        threading.Thread(target=self._accept, daemon=True, name="hindsight-warm-recall").start()
        return None

    def _accept(self) -> None:
        import threading

        assert self._sock is not None
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._busy:
                admitted = peer_uid(conn) == _EUID and self._active < WORKERS
                self._active += admitted
            if not admitted:
                conn.close()
                continue
            conn.settimeout(REQUEST_TIMEOUT)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                self.handle(conn)
        except Exception:  # noqa: BLE001 - one bad connection never stops the server
            pass
        finally:
            with self._busy:
                self._active -= 1
                self._busy.notify_all()

    def close(self, wait: float = REQUEST_TIMEOUT) -> None:
        """Stop accepting, let the answers under way finish (for ``wait`` seconds at most) and
        remove the socket, if it is still this listener's."""
        if self._closed.is_set():
            return
        self._closed.set()
        # a hook's answer under way finishes (its injection record is written) before the exit
        with self._busy:
            self._busy.wait_for(lambda: self._active == 0, wait)
        if self.path is not None:
            st = _ours(self.path)
            if st is not None and (st.st_dev, st.st_ino) == self._inode:
                try:
                    os.unlink(self.path)
                except OSError:
                    pass
        if self._sock is not None:
            self._sock.close()
        if self in _LISTENERS:
            _LISTENERS.remove(self)


def close_all(wait: float) -> None:
    """Remove every socket this process listens at (before an ``os._exit``), after ``wait`` seconds
    at most for the answers under way."""
    for listener in list(_LISTENERS):
        listener.close(wait)
