# Sleeps forever.
exec sleep 1000000
