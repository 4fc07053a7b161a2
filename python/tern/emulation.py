"""Emulation: real Linux hosts and applications through Tern's links in real time.

Each node marked `real = true` in the scenario becomes a Linux network namespace named
`tern-<run id>-<node>` (the run id is `<pid>-<4 hex digits>`, so `cleanup` can tell a
killed run's leftovers from a live run's), holding one TUN device, `tern0`, with the node's
address in 198.18.0.0/15 (RFC 2544 §C.2.2) and no route but 198.18.0.0/15 itself: nothing
sent inside can reach the host's own network. The engine (`World::run_realtime`) reads the
TUN devices, carries the packets across the scenario's devices paced to the monotonic
clock, and writes them to the destination's TUN device. The nodes' commands run in their
namespaces, their output kept in `<out>/commands/`. Everything made is removed when the run
ends, fails or is stopped (Ctrl-C), every process in a node's namespace ended with it (what a
command detached with `setsid` too); after a `kill -9`, `cleanup` does the same.

Plumbing: iproute2's `ip` (namespaces, addresses, links) and two system calls in the core
(`setns` and the `TUNSETIFF` ioctl, through the `nix` crate): see docs/design.md.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import threading
import time
import types
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from tern import _core, outdir, traces
from tern.runner import Overrides, Run, _overrides, _panics_as_bugs, _seed, _source

#: Every namespace an emulation makes starts with this.
PREFIX = "tern-"
#: The TUN device in each namespace.
DEVICE = "tern0"
#: The prefix length of the real nodes' network, 198.18.0.0/15 (RFC 2544 §C.2.2).
PREFIX_LEN = 15
# Linux capabilities (linux/capability.h): namespaces and TUN devices need both.
_CAP_NET_ADMIN = 12
_CAP_SYS_ADMIN = 21
#: Simulated seconds the run goes on after the last command has ended: what a command sent
#: just before it ended (a connection's FIN, the ACK of the peer's FIN) is still inside Tern's
#: links then (one-way delay plus queueing), and ending at once would cut it off; a second
#: covers the delays of the shipped scenarios.
DRAIN_S = 1.0

# How long commands get to end after SIGTERM before SIGKILL, at teardown.
_GRACE_S = 2.0

EmulationError = _core.EmulationError


def _capabilities() -> int:
    """The effective capability set of this process (`CapEff` in /proc/self/status)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return 0


def check_privileges() -> None:
    """Raises `EmulationError` unless this process may make namespaces and TUN devices."""
    if not Path("/proc/self/status").exists() or not hasattr(os, "geteuid"):
        raise EmulationError("tern emulate runs on Linux only (network namespaces, TUN)")
    need = (1 << _CAP_NET_ADMIN) | (1 << _CAP_SYS_ADMIN)
    if os.geteuid() != 0 and _capabilities() & need != need:
        raise EmulationError(
            "tern emulate needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN): it makes network "
            "namespaces and TUN devices. Run it with sudo. Nothing was changed."
        )
    if shutil.which("ip") is None:
        raise EmulationError("tern emulate needs iproute2's `ip` command; nothing was changed")


def _ip(*args: str) -> str:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise EmulationError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")
    return done.stdout


def namespaces() -> list[str]:
    """The network namespaces whose names start with `PREFIX`."""
    names = (line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip())
    return sorted(n for n in names if n.startswith(PREFIX))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pids_in(ns: str) -> list[int]:
    """The processes whose network namespace is `ns` (`ip netns pids`, which reads each
    process's /proc/<pid>/ns/net): a command's descendants too, even those that left its
    process group or session (`setsid`, a daemon's double fork)."""
    try:
        listed = _ip("netns", "pids", ns)
    except EmulationError:
        return []
    return [int(p) for p in listed.split() if p.isdigit() and int(p) != os.getpid()]


def _end_processes(spaces: Sequence[str], grace_s: float) -> None:
    """Ends every process in the namespaces `spaces`: SIGTERM, then SIGKILL to those left
    after `grace_s` seconds. A namespace's processes would outlive `ip netns delete`."""
    deadline = time.monotonic() + grace_s
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = [p for ns in spaces for p in _pids_in(ns)]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        while pids and time.monotonic() < deadline:
            time.sleep(0.02)
            with contextlib.suppress(ChildProcessError):
                while os.waitpid(-1, os.WNOHANG)[0] > 0:  # reap ours, so they leave /proc
                    pass
            pids = [p for p in pids if _alive(p) and not _zombie(p)]
        deadline = time.monotonic() + grace_s


def _zombie(pid: int) -> bool:
    """Whether process `pid` has ended and only waits for its parent to reap it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def cleanup() -> list[str]:
    """Removes the namespaces left by emulations whose process is gone (a killed run), and
    ends every process still in them (the nodes' commands and whatever they started);
    returns their names. A live run's namespaces are left alone."""
    check_privileges()
    removed = []
    for name in namespaces():
        pid = name[len(PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and _alive(int(pid)):
            continue
        _end_processes([name], _GRACE_S)
        _ip("netns", "delete", name)
        removed.append(name)
    return removed


#: `{node}` in a command, but not a shell's `${VAR}`.
_PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z0-9][A-Za-z0-9_-]*)\}")


def _expand(command: str, addrs: Mapping[str, str], where: str) -> str:
    """`{node}` → the node's address; a name in braces that is no node is an error naming
    `where` (the node whose command it is); other braces are left as they are."""
    for m in _PLACEHOLDER.finditer(command):
        if m[1] not in addrs:
            raise EmulationError(
                f"{where}: {command!r} names {{{m[1]}}}, but there is no node {m[1]!r} "
                f"(nodes: {', '.join(sorted(addrs))}); write ${{{m[1]}}} for a shell variable"
            )
    return _PLACEHOLDER.sub(lambda m: addrs[m[1]], command)


class _Host:
    """The namespaces, TUN descriptors and command processes of one run: what it made, and
    removes."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.namespaces: list[str] = []
        self.fds: list[int] = []
        self.procs: list[subprocess.Popen[bytes]] = []
        self.logs: list[Any] = []

    def namespace(self, node: str, addr: str, mtu: int) -> tuple[str, int]:
        ns = f"{PREFIX}{self.run_id}-{node}"
        _ip("netns", "add", ns)
        self.namespaces.append(ns)
        fd = _core.open_tun(ns, DEVICE)
        self.fds.append(fd)
        _ip("-n", ns, "link", "set", "dev", "lo", "up")
        _ip("-n", ns, "addr", "add", f"{addr}/{PREFIX_LEN}", "dev", DEVICE)
        _ip("-n", ns, "link", "set", "dev", DEVICE, "mtu", str(mtu), "up")
        return ns, fd

    def start(self, ns: str, command: str, log: Path) -> subprocess.Popen[bytes]:
        out = log.open("wb")
        self.logs.append(out)
        proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, "sh", "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=log.parent,  # files a command writes land in the run folder
            start_new_session=True,  # its own process group, ended as one at teardown
        )
        self.procs.append(proc)
        return proc

    def teardown(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + _GRACE_S
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        # What left the commands' process groups (`setsid cmd &`) is still in a namespace.
        _end_processes(self.namespaces, _GRACE_S)
        for out in self.logs:
            out.close()
        for fd in self.fds:
            os.close(fd)
        errors = []
        for ns in self.namespaces:
            try:
                _ip("netns", "delete", ns)
            except EmulationError as e:
                errors.append(str(e))
        if errors:
            raise EmulationError("; ".join(errors))


def emulate(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    out: str | os.PathLike[str],
    seed: int | None = None,
    set: Overrides = None,
    commands: Mapping[str, Sequence[str]] | None = None,
    warn_us: int = 1_000,
    fail_us: int = 10_000,
    force: bool = False,
) -> Run:
    """Runs a scenario in real time with its real nodes (`real = true`) as Linux network
    namespaces, and saves the run in `out` (as `tern.run`, plus `commands/`).

    `commands` adds shell commands per real node to the scenario's (`{node}` stands for a
    node's address, a Tern node's too: a TCP flow between a Tern node and a real node has
    Tern's TCP speak to the kernel's, see `tern.interop`). The run ends `DRAIN_S` (1 s)
    after every command has ended, so that the last packets they sent cross Tern's links,
    or at `sim.duration`.
    Lateness (how late the engine ran an event) past `warn_us` marks the run `behind` in
    `summary["emulation"]`; past `fail_us` the run stops with `EmulationError`. Needs root.
    `out` is readied as `tern.run` readies it (`force` empties a folder of other results).
    """
    check_privileges()
    name, text = _source(path, text)
    overrides, run_seed = _overrides(set), _seed(seed, name)
    with _panics_as_bugs(name):
        real = _core.real_nodes(text, name, overrides, run_seed)
    if not real:
        raise EmulationError(f"{name}: no real node; mark one with real = true under [[nodes]]")
    known = {node for node, *_ in real}
    extra = dict(commands or {})
    for node in extra:
        if node not in known:
            raise EmulationError(f"{node!r} is not a real node of {name} (real: {sorted(known)})")
    # Every node's address: a real host reaches a Tern node's TCP endpoint at its own.
    addrs = dict(_core.node_addresses(text, name, overrides, run_seed))
    # Every command expanded before anything is made: a `{name}` that is no node fails here.
    lines = [
        (node, k, _expand(command, addrs, f"nodes.{node}.commands"))
        for node, _, _, listed in real
        for k, command in enumerate([*listed, *extra.get(node, ())])
    ]
    folder = Path(out)
    outdir.claim_run(folder, name, force=force)
    logs = folder / "commands"
    logs.mkdir(parents=True, exist_ok=True)
    host = _Host(f"{os.getpid()}-{secrets.token_hex(2)}")
    ran: list[dict[str, Any]] = []
    with _terminate_as_interrupt(), contextlib.ExitStack() as teardown:
        teardown.callback(host.teardown)
        tuns = []
        spaces = {}
        for node, addr, mtu, _ in real:
            spaces[node], fd = host.namespace(node, addr, mtu)
            tuns.append((node, fd))
        procs = []
        for node, k, line in lines:
            proc = host.start(spaces[node], line, logs / f"{node}.{k}.log")
            procs.append(proc)
            ran.append({"node": node, "command": line, "log": f"commands/{node}.{k}.log"})

        ended_at: list[float] = []

        def go_on(now: float) -> bool:
            if not procs or any(p.poll() is None for p in procs):
                return True
            # The commands have ended; what they sent last (a FIN, the ACK of one) may still
            # be crossing Tern's links: run on for DRAIN_S of simulated time.
            if not ended_at:
                ended_at.append(now)
            return now - ended_at[0] < DRAIN_S

        with _panics_as_bugs(name), _no_collection_pauses():
            summary, resolved, _, captures, files = _core.emulate(
                text, name, tuns, go_on, overrides, run_seed, folder, warn_us, fail_us
            )
        for entry, proc in zip(ran, host.procs, strict=True):
            entry["exit_code"] = proc.poll()
    result = Run(json.loads(summary), resolved, traces.FolderTables(dict(files)), dict(captures))
    result.summary["emulation"]["commands"] = ran
    result.save(folder)
    outdir.mark_run(folder, name)
    return result


@contextlib.contextmanager
def _no_collection_pauses() -> Iterator[None]:
    """Python's cyclic garbage collector stays off while the engine is paced: the engine
    asks `go_on` every 50 ms, holding the interpreter, and a full collection of the heap the
    libraries make (some 60,000 objects once polars and DuckDB are imported) takes 70 to
    100 ms on a busy 2-core machine, which the engine would run late by. Reference counting
    still frees what the callbacks make; the collector resumes afterwards."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (`kill`, a CI timeout) ends the run as Ctrl-C does: everything made is removed.
    Only the main thread receives signals; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_term(signum: int, frame: types.FrameType | None) -> None:
        raise KeyboardInterrupt("terminated (SIGTERM)")

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
