# Allocates 4 GiB.
hoard = bytearray(4 << 30)
print(len(hoard))
