# syntax=docker/dockerfile:1
# Strongroom: build with the dev dependencies, run with the runtime ones only, as the unprivileged `node` user.
#   docker build -t strongroom .
#   docker run -d --name strongroom --read-only --tmpfs /tmp -v strongroom-data:/data \
#     -p 127.0.0.1:8080:8080 -p 127.0.0.1:8090:8090 strongroom                      # serve (first start: root organization)
#   docker exec strongroom cat /data/initial-credentials.json                         # its credentials
#   docker exec strongroom node /app/dist/cli/strongroom.js init                             # another root organization, while it runs
#   docker run --rm -p 127.0.0.1:8080:8080 strongroom dev --host 0.0.0.0 --auth-proxy-port off   # throwaway dev server
#
# The base image is pinned by digest: the node:20-bookworm-slim index digest below is the one several public
# repositories pin (no registry was reachable where this file was written, so it could not be re-read there).
# Check or move it deliberately with
#   docker buildx imagetools inspect node:20-bookworm-slim --format '{{json .Manifest.Digest}}'
# and build with another one with --build-arg NODE_IMAGE=node:20-bookworm-slim@sha256:<digest>.
ARG NODE_IMAGE=node:20-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
# No HOST here: `serve` below is told to listen on the container's interfaces (what published ports need), while
# `dev`, whose /dev/ controls have no authentication, stays on loopback unless given --host itself.
# MALLOC_ARENA_MAX: glibc otherwise keeps a background compiler thread's malloc arena resident once the engine's
# busiest functions are recompiled: 128 MB idle instead of 134, for at most a few percent of CPU under load
# (docs/operations.md, "Memory and start-up").
ENV NODE_ENV=production \
    STRONGROOM_DATA_DIR=/data \
    MALLOC_ARENA_MAX=2
WORKDIR /app
# Owned by root and read-only to `node`: the process can write only to /data (and /tmp).
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# /credentials: where compose.yaml's one-shot init writes the root credentials (a volume takes this owner).
RUN mkdir -p /data /credentials && chown node:node /data /credentials && chmod 0700 /data /credentials
USER node
VOLUME /data
# API, auth proxy, metrics (with --metrics-port 9090 or METRICS_PORT=9090).
EXPOSE 8080 8090 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself: it drains requests in flight, then exits (docker stop).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/cli/strongroom.js"]
CMD ["serve", "--host", "0.0.0.0"]
