# Keeps only the forty challenge in a copy of the repository's config.yaml (the VM suite's
# stand-in for a host editing the file): every challenge is a "  - name:" block of the
# challenges: list, which ends the file. Its run is made short (2,000 games, not adaptive):
# under emulation the bundled 20,000 take minutes, and the suite tests the service, not
# the ranks.
import re
import sys

path = sys.argv[1]
lines = open(path).read().split("\n")
out, keep, inside = [], True, False
for line in lines:
    if line.startswith("challenges:"):
        inside = True
    elif inside and line.startswith("  - name:"):
        keep = line.split(":", 1)[1].strip() == "forty"
    if inside and keep and re.match(r"    adaptive:", line):
        continue
    if inside and keep and re.match(r"    games: ", line):
        line = "    games: 2000"
    if keep or not inside:
        out.append(line)
open(path, "w").write("\n".join(out))
