"""Run a command with no user namespaces left to create, without touching the machine:
`python nouserns.py COMMAND ARGS...` (as root). The child enters a user namespace of its own
that maps uid and gid 0-65535 to themselves (so the command can still switch to any of those
users), sets `user.max_user_namespaces` to 0 there (a namespaced limit: it binds only this
process tree), and execs the command, which then finds the kernel refusing user namespaces as
on a machine where they are off. Python 3.11 has no os.unshare: ctypes calls libc's."""

import os, sys
r, w = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    import ctypes; assert ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0
    os.write(w, b"x"); os.read(r2, 1)
    os.setgid(0); os.setuid(0)
    open("/proc/sys/user/max_user_namespaces", "w").write("0")
    os.execvp(sys.argv[1], sys.argv[1:])
os.read(r, 1)
open(f"/proc/{pid}/uid_map", "w").write("0 0 65536\n")
open(f"/proc/{pid}/setgroups", "w").write("allow")
open(f"/proc/{pid}/gid_map", "w").write("0 0 65536\n")
os.write(w2, b"x")
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))
