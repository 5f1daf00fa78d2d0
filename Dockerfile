# Multi-stage build: compile with the full toolchain, run as a non-root user on a slim base.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release -p parlour --locked

FROM debian:bookworm-slim
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
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/parlour"]
