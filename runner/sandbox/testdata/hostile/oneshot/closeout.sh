# Closes stdout and keeps running.
exec >&-
exec sleep 1000000
