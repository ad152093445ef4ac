#!/usr/bin/env bash
# `npm run image`: builds the etcdns runtime image from the Dockerfile on this machine, with
# buildah (no daemon), and tags it localhost/etcdns:<package version>; podman runs it.
#
# This machine reaches no container registry, so the script brings what `docker build` would pull:
#   1. the base (the Dockerfile's NODE_IMAGE), assembled here with `buildah from scratch`: the
#      pinned Node binary from node_modules (the `node` dev dependency), the shared libraries it
#      links, copied from Debian's packages, Debian's CA bundle, an /etc/passwd with the uid
#      65532 user ("nonroot"), a /tmp. No shell, no npm. Tagged localhost/etcdns-base:<hash of
#      that content>, so a rerun finds it (seconds) and a changed Node or library makes a new one.
#   2. the production node_modules, installed here by the same `npm ci --omit=dev|optional|peer`
#      the Dockerfile's deps stage runs (host npm, its cache and registry settings), kept under
#      .cache/image/deps/<hash of package.json and package-lock.json>/app/node_modules, and given
#      to the build as the named context `deps`, which takes the place of that stage.
#   3. lib/, from `npm run build` when it is missing or older than the sources.
# Then `buildah bud --layers` (cached steps: a warm rerun copies nothing new) and the sizes.
#
# Needs buildah and runc (scripts/setup-test-env.sh installs them) and root, or a rootless
# buildah set-up. Idempotent; temporary containers and directories are removed on any exit.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cache="$root/.cache/image"
mkdir -p "$cache"
log() { printf '[image] %s\n' "$*" >&2; }

# The pinned Node first on PATH (npm run does this too; a direct `bash scripts/image.sh` may not):
# npm ci, npm run build and this script's own `node -p` run under it.
export PATH="$root/node_modules/.bin:$PATH"
node_bin=$(readlink -f "$root/node_modules/.bin/node" 2>/dev/null || true)
[ -x "$node_bin" ] || { log "no node_modules/.bin/node: run npm ci first"; exit 1; }
version=$(node -p 'require("./package.json").version')
pinned_node=$(node -p 'require("./package.json").devDependencies.node')
[ "$(node -p 'process.versions.node')" = "$pinned_node" ] ||
  { log "node_modules/.bin/node is not the pinned Node $pinned_node: run npm ci"; exit 1; }
image="localhost/etcdns:$version"

# Everything temporary is registered here and removed on exit, also on failure.
containers=()
temps=()
cleanup() {
  for c in "${containers[@]}"; do buildah rm "$c" >/dev/null 2>&1 || true; done
  for t in "${temps[@]}"; do rm -rf "$t"; done
}
trap cleanup EXIT

sha() { sha256sum | cut -c1-16; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }

# --- 1. the base ---------------------------------------------------------------------------------
# Recipe version: bump it when the files below change in a way their content hash does not show.
BASE_RECIPE=3
PASSWD='root:x:0:0:root:/root:/usr/sbin/nologin
nonroot:x:65532:65532:etcdns:/home/nonroot:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin'
GROUP='root:x:0:
nonroot:x:65532:
nogroup:x:65534:'
# /etc/hosts first (podman and Kubernetes mount one), then DNS: what Debian images say.
NSSWITCH='hosts: files dns'

# The libraries exactly as the dynamic loader resolves them here (ldd), at the same paths, so the
# image's loader finds them in its default directories without an ld.so.cache.
mapfile -t libs < <(ldd "$node_bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
# Debian's CA certificates as shipped (the mozilla set), not this machine's ca-certificates.crt,
# which may hold local additions that have no place in an image.
mapfile -t cas < <(find /usr/share/ca-certificates/mozilla -name '*.crt' | LC_ALL=C sort)
[ ${#cas[@]} -gt 0 ] || { log "no /usr/share/ca-certificates/mozilla: apt-get install ca-certificates"; exit 1; }

base_key=$(
  {
    echo "recipe $BASE_RECIPE"
    printf '%s\n%s\n%s\n' "$PASSWD" "$GROUP" "$NSSWITCH"
    sha256sum "$node_bin" "${libs[@]}" "${cas[@]}"
  } | sha
)
base="localhost/etcdns-base:$base_key"

# The Debian packages the libraries and certificates come from, with versions (a label).
debian_packages() {
  local paths=("${libs[@]}" /usr/share/ca-certificates/mozilla) p pkgs=()
  # dpkg knows a file by the path its package ships it at: as given, resolved, or under /usr
  # (merged /usr: /lib is a link to usr/lib).
  for p in "${paths[@]}"; do
    pkgs+=("$({ dpkg -S "$p" || dpkg -S "$(readlink -f "$p")" || dpkg -S "/usr$p"; } 2>/dev/null |
      head -1 | cut -d: -f1)")
  done
  # shellcheck disable=SC2016 # dpkg-query's own ${Field} syntax
  printf '%s\n' "${pkgs[@]}" | grep -v '^$' | sort -u |
    xargs dpkg-query -W -f='${Package}=${Version} ' 2>/dev/null | sed 's/ $//'
}

build_base() {
  log "assembling the base $base (Node $pinned_node + ${#libs[@]} Debian libraries)"
  local c m lib
  c=$(buildah from --quiet scratch)
  containers+=("$c")
  m=$(buildah mount "$c")
  mkdir -p "$m/usr/local/bin" "$m/etc/ssl/certs" "$m/home/nonroot" "$m/tmp" "$m/root"
  install -m 0755 "$node_bin" "$m/usr/local/bin/node"
  for lib in "${libs[@]}"; do
    mkdir -p "$m$(dirname "$lib")"
    cp -L "$lib" "$m$lib"
  done
  cat "${cas[@]}" > "$m/etc/ssl/certs/ca-certificates.crt"
  printf '%s\n' "$PASSWD" > "$m/etc/passwd"
  printf '%s\n' "$GROUP" > "$m/etc/group"
  printf '%s\n' "$NSSWITCH" > "$m/etc/nsswitch.conf"
  chmod 1777 "$m/tmp"
  chmod 0700 "$m/root"
  chown 65532:65532 "$m/home/nonroot"
  buildah umount "$c" >/dev/null
  buildah config \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    --cmd '["node"]' \
    --label "org.opencontainers.image.description=etcdns local base: Node $pinned_node from npm and Debian libraries" \
    --label "io.etcdns.base.debian-packages=$(debian_packages)" \
    "$c"
  buildah commit --quiet --rm "$c" "$base" >/dev/null
  containers=()
}

if buildah inspect --type image "$base" >/dev/null 2>&1; then
  log "base $base (cached)"
else
  build_base
fi

# --- 2. the production node_modules -------------------------------------------------------------
# As the Dockerfile's deps stage installs them. --omit=optional too: an optional peer of a
# production package that is also a dev dependency (typescript, of valibot) is "devOptional".
omit=(--omit=dev --omit=optional --omit=peer)
deps_key=$({ cat package.json package-lock.json; echo "${omit[*]}"; } | sha)
deps="$cache/deps/$deps_key"
if [ -d "$deps/app/node_modules" ]; then
  log "node_modules $deps_key (cached)"
else
  log "npm ci ${omit[*]} into .cache/image/deps/$deps_key"
  mkdir -p "$cache/deps"
  tmp=$(mktemp -d "$cache/deps/.new.XXXXXX")
  temps+=("$tmp")
  mkdir -p "$tmp/app"
  cp package.json package-lock.json "$tmp/app/"
  (cd "$tmp/app" && npm ci "${omit[@]}" --ignore-scripts --prefer-offline \
    --no-audit --no-fund --loglevel=error >&2)
  # Other versions' trees are stale now; the new one appears whole or not at all.
  find "$cache/deps" -mindepth 1 -maxdepth 1 -not -name '.new.*' -exec rm -rf {} +
  mv "$tmp" "$deps"
fi

# --- 3. lib/ ------------------------------------------------------------------------------------
# Fresh when lib/runtime/cli.js is newer than every source and build setting that produces it.
if [ -f lib/runtime/cli.js ] &&
  [ -z "$(find src bin package.json tsconfig*.json scripts/build.ts -newer lib/runtime/cli.js -print -quit 2>/dev/null)" ]; then
  log "lib/ is up to date"
else
  log "npm run build"
  npm run build --silent
fi

# --- 4. the image ---------------------------------------------------------------------------------
previous=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
log "buildah bud -> $image"
start=$(date +%s)
# --layers: each step is cached, so an unchanged rerun only re-tags. --pull=never: everything is
# local. --runtime runc: only RUN steps start a container (this build has none left: its deps
# stage is replaced), and crun refuses this machine's hybrid cgroups v1.
buildah bud --layers --pull=never --runtime runc \
  --build-arg "NODE_IMAGE=$base" \
  --build-context "deps=$deps" \
  --label "org.opencontainers.image.version=$version" \
  --tag "$image" \
  --file Dockerfile . >&2
log "built in $(($(date +%s) - start)) s"

# The image this tag named before, when it changed and nothing else names it.
current=$(podman image inspect --format '{{.Id}}' "$image")
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then
  buildah rmi "$previous" >/dev/null 2>&1 || true
fi
# Bases of earlier recipes or Node versions; one still under another image stays (rmi refuses).
for old in $(podman images --format '{{.Repository}}:{{.Tag}}' --filter reference=localhost/etcdns-base); do
  [ "$old" = "$base" ] || buildah rmi "$old" >/dev/null 2>&1 || true
done

size=$(podman image inspect --format '{{.Size}}' "$image")
base_size=$(podman image inspect --format '{{.Size}}' "$base")
modules_size=$(du -sb "$deps/app/node_modules" | cut -f1)
log "$image: $(mb "$size") (base $(mb "$base_size"), node_modules $(mb "$modules_size"))"
echo "$image"
