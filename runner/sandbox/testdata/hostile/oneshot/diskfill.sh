# Writes a 64 MiB file into its own directory.
exec head -c 67108864 /dev/zero >big
