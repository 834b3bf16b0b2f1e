# Strongroom: build with the dev dependencies, run with the runtime ones only.
#   docker build -t strongroom .
#   docker run -p 8080:8080 -p 8090:8090 -v strongroom-data:/data strongroom            # serve
#   docker run --rm -v strongroom-data:/data strongroom init                             # once, server stopped
#   docker run -p 8080:8080 strongroom dev --host 0.0.0.0                                # development server
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    STRONGROOM_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080 8090
# node is PID 1 and handles SIGTERM itself: it drains requests in flight, then exits (docker stop).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["serve"]
