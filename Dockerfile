# Multi-stage build: compile with the full toolchain, run as a non-root user on a slim base.
# Checked by hadolint in CI (`tools/lint-deploy.sh`); there is no Docker engine on CI machines.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
# No debug info and no symbols in the shipped binary (the dev profile keeps them for profiling).
ENV CARGO_PROFILE_RELEASE_DEBUG=0 \
    CARGO_PROFILE_RELEASE_STRIP=symbols
RUN cargo build --release -p parlour --locked

FROM debian:bookworm-slim
# ca-certificates for anything outside the binary's own TLS roots; tracking the base image's
# security updates matters more here than a pinned version.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --create-home parlour \
    && install -d -o parlour -m 0700 /keys
COPY --from=build /src/target/release/parlour /usr/local/bin/parlour
USER parlour
WORKDIR /data
ENV PARLOUR_ADDR=0.0.0.0:8080 \
    DATABASE_URL=sqlite:///data/parlour.db \
    PARLOUR_SIGNING_KEY_FILE=/data/parlour-signing.key \
    RUST_LOG=info
# The SQLite default keeps its games (and, by default, the signing key) here.
VOLUME ["/data"]
EXPOSE 8080
# `parlour healthcheck` asks this container's own server for /readyz (no curl in the image).
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/parlour", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/parlour"]
