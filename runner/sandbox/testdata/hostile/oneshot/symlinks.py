# Fills its directory with long symbolic links (no file data, a block each), empty files
# and directories, none of which a count of regular files' sizes sees: about 16 MiB.
import os

target = "x" * 4000
for i in range(3000):
    os.symlink(target + str(i), "l%d" % i)
for i in range(500):
    os.mkdir("d%d" % i)
    open("e%d" % i, "w").close()
print("planted")
