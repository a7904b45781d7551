# Python 3 only: keyword arguments to print would be a syntax error in Python 2.
import sys
print(*sys.argv[1:], sep=" ")
