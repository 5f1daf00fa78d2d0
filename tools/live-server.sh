# Sourced by the checks that drive a real server (clients/typescript/check.sh, web/check.sh):
# `live_server BINARY [VAR=value ...]` starts BINARY on a free port over a temporary SQLite
# database, with the given environment, and waits until it is ready. It sets `port`, `work`
# (the temporary folder, whose server.log is the server's output) and a trap that stops the
# server and removes the folder on exit.
live_server() {
    local binary="$1"
    shift
    work="$(mktemp -d)"
    port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
    env "$@" "$binary" --addr "127.0.0.1:$port" --database-url "sqlite://$work/parlour.db" \
        --signing-key-file "$work/signing.key" --no-rate-limit >"$work/server.log" 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
    for _ in $(seq 1 100); do
        if ! kill -0 "$server" 2>/dev/null; then
            break
        fi
        if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.2
    done
    echo "the server did not become ready; its log:" >&2
    cat "$work/server.log" >&2
    exit 1
}
