"""Host and Origin checks for the HTTP servers (``hindsight mcp --transport http``, ``hindsight ui``),
whatever address they listen on.

A web page can reach a server on the user's machine or network through DNS rebinding: its own name
(``evil.example``) starts resolving to the server's address, and the browser sends the page's
requests there with ``Host: evil.example``. So every request must name the server by one of its own
names: a loopback name, the address it listens on, the address the request arrived at, the machine's
host name, or a name the user added (``--allowed-host``, ``[mcp] allowed_hosts``). A name without a
port is accepted on any port; ``name:port`` only on that port. A browser's ``Origin``, when present,
must be an ``http(s)`` origin of an accepted name; clients that are not browsers send none.

Each of ``Host``, ``Origin``, ``Authorization``, ``MCP-Protocol-Version`` and ``Mcp-Session-Id`` may
be sent once: the layers behind the guard read them with different libraries (the MCP SDK
authenticates and routes by the first of each, a plain dict of the headers keeps the last), so a
request naming one twice could be one agent, or one session or protocol generation, to one layer and
another, or none, to the next (the per-agent session quota would not count a session the SDK opens).

A server without tokens (``hindsight mcp --transport http`` on loopback) answers the user who
started it, and only that user: every account of a shared machine can reach a loopback port, so a
request from a connection another local user opened is refused (``same_user``: the connection's
owner asked of the kernel, ``peer_uid``; where Linux cannot be asked the check cannot be made, and
tokens are the way to tell people apart).
"""

from __future__ import annotations

import errno
import functools
import ipaddress
import logging
import os
import socket
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..errors import InvalidInput
from ..safefs.reading import whole_number

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("hindsight.mcp")
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
EVERY_INTERFACE = ("", "0.0.0.0", "::")
# headers that decide who a request is, where it comes from and which session (or protocol
# generation, which decides whether it opens one) it goes to: at most one of each
ONCE = ("host", "origin", "authorization", "mcp-protocol-version", "mcp-session-id")


def split_host(value: str) -> tuple[str, int | None]:
    """``name``, ``name:port``, ``[v6]``, ``[v6]:port`` → (lower-case name without brackets or final
    dot, port)."""
    text = value.strip().lower()
    port: int | None = None
    if text.startswith("["):
        name, _, rest = text[1:].partition("]")
        if rest.startswith(":") and whole_number(rest[1:]) is not None:
            port = whole_number(rest[1:])
    elif text.count(":") == 1:
        name, _, digits = text.partition(":")
        # a port that is not a number matches nothing
        found = whole_number(digits)
        port = -1 if found is None else found
    else:
        name = text
    return name.rstrip("."), port


def is_loopback(host: str) -> bool:
    """Whether a bind address serves this machine only (``localhost``, ``127.x.x.x``, ``::1``)."""
    name, _ = split_host(host)
    if name == "localhost":
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    # ``::ffff:127.0.0.1``, a dual-stack socket's IPv4 loopback peer (Python 3.11 says no)
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


@dataclass(frozen=True)
class HostPolicy:
    """The names a request may call this server by: ``any_port`` on every port, ``pinned`` on
    one."""

    any_port: frozenset[str]
    pinned: frozenset[tuple[str, int]]

    def allows(self, host: str | None, arrived_at: str | None = None) -> bool:
        """Whether a ``Host`` header names this server; ``arrived_at`` is the local address of the
        connection (an address literal that equals it cannot be a rebound name)."""
        if not host:
            return False
        name, port = split_host(host)
        if port == -1:
            return False
        if name in self.any_port or (port is not None and (name, port) in self.pinned):
            return True
        return arrived_at is not None and name == split_host(arrived_at)[0] and _is_address(name)

    def allows_origin(self, origin: str | None, arrived_at: str | None = None) -> bool:
        """Absent is fine (not a browser); present, it must be http(s) on an accepted name."""
        if origin is None:
            return True
        try:
            parts = urlsplit(origin.strip())
            port = parts.port
        except ValueError:
            return False
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path not in ("", "/")
        ):
            return False
        shown = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        return self.allows(f"{shown}:{port}" if port is not None else shown, arrived_at)

    def names(self) -> list[str]:
        return sorted(self.any_port) + sorted(f"{n}:{p}" for n, p in self.pinned)


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def machine_names() -> list[str]:
    """This machine's host name and its first label (in a container: the container's host name).
    No DNS lookup: a server must start without a network."""
    name = socket.gethostname().lower().rstrip(".")
    return [n for n in dict.fromkeys([name, name.split(".")[0]]) if n]


def host_policy(bind: str, extra: Iterable[str] = ()) -> HostPolicy:
    """Loopback names, the bind address (unless it is every interface), the machine's names,
    ``extra``."""
    any_port = set(LOOPBACK_NAMES) | set(machine_names())
    bound, _ = split_host(bind)
    if bound not in EVERY_INTERFACE:
        any_port.add(bound)
    pinned = set()
    for entry in extra:
        name, port = split_host(str(entry))
        if not name or port == -1 or any(c in name for c in "/@ "):
            raise InvalidInput(
                f"Invalid allowed host {entry!r}: give a host name, an address or name:port, "
                "e.g. memory.internal or proxy.example:443."
            )
        if port is None:
            any_port.add(name)
        else:
            pinned.add((name, port))
    return HostPolicy(frozenset(any_port), frozenset(pinned))


def repeated(raw: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The first of ``ONCE`` that a request's raw headers carry more than once, or None."""
    names = [name.decode("latin-1").lower() for name, _ in raw]
    return next((name for name in ONCE if names.count(name) > 1), None)


_TCP_TABLES = ("/proc/net/tcp", "/proc/net/tcp6")


def _proc_address(host: str, port: int) -> list[str]:
    """How ``/proc/net/tcp`` (and ``tcp6``) write ``host:port``: each 32-bit word of the address
    in the machine's byte order, then the port, in hex (an IPv4 address also as IPv6-mapped)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return []
    # a dual-stack socket names an IPv4 peer ::ffff:a.b.c.d, which the IPv4 table lists plain
    mapped = getattr(address, "ipv4_mapped", None)
    forms = [address] + (
        [ipaddress.IPv6Address(f"::ffff:{address}")] if address.version == 4 else []
    )
    forms += [mapped] if mapped is not None else []
    out = []
    for form in forms:
        packed = form.packed
        words = (struct.unpack("=I", packed[i : i + 4])[0] for i in range(0, len(packed), 4))
        out.append("".join(f"{word:08X}" for word in words) + f":{port:04X}")
    return out


# no table holds the connection (made elsewhere, or closed): nobody's
NOBODY = -1


def peer_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The uid that owns the client end of a TCP connection made on this machine; ``NOBODY`` when
    the kernel holds no such socket, or holds it closed by its process (no inode: an orphan, or a
    time-wait socket, which the kernel shows as uid 0 whoever opened it: a request sent, then the
    socket closed, would pass for root's); None when it cannot be told (not Linux).

    The kernel is asked for that one socket (``_diag_uid``: sock_diag, what ``ss`` uses), so the
    answer costs the same however many connections the machine holds: reading the whole
    ``/proc/net/tcp`` table on each request (its fallback) let another local account, which can
    fill that table with its own connections and closed ones, make every request of the server's
    own user (whose checks run on the event loop) as slow as it liked."""
    found = _diag_uid(client, server)
    return found if found is not None else _table_uid(client, server)


_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_NOCOOKIE = 0xFFFFFFFF


def _diag_forms(host: str) -> list[tuple[int, bytes]]:
    """(address family, 16 bytes as sock_diag takes them) for each way a socket may name
    ``host``: an IPv4 address as an IPv4 socket's and as an IPv6 socket's mapped one."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return []
    mapped = getattr(address, "ipv4_mapped", None)
    v4 = address if address.version == 4 else mapped
    forms: list[tuple[int, bytes]] = [] if v4 is None else [(socket.AF_INET, v4.packed + bytes(12))]
    if v4 is not None:
        forms.append((socket.AF_INET6, ipaddress.IPv6Address(f"::ffff:{v4}").packed))
    elif mapped is None:
        forms.append((socket.AF_INET6, address.packed))
    return forms


def _diag_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """``peer_uid`` by asking the kernel for the one socket whose local end is ``client`` and
    remote end ``server`` (``NOBODY`` when none); None when sock_diag cannot answer (no netlink,
    a kernel without its TCP diagnostics, which says "no such socket" for every one: hence
    ``_diag_works``): the tables are read instead."""
    if not _diag_works():
        return None
    try:
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as link:
            # the kernel answers at once; a guard against a hang, never a wait
            link.settimeout(1.0)
            found = _diag_find(link, client, server)
    except OSError:
        return None
    if not isinstance(found, tuple):
        return None if found is None else NOBODY
    uid, inode = found
    return uid if inode else NOBODY


@functools.lru_cache(maxsize=1)
def _diag_works() -> bool:
    """Whether sock_diag finds a connection this process holds (asked once): where it does not,
    its "no such socket" means nothing, and the tables are read instead."""
    try:
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            with socket.create_connection(listener.getsockname(), timeout=5) as near:
                far, _ = listener.accept()
                with (
                    far,
                    socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as link,
                ):
                    link.settimeout(1.0)
                    found = _diag_find(link, near.getsockname(), listener.getsockname())
    except (OSError, AttributeError):
        return False
    return isinstance(found, tuple) and found[0] == os.geteuid() and found[1] != 0


def _diag_find(
    link: socket.socket, near: tuple[str, int], far: tuple[str, int]
) -> tuple[int, int] | bool | None:
    """(uid, inode) of the TCP socket whose local end is ``near`` and remote end ``far``; False
    when the kernel holds none; None when it cannot be asked."""
    pairs = [
        (family, here, there)
        for family, here in _diag_forms(str(near[0]))
        for other, there in _diag_forms(str(far[0]))
        if other == family
    ]
    for sequence, (family, here, there) in enumerate(pairs, 1):
        request = (
            struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF)
            + struct.pack("!HH16s16s", int(near[1]), int(far[1]), here, there)
            + struct.pack("=III", 0, _NOCOOKIE, _NOCOOKIE)
        )
        header = struct.pack(
            "=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, sequence, 0
        )
        try:
            link.send(header + request)
            answer = link.recv(8192)
        except OSError:
            return None
        if len(answer) < 16:
            return None
        kind = struct.unpack_from("=H", answer, 4)[0]
        if kind == _NLMSG_ERROR:
            code = -struct.unpack_from("=i", answer, 16)[0] if len(answer) >= 20 else 0
            if code == errno.ENOENT:
                continue
            return None
        if kind != _SOCK_DIAG_BY_FAMILY or len(answer) < 16 + 72:
            return None
        uid, inode = struct.unpack_from("=II", answer, 16 + 64)
        return int(uid), int(inode)
    return False


def _table_uid(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """``peer_uid`` from the ``/proc/net/tcp`` tables, read whole."""
    ends = {
        (near, far)
        for near in _proc_address(str(client[0]), int(client[1]))
        for far in _proc_address(str(server[0]), int(server[1]))
    }
    readable = False
    for table in _TCP_TABLES:
        try:
            with open(table, encoding="ascii", errors="replace") as rows:
                readable = True
                for row in rows:
                    fields = row.split()
                    if len(fields) > 9 and (fields[1], fields[2]) in ends:
                        open_socket = fields[9] != "0"
                        return int(fields[7]) if fields[7].isdigit() and open_socket else NOBODY
        except OSError:
            continue
    return NOBODY if readable else None


def connection_owner(scope: Scope) -> int | None:
    """The local account (uid) that opened a request's connection, when it was made on this
    machine: ``NOBODY`` when it arrived at or from a loopback address but the kernel holds its
    client end closed or not at all; None when it may come from another machine or cannot be
    told (not Linux). A connection that arrives at a loopback address is this machine's, whatever
    address it comes from (a local process may connect to 127.0.0.1 from the machine's own
    192.0.2.2); one between two other addresses is this machine's when the kernel holds its
    client end (192.0.2.2 to 192.0.2.2), else another machine's. Two accounts of one machine
    share its addresses: only this tells them apart (a server without tokens answers its own user
    only, a UI session the account that opened it)."""
    client, server = scope.get("client"), scope.get("server")
    if not client or not server:
        return None
    owner = peer_uid((str(client[0]), int(client[1])), (str(server[0]), int(server[1])))
    if is_loopback(str(server[0])) or is_loopback(str(client[0])):
        return owner
    return None if owner == NOBODY else owner


class HostGuard:
    """ASGI middleware: answers 400 to a request that sends one of ``ONCE`` twice, 421
    to one whose Host is not one of the server's names and 403 to one whose Origin is not, before
    anything else runs (authentication, sessions, tools). ``same_user`` (a server without tokens):
    403 to a request over a loopback connection another local user opened."""

    def __init__(
        self,
        app: ASGIApp,
        policy: HostPolicy,
        logger: logging.Logger = log,
        same_user: bool = False,
    ) -> None:
        self.app = app
        self.policy = policy
        self.log = logger
        self.same_user = same_user

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # lifespan; the app serves no websockets
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw = list(scope.get("headers") or [])
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in raw}
        arrived_at = (scope.get("server") or (None, None))[0]
        host, origin = headers.get("host"), headers.get("origin")
        twice = repeated(raw)
        if twice is not None:
            await self._twice(scope, send, twice)
        elif not self.policy.allows(host, arrived_at):
            await self._refuse(scope, send, 421, "Host", host)
        elif not self.policy.allows_origin(origin, arrived_at):
            await self._refuse(scope, send, 403, "Origin", origin)
        elif self.same_user and not self._own(scope):
            text = (
                "This server has no tokens: it answers the user who started it only, and this "
                "connection is another local user's. Give each person a token (hindsight mcp "
                "token NAME) and serve with them."
            )
            client = (scope.get("client") or ("?", 0))[0]
            self.log.warning("refused a request from %s: %s", client, text)
            await _plain(send, 403, text)
        else:
            await self.app(scope, receive, send)

    @staticmethod
    def _own(scope: Scope) -> bool:
        """Whether the request's connection is this process's user's (or cannot be told:
        ``connection_owner``). One that arrives at another address from one that is not loopback
        may be another machine's and is let through (a server without tokens beyond loopback is
        ``--allow-unauthenticated``)."""
        owner = connection_owner(scope)
        return owner is None or owner == os.getuid()

    async def _twice(self, scope: Scope, send: Send, header: str) -> None:
        shown = header.title()
        text = f"The request sends {shown} more than once; send it once."
        client = (scope.get("client") or ("?", 0))[0]
        self.log.warning("refused a request from %s: %s", client, text)
        await _plain(send, 400, text)

    async def _refuse(
        self, scope: Scope, send: Send, status: int, header: str, value: str | None
    ) -> None:
        name = split_host(_netloc(value) if header == "Origin" else value or "")[0] or "NAME"
        text = (
            f"{header} {value!r} is not one of this server's names; if it is, start the server "
            f"with "
            f"--allowed-host {name} (or list it in [mcp] allowed_hosts)."
        )
        client = (scope.get("client") or ("?", 0))[0]
        self.log.warning("refused a request from %s: %s", client, text)
        await _plain(send, status, text)


def _netloc(origin: str | None) -> str:
    """The host part of an ``Origin`` for the advice of a refusal; none when no URL parser reads
    it (``http://[::1``: ``urlsplit`` raises, and the refusal was a 500 with a traceback)."""
    try:
        return urlsplit(origin).netloc if origin else ""
    except ValueError:
        return ""


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
