# understudy's container image: the static binary alone, run as a non-root user.
#
# Build it with `make image` (IMAGE=understudy:dev): the binary is built on the host with
# CGO_ENABLED=0 and this file is built FROM scratch with the directory `make image` prepares
# (build/image: the binary and two empty directories) as its context, so nothing is pulled
# from a registry and no builder image is needed. docs/container.md describes how to run it.
FROM scratch

ARG VERSION=dev
LABEL org.opencontainers.image.title="understudy" \
      org.opencontainers.image.description="A stateful stand-in for the authorization, accounts and compute APIs" \
      org.opencontainers.image.version="${VERSION}"

COPY understudy /understudy
# /data is where --data-dir points when state should survive the container: owned by the
# user below, so that a named volume mounted there starts writable. It is no VOLUME: the
# server keeps its state in memory unless told otherwise, and a VOLUME would leave an
# anonymous volume behind every run.
COPY --chown=65532:65532 data /data
# /tmp, for the same user: --tls auto without --data-dir keeps its CA in a temporary
# directory, and scratch has none. (Not world-writable: COPY does not keep a directory's
# mode, and a scratch image has no shell to chmod with.)
COPY --chown=65532:65532 tmp /tmp

# A numeric user: scratch has no /etc/passwd to look a name up in.
USER 65532:65532

# Every interface, inside the container; the environment rather than an argument, so that
# `-e UNDERSTUDY_ADDR=...` can change it and the healthcheck, which sees the environment
# but not the command's arguments, asks the same port.
ENV UNDERSTUDY_ADDR=0.0.0.0:8080
EXPOSE 8080

HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/understudy", "healthcheck"]

ENTRYPOINT ["/understudy"]
