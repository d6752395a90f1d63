"""What the sandbox worker process gives up once V8 is loaded and before it runs any script, so
that a script which escaped V8 would still find no file, socket, program or other process to
reach (docs/MCP/code-mode.md, "What a V8 escape could still do").

In order, each where the platform allows it (`confine` says what it applied):
1. **Another user.** Run as root (`mesq serve` in a container), the worker changes to `nobody`
   (no supplementary groups): the data directory, the sealing key and the database are the
   server user's, private to it.
2. **No new privileges** (`PR_SET_NO_NEW_PRIVS`): no set-uid program or file capability can give
   anything back. (It is also what lets an unprivileged process load a seccomp filter.)
3. **Rlimits:** no file may be written (`RLIMIT_FSIZE` 0) and few descriptors opened; the data
   segment and core dumps were limited at start (worker.py).
4. **A seccomp filter** (libseccomp through PyPI `pyseccomp`): every call that opens, creates,
   renames or removes a path, executes a program, makes a socket, traces or signals another
   process, starts a process (a thread is allowed: V8 starts one per isolate), or mounts,
   unshares, loads modules or uses io_uring (whose operations would bypass the filter) answers
   EPERM. Everything else (memory, the open pipes, clocks, futexes, threads) is allowed: V8 needs
   it, and none of it leaves the process.

Where the filter cannot be loaded (no libseccomp, as on AWS Lambda's runtime, or a kernel that
refuses it) the worker still runs, confined by the rest, and the server logs a notice once.

Standard library only, plus `pyseccomp` when it imports: the worker (worker.py, run by path)
imports this beside it.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import pwd
import resource
from types import ModuleType
from typing import Any

#: The user a worker started as root becomes.
UNPRIVILEGED_USER = "nobody"
#: Descriptors a worker may hold: its pipes, stderr and what V8 keeps (it opens none after start).
MAX_OPEN_FILES = 64
#: <linux/prctl.h>
PR_SET_NO_NEW_PRIVS = 38
#: <linux/sched.h>: a clone without it starts a process, with it a thread.
CLONE_THREAD = 0x00010000

#: Calls that reach outside the process; each answers EPERM. Names unknown to the installed
#: libseccomp or absent on the architecture are skipped (`confine` reports them).
DENIED = (
    # paths: open, create, change, remove
    "open", "openat", "openat2", "creat", "open_by_handle_at", "name_to_handle_at", "truncate",
    "mknod", "mknodat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    "link", "linkat", "symlink", "symlinkat", "chmod", "fchmodat", "fchmodat2", "chown", "lchown", "fchownat",
    "utime", "utimes", "utimensat", "futimesat", "setxattr", "lsetxattr", "removexattr", "lremovexattr",
    "chdir", "chroot", "pivot_root", "mount", "umount2", "mount_setattr", "move_mount", "fsopen", "fsmount",
    "fsconfig", "fspick", "open_tree", "memfd_create", "memfd_secret", "inotify_init", "inotify_init1",
    "fanotify_init", "quotactl",
    # programs and processes
    "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open",
    "pidfd_getfd", "pidfd_send_signal", "tkill", "kcmp", "setns", "unshare", "seccomp",
    # network
    "socket", "connect", "bind", "listen", "accept", "accept4",
    # the system
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "perf_event_open", "userfaultfd",
    "keyctl", "add_key", "request_key", "init_module", "finit_module", "delete_module", "kexec_load",
    "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "setuid", "setgid", "setreuid", "setregid",
    "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid", "capset", "personality", "syslog",
    "settimeofday", "clock_settime", "adjtimex", "clock_adjtime", "sethostname", "setdomainname",
    "ioperm", "iopl", "vhangup", "lookup_dcookie", "nfsservctl",
)  # fmt: skip


def confine() -> dict[str, Any]:
    """Apply every step this platform allows -> {user, noNewPrivs, filter, notices}."""
    applied: dict[str, Any] = {"user": None, "noNewPrivs": False, "filter": False, "notices": []}
    notices: list[str] = applied["notices"]
    # Imported while still the server's user: its code may sit where the unprivileged user cannot
    # read (a clone in a private folder), and the filter would then silently not load.
    seccomp, unavailable = _seccomp_module()
    if os.geteuid() == 0:
        try:
            _become(UNPRIVILEGED_USER)
            applied["user"] = UNPRIVILEGED_USER
        except (KeyError, OSError) as error:
            notices.append(f"could not change to the user {UNPRIVILEGED_USER} ({type(error).__name__})")
    applied["noNewPrivs"] = _no_new_privileges()
    if not applied["noNewPrivs"]:
        notices.append("no_new_privs could not be set")
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limit = MAX_OPEN_FILES if hard == resource.RLIM_INFINITY else min(MAX_OPEN_FILES, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, limit), limit))
    skipped: list[str] | None = None
    try:
        skipped = _load_filter(seccomp) if seccomp is not None else None
    except (RuntimeError, OSError, ValueError) as error:  # the kernel refused it
        unavailable = f"{type(error).__name__}: {str(error)[:200]}"
    if skipped is None:
        notices.append(f"no syscall filter: {unavailable}")
    else:
        applied["filter"] = True
        if skipped:
            applied["skipped"] = skipped
    return applied


def _become(name: str) -> None:
    entry = pwd.getpwnam(name)
    os.setgroups([])
    os.setgid(entry.pw_gid)
    os.setuid(entry.pw_uid)
    if os.getuid() == 0 or os.geteuid() == 0:  # setuid must not leave a way back
        raise OSError(errno.EPERM, "still root")


def _no_new_privileges() -> bool:
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        prctl = ctypes.CDLL(name, use_errno=True).prctl
    except (OSError, AttributeError):
        return False
    prctl.restype = ctypes.c_int
    return bool(prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0),
                      ctypes.c_ulong(0)) == 0)  # fmt: skip


def _seccomp_module() -> tuple[ModuleType | None, str]:
    """`pyseccomp`, or None and why not (it raises RuntimeError when libseccomp is missing)."""
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError, ValueError) as error:
        return None, f"{type(error).__name__}: {str(error)[:200]}"
    return pyseccomp, ""


def _load_filter(seccomp: ModuleType) -> list[str]:
    """Load the seccomp filter; the denied names the installed libseccomp does not know."""
    denied = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    # A call through another ABI (32-bit int 0x80, x32) would dodge every rule: it ends the worker.
    rules.set_attr(seccomp.Attr.ACT_BADARCH, seccomp.KILL_PROCESS)
    # Every thread of the worker (V8's platform threads already run), not only the calling one.
    rules.set_attr(seccomp.Attr.CTL_TSYNC, 1)
    skipped = []
    for name in DENIED:
        try:
            rules.add_rule(denied, name)
        except (OSError, ValueError, RuntimeError):
            skipped.append(name)
    pid = os.getpid()
    # Signals only to this process (abort() raises SIGABRT with tgkill on itself).
    rules.add_rule(denied, "kill", seccomp.Arg(0, seccomp.NE, pid))
    rules.add_rule(denied, "tgkill", seccomp.Arg(0, seccomp.NE, pid))
    # A clone is a thread (V8's) or nothing; clone3 passes its flags in memory the filter cannot
    # read, so it answers ENOSYS and the C library falls back to clone.
    rules.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, 0))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()
    return skipped
