# The etcdns runtime image: node, the `etcdns` command compiled to JavaScript (lib/) and its
# production dependencies (dns2, etcd3, js-yaml and theirs). No TypeScript, no cdk8s, no npm
# dev or peer dependencies, no tests. DnsServer and DnsController run it as `etcdns server` and
# `etcdns controller`, as user 65532 with a read-only root file system and a writable /tmp.
#
# Build (README, "The image: build and publish"):
#   npm ci && npm run build && docker build -t etcdns:dev .     (lib/ must be built first)
#   npm run image                                                (here: buildah, no registry)
#
# NODE_IMAGE is any image with node 24 on PATH; the default is the official one, same Node as the
# project pins (package.json devDependency "node"). Pin it by digest where you build for real
# (--build-arg NODE_IMAGE=node:24.21.0-bookworm-slim@sha256:...).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Production dependencies, exactly as locked. All of them are plain JavaScript (no native
# addons), so they are installed once on the build machine's own platform and copied into every
# target platform: a multi-arch build runs no emulated npm. No install scripts are needed.
# scripts/image.sh replaces this whole stage with `--build-context deps=<dir>` holding
# app/node_modules, installed on the host by the same npm ci (no registry inside its build).
FROM --platform=$BUILDPLATFORM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# (npm's cache stays behind in this stage; only node_modules is copied on.)
# --omit=optional: typescript, an optional peer of valibot, is also a dev dependency ("devOptional").
RUN npm ci --omit=dev --omit=optional --omit=peer --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# .dockerignore lets through only what the command runs: bin/etcdns.js, package.json (its version
# and type: module) and the command's part of lib/ without declarations.
COPY package.json ./
COPY bin ./bin
COPY lib ./lib
# Numeric, so Kubernetes can verify runAsNonRoot. 65532 (distroless's "nonroot") is no login
# user of a node, as 1000 usually is; the official node image has no entry for it, which node
# does not need (no home directory is used). The files stay root-owned and world-readable:
# read-only to it.
USER 65532:65532
ENTRYPOINT ["node", "bin/etcdns.js"]
CMD ["--help"]
