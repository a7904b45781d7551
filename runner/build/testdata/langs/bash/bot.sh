# Prints its arguments back, separated by single spaces (printf, not echo: an argument
# such as -n must come back as it was).
IFS=' '
printf '%s\n' "$*"
