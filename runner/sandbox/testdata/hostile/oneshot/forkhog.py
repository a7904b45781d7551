# Three forked children each hold 100 MiB at once: 300 MiB in all, under a memory limit of
# 256 MiB that each one alone respects. Exits 0 ("held") only if all three held theirs.
import os
import sys
import time

children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        hoard = b"\x01" * (100 << 20)  # written, so resident
        time.sleep(3)
        os._exit(0 if hoard[-1] == 1 else 1)
    children.append(pid)
ok = all(os.waitpid(pid, 0)[1] == 0 for pid in children)
print("held" if ok else "lost a child")
sys.exit(0 if ok else 1)
