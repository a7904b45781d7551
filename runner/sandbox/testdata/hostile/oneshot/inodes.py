# Creates 400,000 empty files in /tmp: no data, but an inode and a dentry each, kernel
# memory a size-bounded tmpfs does not count. Says how far it got.
import os

n = 0
try:
    while n < 400000:
        open("/tmp/f%d" % n, "w").close()
        n += 1
except OSError as e:
    print("%d files, then %s: stopped" % (n, e.strerror))
else:
    print("created %d files" % n)
