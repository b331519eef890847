# syntax=docker/dockerfile:1
# The Switchyard image: the npm package packed from this clone, installed like any user's, run as a non-root user
# with the database and its master-key file on the /data volume. Docker is not available where this project is
# developed and tested, so this file is kept minimal and is not built by CI (README "Docker").

# 1. Pack: compile TypeScript and produce the same tarball `npm pack` publishes (the package.json "files" whitelist).
FROM node:20-bookworm-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp

# 2. Install the tarball with production dependencies only; better-sqlite3 may compile, hence the toolchain.
FROM node:20-bookworm-slim AS install
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=pack /tmp/*.tgz /tmp/
RUN echo '{"name":"switchyard-image","private":true,"allowScripts":{"better-sqlite3":true}}' > package.json \
 && npm install --omit=dev --no-audit --no-fund /tmp/*.tgz

# 3. Run: no toolchain, no sources, the unprivileged `node` user of the base image.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    SWITCHYARD_HOST=0.0.0.0 \
    SWITCHYARD_PORT=8080 \
    SWITCHYARD_DB=/data/switchyard.db
WORKDIR /app
COPY --from=install /app/node_modules ./node_modules
RUN mkdir -p /data && chown node:node /data
# The database, its WAL and the generated <db>.master-keys file (mode 0600) live here: keep the volume private.
VOLUME ["/data"]
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SWITCHYARD_PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/node_modules/@switchyard-run/switchyard/dist/bin/switchyard.js"]
# A container faces a network: no demo workspace with its known password. Bootstrap with `apply` or --manifest.
CMD ["start", "--no-demo"]
