# Loops forever, burning CPU.
while :; do :; done
