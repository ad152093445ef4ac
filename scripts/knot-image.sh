#!/usr/bin/env bash
# The Knot DNS image of the DNSSEC signer (src/constructs/dnssec/), assembled with buildah from
# this machine's Debian packages, as setup-cluster-env.sh assembles etcd's (no registry is
# reachable): knotd, knotc and keymgr (the DS for the parent) with the libraries they link, and
# for the pod's init step a shell (dash as /bin/sh) and getent, which resolves the etcdns Service
# name into Knot's configuration. An /etc/passwd with the uid 65532 user the pods run as, an
# nsswitch.conf ("hosts: files dns"), and the directories the pod mounts. No package manager.
#
# Tagged localhost/knot:<Knot version>, and written to .cache/cluster-images/knot-<key>.oci.tar
# for the cluster check's containerd; <key> is a hash of the content, so a rerun with the same
# binaries does nothing (a second) and a Debian update makes a new one. Prints the tag.
# Needs buildah and root (scripts/setup-test-env.sh installs buildah and Knot).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache/cluster-images"
log() { printf '[knot-image] %s\n' "$*" >&2; }
# Recipe version: bump it when the content below changes in a way the hash does not show.
RECIPE=1
BINARIES=(/usr/sbin/knotd /usr/sbin/knotc /usr/sbin/keymgr /usr/bin/dash /usr/bin/getent)
PASSWD='root:x:0:0:root:/root:/usr/sbin/nologin
knot:x:65532:65532:knot:/var/lib/knot:/usr/sbin/nologin'
GROUP='root:x:0:
knot:x:65532:'

version=$(knotd -V | awk '{print $NF}')
image="localhost/knot:$version"
# The libraries exactly as the dynamic loader resolves them here, at the same paths.
mapfile -t libs < <(ldd "${BINARIES[@]}" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u)
key=$({
  echo "knot $RECIPE"
  printf '%s\n%s\n' "$PASSWD" "$GROUP"
  sha256sum "${BINARIES[@]}" "${libs[@]}"
} | sha256sum | cut -c1-16)
archive="$cache/knot-$key.oci.tar"

if [ -f "$archive" ] && [ "$(buildah inspect --type image --format '{{index .ImageAnnotations "io.etcdns.content-key"}}' "$image" 2>/dev/null)" = "$key" ]; then
  log "$image ($key, cached)"
  echo "$image"
  exit 0
fi

log "assembling $image ($key): ${#BINARIES[@]} programs, ${#libs[@]} libraries"
c=$(buildah from --quiet scratch)
trap 'buildah rm "$c" >/dev/null 2>&1 || true' EXIT
m=$(buildah mount "$c")
mkdir -p "$m/usr/sbin" "$m/usr/bin" "$m/bin" "$m/etc/knot" "$m/var/lib/knot" "$m/run/knot" "$m/tmp"
for b in "${BINARIES[@]}"; do install -m 0755 "$b" "$m$b"; done
ln -s /usr/bin/dash "$m/bin/sh"
for lib in "${libs[@]}"; do mkdir -p "$m$(dirname "$lib")" && cp -L "$lib" "$m$lib"; done
printf '%s\n' "$PASSWD" > "$m/etc/passwd"
printf '%s\n' "$GROUP" > "$m/etc/group"
echo 'hosts: files dns' > "$m/etc/nsswitch.conf"
chown 65532:65532 "$m/var/lib/knot" "$m/run/knot"
chmod 1777 "$m/tmp"
buildah umount "$c" >/dev/null
# shellcheck disable=SC2016 # dpkg-query's own ${Field} syntax
packages=$(dpkg-query -W -f='${Package}=${Version} ' knot dash libc-bin 2>/dev/null | sed 's/ $//')
buildah config \
  --env PATH=/usr/sbin:/usr/bin:/bin \
  --user 65532:65532 \
  --cmd '["/usr/sbin/knotd", "-c", "/etc/knot/knot.conf"]' \
  --annotation "io.etcdns.content-key=$key" \
  --label "org.opencontainers.image.description=etcdns DNSSEC signer: Knot DNS $version from Debian" \
  --label "org.opencontainers.image.version=$version" \
  --label "io.etcdns.debian-packages=$packages" \
  "$c"
buildah commit --quiet "$c" "$image" >/dev/null
mkdir -p "$cache"
rm -f "$cache/knot-"*.oci.tar
buildah push --quiet "$image" "oci-archive:$archive.new:$image"
mv "$archive.new" "$archive"
log "$image: $(podman image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.1f MB", $1 / 1e6 }')"
echo "$image"
