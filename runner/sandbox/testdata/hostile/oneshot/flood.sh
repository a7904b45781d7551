# Prints 1 GiB.
exec head -c 1073741824 /dev/zero
