# The etcdns image that DnsServer and DnsController run (`etcdns server`, `etcdns controller`).
# Node 24 runs the TypeScript sources directly (type stripping): no build step, no dev tools.
# Same Node as the project (package.json pins node 24.21.0); pin the base by digest in CI.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, exactly as locked; no install scripts (none are needed).
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src/runtime ./src/runtime
# Numeric, so Kubernetes can verify runAsNonRoot; 1000 is the image's "node" user. The files
# stay root-owned and read-only to it.
USER 1000:1000
ENTRYPOINT ["node", "bin/etcdns.js"]
CMD ["--help"]
