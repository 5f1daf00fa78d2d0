#!/usr/bin/env bash
# Shared by the benchmark scripts in tools/ (sourced, not run): CPU accounting, a fresh Postgres
# database, and starting servers and waiting for them. Every server started here listens on
# 127.0.0.1 only.

psql_=(psql -h 127.0.0.1 -U postgres -qX)

# CPU seconds (user + system) used by every process whose name starts with $1, the children it
# has reaped included (so Postgres backends that exited during the row still count).
cpu() {
    python3 - "$1" <<'PY'
import os, sys
total = 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        continue
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    fields = stat[stat.rindex(")") + 2:].split()
    if name.startswith(sys.argv[1]):
        total += sum(int(x) for x in fields[11:15])
print(f"{total / os.sysconf('SC_CLK_TCK'):.1f}")
PY
}

# CPU seconds (user + system) of one process so far.
cpu_of() {
    python3 -c "import os; f=open('/proc/$1/stat').read().rsplit(')',1)[1].split(); print(f'{(int(f[11])+int(f[12]))/os.sysconf(\"SC_CLK_TCK\"):.1f}')"
}

# Drops and creates the database parlour_bench, and prints its URL (loopback: no TLS).
fresh_pg() {
    "${psql_[@]}" -c "DROP DATABASE IF EXISTS parlour_bench WITH (FORCE)" >/dev/null
    "${psql_[@]}" -c "CREATE DATABASE parlour_bench" >/dev/null
    echo "postgres://postgres@127.0.0.1:5432/parlour_bench?sslmode=disable"
}

# Waits until the server on 127.0.0.1:$1 answers its health check (at most 30 s).
wait_up() {
    for _ in $(seq 1 300); do
        curl -sf "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the server on port $1 did not come up" >&2
    return 1
}
