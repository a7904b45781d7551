# Python 2 only: the print statement would be a syntax error in Python 3.
import sys
print " ".join(sys.argv[1:])
