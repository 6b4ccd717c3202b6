"""What each certificate may ask of the cluster: the role in a peer's certificate
(``arena-<role>``, set by ``arena.execution.cluster_certs``) decides which Dask
operations it may send, on the scheduler and on every worker.

Mutual TLS (``arena.execution.cluster_security``) only proves a peer holds *some*
certificate of the cluster CA. Without roles a worker's certificate could connect
as a Dask client and read every task (so every author's bundle), run code on the
scheduler or on other workers. ``guard_server`` checks every message a server
reads from a connection it accepted, before Dask dispatches it:

* the scheduler (``dask_setup``: ``dask scheduler --preload
  arena.execution.cluster_roles``, which ``arena cluster up`` passes) lets a
  *worker* certificate register as a worker and send what a worker sends, nothing
  else (no ``register-client``, ``run_function``, ``gather``, task stream...); a
  *client* certificate anything but what only a worker sends;
* a worker (``arena worker``) lets a *worker* certificate only fetch results
  (``get_data``), never ``run``, ``run_coroutine`` or install plugins; the
  scheduler and the arena's client keep every operation;
* on the scheduler, a worker's report on a task is taken only from the worker
  the scheduler gave it to (``arena.execution.cluster_holders``).

A refused request is answered with a ``PermissionError`` naming the operation and
the role, and logged; a refused message inside a stream (a registered worker's
batched messages) closes that connection. A certificate of the CA with no cluster
role (the arena server's ``server`` certificate) may send nothing. Without TLS
there are no certificates and so no roles: nothing is enforced (``--insecure``).
"""

from __future__ import annotations

import functools
import logging
import socket
import ssl
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from arena.execution.cluster_holders import guard_reports
from arena.execution.cluster_peers import PEERS, peer_checking_socket, role_of
from arena.execution.cluster_security import host_of

log = logging.getLogger(__name__)

ROLES_PRELOAD: Final = __name__
"""The module to preload into a scheduler (``dask scheduler --preload``)."""
REFUSED_OP: Final = "arena-refused"
"""The operation a refused message is turned into: its handler answers the error."""
ALWAYS: Final = frozenset({"close", "close-stream"})
"""Ending one's own connection is never refused."""


Vet = Callable[[str, dict[str, Any], str], str]
"""``(op, message, peer host)`` -> why the message is refused, '' if it is not."""


def _no_vetting(op: str, message: dict[str, Any], peer_host: str) -> str:
    return ""


@dataclass(frozen=True)
class Permit:
    """The operations one role may send: ``only`` these (None: any), never ``never``,
    and only messages ``vet`` finds nothing wrong with."""

    only: frozenset[str] | None = None
    never: frozenset[str] = field(default_factory=frozenset)
    vet: Vet = _no_vetting

    def refusal(self, op: str, message: dict[str, Any], peer_host: str) -> str:
        """Why ``message`` is refused, '' if it is not."""
        if op in ALWAYS:
            return ""
        if op in self.never or (self.only is not None and op not in self.only):
            return "its certificate's role may not send it"
        return self.vet(op, message, peer_host)


def vet_worker_message(op: str, message: dict[str, Any], peer_host: str) -> str:
    """A worker speaks only for itself. Its stream's messages are Dask's on behalf of
    the worker that opened the stream, unless a message names another ``worker``;
    a heartbeat names its worker's address, which must be on the peer's own host
    (all workers share one certificate, so the host is what tells them apart), and
    never changes resources (Dask's worker sends them only when registering: a
    forged heartbeat could take others' slots away and draw every series to it)."""
    if "worker" in message:
        return "a worker's message may not name a worker: it speaks for itself"
    if op == "heartbeat_worker":
        if "resources" in message:
            return "a heartbeat may not change a worker's resources"
        if not same_host(host_of(str(message.get("address", ""))), peer_host):
            return (f"a heartbeat for {message.get('address')!r} must come from that "
                    "worker's host")
    return ""


def same_host(named: str, peer: str) -> bool:
    """Whether ``named`` (an IP or a host name) is the IP address ``peer``."""
    if named == peer:
        return True
    try:
        return peer in _addresses(named)
    except OSError:
        return False


@functools.lru_cache(maxsize=256)
def _addresses(host: str) -> frozenset[str]:
    return frozenset(str(info[4][0]) for info in socket.getaddrinfo(host, None))


NOTHING: Final = Permit(only=frozenset())
WORKER_ONLY: Final = frozenset({
    # Joining and leaving (request/response); what a worker asked of the scheduler
    # while playing a season on `arena cluster up`, and the rest of what
    # distributed's worker sends (its state machine's messages, work stealing).
    "register-worker", "heartbeat_worker",
    # A registered worker's batched stream.
    "task-finished", "task-erred", "release-worker-data", "add-keys", "long-running",
    "reschedule", "request-refresh-who-has", "steal-response", "worker-status-change",
})
"""What only a worker sends the scheduler (a client sending it would pose as one)."""
WORKER_TO_SCHEDULER: Final = WORKER_ONLY | {"keep-alive", "log-event"}
SCHEDULER_POLICY: Final[Mapping[str, Permit]] = {
    "scheduler": Permit(),
    "client": Permit(never=WORKER_ONLY),
    "worker": Permit(only=WORKER_TO_SCHEDULER, vet=vet_worker_message),
}
WORKER_POLICY: Final[Mapping[str, Permit]] = {
    "scheduler": Permit(),
    "client": Permit(),
    # Another worker fetches a result it needs; it never makes this one run anything.
    "worker": Permit(only=frozenset({"get_data"})),
}


def _refuse(**message: Any) -> object:
    # Answered as Dask answers a handler that raised (the caller's rpc raises it), without
    # Dask logging a traceback for what was already logged as refused.
    from distributed.core import error_message

    return error_message(PermissionError(
        f"{message.get('refused')!r} refused to a {message.get('role')!r} "
        f"certificate: {message.get('why')}"), status="uncaught-error")


def _refuse_stream(**message: Any) -> None:
    raise PermissionError(f"{message.get('refused')!r} refused to a "
                          f"{message.get('role')!r} certificate: {message.get('why')}; "
                          "its stream is closed")


@dataclass
class RoleCheck:
    """Checks the messages read from one accepted connection against ``policy``."""

    policy: Mapping[str, Permit]
    server: str
    peer: str
    """The peer's address, ``tls://HOST:PORT``."""
    role: str | None
    enforce: bool

    def permit(self) -> Permit:
        if not self.enforce:
            return Permit()
        return self.policy.get(self.role or "", NOTHING)

    def check(self, message: Any) -> Any:
        """``message`` as read, or with a refused operation replaced by
        ``REFUSED_OP`` (whose handler raises the ``PermissionError``)."""
        if isinstance(message, list | tuple):
            return type(message)(self.check(item) for item in message)
        if not isinstance(message, dict) or not isinstance(message.get("op"), str):
            return message
        op = message["op"]
        log.debug("%s: %s from %s (%s)", self.server, op, self.peer, self.role)
        refusal = self.permit().refusal(op, message, host_of(self.peer))
        if not refusal:
            return message
        log.error("%s refused %r from %s, whose certificate's role is %r: %s",
                  self.server, op, self.peer, self.role or "none", refusal)
        return {"op": REFUSED_OP, "refused": op, "role": self.role or "none",
                "why": refusal, "reply": message.get("reply", True)}


def guard_comm(comm: Any, policy: Mapping[str, Permit], server: str, enforce: bool) -> None:
    """Check every message ``comm`` reads from now on."""
    peercert = getattr(comm, "extra_info", {}).get("peercert")
    check = RoleCheck(policy, server, str(getattr(comm, "peer_address", "?")),
                      role_of(peercert), enforce)
    read = comm.read

    async def checked_read(deserializers: Any = None) -> Any:
        return check.check(await read(deserializers))

    comm.read = checked_read


def guard_server(server: Any, policy: Mapping[str, Permit]) -> None:
    """Check the role of every connection ``server`` (a Dask ``Server``) accepts,
    and of those already accepted (a preload runs after the listener opened; those
    connections wait for the server to start before reading anything)."""
    name = type(server).__name__
    enforce = bool(getattr(server.security, "require_encryption", False)) or any(
        str(getattr(listener, "contact_address", "")).startswith("tls://")
        for listener in getattr(server, "listeners", ()))
    if not enforce:
        log.warning("%s: the cluster runs without TLS, so certificates' roles are not "
                    "checked: any peer may ask anything", name)
    server.handlers[REFUSED_OP] = _refuse
    server.stream_handlers[REFUSED_OP] = _refuse_stream
    for comm in list(server._comms):
        guard_comm(comm, policy, name, enforce)
    accept: Callable[[Any], Any] = server._handle_comm

    def checked_accept(comm: Any) -> Any:
        guard_comm(comm, policy, name, enforce)
        return accept(comm)

    server._handle_comm = checked_accept


def dask_setup(scheduler: Any) -> None:
    """The scheduler preload: ``dask scheduler --preload arena.execution.cluster_roles``."""
    arena_log = logging.getLogger("arena")
    if not arena_log.handlers:  # in Dask's process: log refusals as Dask logs
        for handler in logging.getLogger("distributed").handlers:
            arena_log.addHandler(handler)
        arena_log.setLevel(logging.INFO)
    guard_server(scheduler, SCHEDULER_POLICY)
    guard_reports(scheduler)  # a worker reports only on the tasks it holds
    # Its own connections (to workers) check the role of the peer they reach.
    context = getattr(scheduler, "connection_args", {}).get("ssl_context")
    if isinstance(context, ssl.SSLContext):
        context.sslsocket_class = peer_checking_socket(PEERS["scheduler"])
    log.info("cluster roles checked on the scheduler's connections")
