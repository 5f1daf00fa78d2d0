#!/usr/bin/env bash
# Runs the API test binary as on a fresh machine where no Postgres lets the tests in, to check
# that they bring their own (tests/api/pg_server.rs). Root only: new network and mount
# namespaces (loopback up, nothing listening; a tmpfs over /run/postgresql), DATABASE_URL unset.
#
#   bash tools/test-without-postgres.sh none   path/to/api-test-binary [test filters...]
#   bash tools/test-without-postgres.sh debian path/to/api-test-binary [test filters...]
#
# `none`: no server at all. `debian`: a throwaway server configured as Debian's postgresql
# package is (peer on the socket, a password over TCP) answers on 127.0.0.1:5432 and
# /run/postgresql, and refuses the tests' login. The machine's own Postgres is not touched.
# The test binary is target/debug/deps/api-<hash> (cargo test --no-run prints it); run it from
# api/, as cargo does. At the end it checks that the private cluster's folder is gone.
set -euo pipefail
if [ "${PARLOUR_IN_NAMESPACE:-}" != 1 ]; then
    exec env PARLOUR_IN_NAMESPACE=1 unshare -nm --propagation private bash "$0" "$@"
fi
mode=$1; bin=$2; shift 2
ip link set lo up
mount -t tmpfs tmpfs /run/postgresql
unset DATABASE_URL
if [ "$mode" = debian ]; then
    pg_bin=$(pg_config --bindir)
    chown nobody /run/postgresql
    d=$(mktemp -d); chown nobody "$d"
    echo "a-password-the-tests-do-not-know" > "$d/pw"; chmod 644 "$d/pw"
    runuser -u nobody -- "$pg_bin/initdb" -D "$d/data" -U postgres --pwfile="$d/pw" \
        --auth-local=peer --auth-host=scram-sha-256 --no-sync >/dev/null
    runuser -u nobody -- "$pg_bin/pg_ctl" -D "$d/data" -l "$d/log" -w \
        -o "-p 5432 -c listen_addresses=127.0.0.1 -k /run/postgresql" start >/dev/null
    trap 'runuser -u nobody -- "$pg_bin/pg_ctl" -D "$d/data" -m immediate stop >/dev/null; rm -rf "$d"' EXIT
    echo "-- a server configured as Debian's answers, and refuses the tests' login:"
    psql -h 127.0.0.1 -U postgres -w -c 'select 1' 2>&1 | head -1 || true
    psql -h /run/postgresql -U postgres -w -c 'select 1' 2>&1 | head -1 || true
fi
clusters() { find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'parlour-pg-*' | wc -l; }
before=$(clusters)
status=0
"$bin" "$@" || status=$?
# The cluster's watchdog stops it and removes its folder once the test binary has exited.
for _ in $(seq 1 100); do
    [ "$(clusters)" -le "$before" ] && break
    sleep 0.2
done
left=$(( $(clusters) - before ))
echo "-- private cluster folders left behind: $left"
[ "$left" -le 0 ] || status=1
exit $status
