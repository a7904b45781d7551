# Writes outside its directory.
. ./targets.sh
status=0
for f in $WRITES; do
	echo pwned >"$f" || status=1
done
exit $status
