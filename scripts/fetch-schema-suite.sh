#!/usr/bin/env bash
# Fetches the official JSON-Schema-Test-Suite (carried by the PyPI `jsonschema` sdist) and the draft
# meta-schemas (carried by `jsonschema-specifications`) into target/schema-suite. Idempotent: a warm
# rerun only checks that the files are there. Nothing fetched here is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=target/schema-suite
suite_pkg=jsonschema==4.26.0
specs_pkg=jsonschema-specifications==2025.9.1
if [[ -f $dest/ready ]]; then
  exit 0
fi
mkdir -p "$dest/download"
fetch() {
  local spec=$1
  if python3 -m pip --version >/dev/null 2>&1; then
    python3 -m pip download --quiet --no-deps --no-binary :all: "$spec" -d "$dest/download"
  else
    # No pip: read the file link from PyPI's simple index and check the sha256 it carries.
    local name=${spec%%==*} version=${spec##*==}
    local norm=${name//-/_}
    local link
    link=$(curl -fsSL "https://pypi.org/simple/$name/" | grep -o "https://[^\"]*/${norm}-${version}\.tar\.gz#sha256=[0-9a-f]*" | head -n1)
    [[ -n $link ]] || { echo "fetch-schema-suite: no sdist link for $spec" >&2; exit 1; }
    local file=$dest/download/${norm}-${version}.tar.gz
    curl -fsSL -o "$file" "${link%%#*}"
    echo "${link##*sha256=}  $file" | sha256sum -c --quiet -
  fi
}
fetch "$suite_pkg"
fetch "$specs_pkg"
rm -rf "$dest/tests" "$dest/remotes" "$dest/metaschemas"
tmp=$(mktemp -d)
tar xzf "$dest"/download/jsonschema-4.26.0.tar.gz -C "$tmp"
tar xzf "$dest"/download/jsonschema_specifications-2025.9.1.tar.gz -C "$tmp"
mv "$tmp"/jsonschema-4.26.0/json/tests "$dest/tests"
mv "$tmp"/jsonschema-4.26.0/json/remotes "$dest/remotes"
mv "$tmp"/jsonschema_specifications-2025.9.1/jsonschema_specifications/schemas "$dest/metaschemas"
rm -rf "$tmp"
touch "$dest/ready"
echo "fetch-schema-suite: JSON-Schema-Test-Suite in $dest"
