"""The Docker sandbox (default): each bot in its own locked-down container.

One container per bot per series, labelled with its owner (``arena.sandbox.docker_owner``:
this sandbox's instance id, the arena's pid and pid namespace) plus series, bot and seat,
removed on every path. The bot reaches the world only through a Unix socket in
``/run/hollywood``: for a root arena a fresh per-bot tmpfs volume of a few KiB
(``socket_dir_bytes``: the bot cannot store data on the host through it), otherwise a
per-bot host directory. The arena connects only to a real socket the bot created
(``wait_for_socket``). ``arena.sandbox.config.SandboxConfig`` closes all else (no network,
read-only root, small noexec ``/tmp``, memory/CPU/pids/file limits, no caps, non-root)."""

from __future__ import annotations

import atexit
import contextlib
import logging
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import docker  # type: ignore[import-untyped]
import docker.errors  # type: ignore[import-untyped]
import docker.types  # type: ignore[import-untyped]
import requests.exceptions

from arena.core.faults import BotFault, FaultKind
from arena.core.manifest import ManifestError, content_hash
from arena.sandbox import container_logs
from arena.sandbox.admission import ADMISSION, Admission
from arena.sandbox.base import (
    BuildReport,
    LineSink,
    RunningBot,
    Sandbox,
    SandboxError,
    identity_environment,
    ignore_line,
    wait_for_socket,
)
from arena.sandbox.base_image import BASE_IMAGE_TAG, BaseImageError
from arena.sandbox.build_guard import BUILDS, BuildMemory
from arena.sandbox.config import DEFAULT_CONFIG, SandboxConfig
from arena.sandbox.container_hardening import container_hardening
from arena.sandbox.container_health import cgroup_memory, container_source, process_running
from arena.sandbox.container_renewal import restart_fresh
from arena.sandbox.docker_build import BASE_LOCK, build_for_owner
from arena.sandbox.docker_owner import (
    ARENA_LABEL,
    INSTANCE_LABEL,
    OWNER_LABEL,
    OWNER_START_LABEL,
    PID_NAMESPACE_LABEL,
    container_name,
    owner_labels,
    remove_container_by_name,
    remove_instance,
    remove_leftovers_of_dead_arenas,
)
from arena.sandbox.docker_owner import process_start as _process_start
from arena.sandbox.docker_socket import SOCKET_MOUNT, SOCKET_NAME, SocketPlace, make_socket_place
from arena.sandbox.images import ImageBuildError, build_bot_image, prepare_base
from arena.sandbox.schedstat import SchedSource, no_source
from arena.sandbox.tally import TALLY

if TYPE_CHECKING:
    from arena.core.series import BotRef

log = logging.getLogger(__name__)

__all__ = ["ARENA_LABEL", "INSTANCE_LABEL", "OWNER_LABEL", "OWNER_START_LABEL",
           "PID_NAMESPACE_LABEL", "DockerBot", "DockerSandbox", "_process_start",
           "docker_client", "remove_leftovers_of_dead_arenas"]

_POLL_S = 0.005
_STATUS_EVERY_S = 0.1
_DEAD_STATES = frozenset({"exited", "dead"})

_LIVE_SANDBOXES: weakref.WeakSet[DockerSandbox] = weakref.WeakSet()


@atexit.register
def _stop_every_sandbox() -> None:
    """Last line of defence: no container outlives the arena process."""
    for sandbox in list(_LIVE_SANDBOXES):
        sandbox.stop_all()
        with contextlib.suppress(SandboxError, docker.errors.DockerException,
                                 requests.exceptions.RequestException):
            remove_instance(sandbox.client, sandbox.instance_id)


def docker_client() -> Any:
    """A Docker client, or ``SandboxError`` saying how to get an engine running."""
    try:
        client = docker.from_env()
        # The engine is local (a Unix socket): no proxy applies, and reading the
        # environment's proxy settings was a fifth of each request's CPU.
        client.api.trust_env = False
        client.ping()
    except (docker.errors.DockerException, requests.exceptions.RequestException) as error:
        raise SandboxError(
            f"Docker is not available ({error}); start an engine with `make docker-engine` "
            "or choose the weaker process sandbox"
        ) from error
    return client


class DockerSandbox(Sandbox):
    """Runs each bot in a hardened container built from its folder's Dockerfile."""

    name = "docker"
    description = ("Docker containers: no network, read-only root, non-root user, "
                   "no capabilities, memory/CPU/pids/file limits")

    def __init__(
        self, client: Any | None = None, config: SandboxConfig = DEFAULT_CONFIG, *,
        base_image: str = BASE_IMAGE_TAG, prepare_base: bool = True,
        remove_leftovers: bool = True, instance_id: str | None = None,
        builds: BuildMemory = BUILDS, admission: Admission = ADMISSION,
    ) -> None:
        self.client = client or docker_client()
        self.config = config
        self.base_image = base_image
        self.instance_id = instance_id or uuid.uuid4().hex[:16]
        """Labels everything this sandbox creates; ``remove_own`` removes only that."""
        self._builds = builds
        self._admission = admission
        self._prepare_base = prepare_base
        self._base_ready = False
        self._images: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()
        """Guards the image cache and the running set, never held over a build."""
        self._running: set[DockerBot] = set()
        _LIVE_SANDBOXES.add(self)
        if remove_leftovers:
            removed = remove_leftovers_of_dead_arenas(self.client, config.socket_dir_root)
            if removed:
                log.warning("removed %d container(s) left over by a crashed arena", removed)

    def prepare(self, bot: BotRef) -> None:
        """Build the bot's image (and the base image) if needed; see ``image_for``. A
        build is background work (``arena.sandbox.admission``): it waits for an idle
        core (holding no slot: builds take minutes); an image built before waits not."""
        self.image_for(bot, before_build=self._admission.await_idle_core)

    @staticmethod
    def _image_key(bot: BotRef) -> tuple[str, str]:
        try:
            return (str(Path(bot.folder).resolve()), content_hash(bot.folder))
        except (ManifestError, OSError) as error:
            raise BotFault(FaultKind.STARTUP,
                           f"the bot's folder cannot be built: {error}") from None

    def image_for(self, bot: BotRef, before_build: Callable[[], object] | None = None) -> str:
        """The bot's image tag, building the base and the image when needed (cached by
        the bot folder's content hash). A failed build is the bot's fault (STARTUP).
        Only the bot's own image is locked while it builds (``build_bot_image``): a
        slow build never holds up another bot's build or start."""
        key = self._image_key(bot)
        with self._lock:
            cached = self._images.get(key)
        if cached is not None:
            return cached
        self.prepare_host()
        try:
            image = build_bot_image(bot.folder, bot.manifest, client=self.client,
                                    base_image=self.base_image, config=self.config,
                                    memory=self._builds, before_build=before_build)
        except (ImageBuildError, ManifestError) as error:
            log_text = error.log if isinstance(error, ImageBuildError) else ""
            raise BotFault(FaultKind.STARTUP, f"the bot's image did not build: {error}",
                           stderr_tail=log_text[-self.config.stderr_tail_bytes:]) from None
        except docker.errors.DockerException as error:
            raise SandboxError(f"Docker failed building {bot.name}: {error}") from error
        with self._lock:
            self._images[key] = image.tag
        return image.tag

    def build(self, bot: BotRef, *, timeout_s: float | None = None,
              on_line: LineSink = ignore_line) -> BuildReport:
        self.prepare_host()
        return build_for_owner(bot, self.client, base_image=self.base_image, config=self.config,
                               memory=self._builds, timeout_s=timeout_s, on_line=on_line)

    def prepare_host(self, *, force: bool = False) -> None:  # the bots' base image
        with BASE_LOCK:  # one at a time in the process, whichever sandbox asks
            if not force and (not self._prepare_base or self._base_ready):
                return
            try:
                prepare_base(self.client, force=force)
            except BaseImageError as error:
                raise SandboxError(f"cannot prepare the base image: {error}") from error
            self._base_ready = True

    def start(self, bot: BotRef, *, series_id: str = "", seat: int | None = None,
              deal: str = "") -> DockerBot:
        """A new container (dealt nothing yet, whatever ``deal`` it is for)."""
        labels = {**owner_labels(self.instance_id), "hollywood.series": series_id,
                  "hollywood.bot": bot.name, "hollywood.seat": "" if seat is None else str(seat)}
        place = make_socket_place(self.client, self.config, labels)
        name = container_name(series_id, seat)
        try:
            container = self._create(bot, name, labels, place)
            container.start()
            place.check_mounted()
        except docker.errors.DockerException as error:
            remove_container_by_name(self.client, name)
            place.remove(self.client)
            raise SandboxError(f"Docker could not start {bot.name}: {error}") from error
        except BaseException:  # a bot fault from the image build, or Ctrl-C
            remove_container_by_name(self.client, name)
            place.remove(self.client)
            raise
        running = DockerBot(self, container, place)
        with self._lock:
            self._running.add(running)
        TALLY.started()
        return running

    def _create(self, bot: BotRef, name: str, labels: dict[str, str], place: SocketPlace) -> Any:
        """Create the container (never pulling). An image removed behind the cache's
        back (e.g. superseded by another arena's rebuild) is rebuilt once."""
        for attempt in (1, 2):
            image = self.image_for(bot)
            try:
                return self.client.containers.create(
                    image, name=name, labels=labels,
                    environment={"HOLLYWOOD_BOT_SOCKET": f"{SOCKET_MOUNT}/{SOCKET_NAME}",
                                 **identity_environment(bot)},
                    volumes=place.mount(), **container_hardening(self.config),
                )
            except docker.errors.ImageNotFound:
                if attempt == 2:
                    raise
                with self._lock:
                    self._images = {k: v for k, v in self._images.items() if v != image}
        raise AssertionError("unreachable")

    def stop_all(self) -> None:
        """Stop every bot this sandbox still runs (also called at interpreter exit)."""
        with self._lock:
            running = list(self._running)
        for bot in running:
            bot.stop()

    def remove_own(self) -> int:
        """Remove every container and volume labelled with this sandbox's instance id
        (also ones a crashed thread lost track of); other arenas' are left alone."""
        self.stop_all()
        return remove_instance(self.client, self.instance_id)

    def _forget(self, bot: DockerBot) -> None:
        with self._lock:
            self._running.discard(bot)


class DockerBot(RunningBot):
    """A bot running in a container; see ``arena.sandbox.RunningBot``."""

    def __init__(self, sandbox: DockerSandbox, container: Any, place: SocketPlace) -> None:
        self._sandbox = sandbox
        self._container = container
        self._place = place
        self.socket_dir = place.directory
        self.socket_path = place.socket_path
        self.container_id: str = container.id
        self._stopped = False
        self._final_tail: str | None = None
        self._final_state: dict[str, Any] | None = None
        self._pid: int | None = None
        self._pid_visible = False
        self._source: SchedSource = no_source
        self._renewed_at: float | None = None
        """When its bot process was last replaced (``renew``): its stderr starts there."""

    @property
    def target(self) -> str:
        return f"unix:{self.socket_path}"

    def wait_ready(self, timeout: float) -> None:
        wait_for_socket(self.socket_path, timeout, self._fault_unless_alive,
                        status_every_s=_STATUS_EVERY_S, poll_s=_POLL_S, seal=self._place.seal)

    def _fault_unless_alive(self) -> BotFault | None:
        """Docker's verdict once gone; until then ``alive`` (an inspection each check cost)."""
        return None if self.alive() else self.fault_if_dead()

    def sched_source(self) -> SchedSource:
        """The container's tasks as the host sees them: its cgroup's listing, else the
        tree under its first process (one inspection; nothing if Docker cannot say)."""
        if self._pid is None:  # asked at start-up and for each series: inspect once
            pid = (self._state() or {}).get("Pid")
            self._pid = pid if isinstance(pid, int) and pid > 0 else 0
            self._pid_visible = bool(self._pid) and process_running(self._pid)
            if self._pid:
                self._source = container_source(self.container_id, self._pid)
        return self._source

    def alive(self) -> bool:
        """Whether the container still runs: its first process, as the host sees it,
        when that was visible at the first inspection; else Docker's word."""
        if self._stopped:
            return False
        self.sched_source()
        if self._pid and self._pid_visible:
            return process_running(self._pid)
        return self.fault_if_dead() is None

    def memory_bytes(self) -> int | None:
        """The container's memory use now: its cgroup's counter (v1 or v2, a file
        read) where the host shows it, else Docker's stats; None if neither says."""
        counted = cgroup_memory(self.container_id)
        if counted is not None:
            return counted
        try:
            stats = self._container.stats(stream=False, one_shot=True)
        except (docker.errors.DockerException, requests.exceptions.RequestException,
                TypeError):
            return None
        usage = (stats.get("memory_stats") or {}).get("usage")
        return usage if isinstance(usage, int) else None

    def stderr_tail(self) -> str:
        if self._final_tail is not None:
            return self._final_tail
        return self._read_tail()

    def stderr_mark(self) -> float:
        return container_logs.stderr_mark()

    def series_stderr(self, mark: object, limit: int) -> tuple[bytes, int]:
        return container_logs.series_stderr(
            self._container, self._renewed_at if mark is None else mark, limit)

    def _read_tail(self) -> str:
        return container_logs.stderr_tail(
            self._container, self._sandbox.config.stderr_tail_bytes, self._renewed_at)

    def renew(self) -> bool:
        """A fresh bot process: the container restarted (``arena.sandbox.container_renewal``)."""
        renewed_at = None if self._stopped else restart_fresh(self._container, self._place)
        if renewed_at is None:
            return False
        self._renewed_at = renewed_at
        self._pid, self._pid_visible, self._source = None, False, no_source
        TALLY.renewed()
        return True

    def _state(self) -> dict[str, Any] | None:
        if self._final_state is not None:
            return self._final_state
        try:
            self._container.reload()
        except docker.errors.NotFound:
            return None
        except docker.errors.DockerException as error:
            log.warning("could not inspect container %s: %s", self.container_id[:12], error)
            return None
        state: dict[str, Any] = self._container.attrs.get("State", {})
        return state

    def fault_if_dead(self, wait_s: float = 0.0) -> BotFault | None:
        give_up_at = time.monotonic() + wait_s
        while True:
            state = self._state()
            if state is None:
                return BotFault(FaultKind.CRASH, "the bot's container is gone")
            if state.get("OOMKilled"):
                limit_mib = self._sandbox.config.memory_bytes // (1024 * 1024)
                return BotFault(FaultKind.OUT_OF_MEMORY,
                                f"killed for exceeding its {limit_mib} MiB memory limit")
            if state.get("Status") in _DEAD_STATES:
                code = state.get("ExitCode")
                return BotFault(FaultKind.CRASH, f"the bot exited with code {code}")
            if time.monotonic() >= give_up_at:
                return None
            time.sleep(0.02)

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        try:
            self._final_state = self._state()
            self._final_tail = self._read_tail()
            self._container.remove(force=True)
        except docker.errors.NotFound:
            pass
        except docker.errors.DockerException as error:
            log.error("could not remove container %s: %s", self.container_id[:12], error)
        finally:
            self._place.remove(self._sandbox.client)
            self._sandbox._forget(self)
