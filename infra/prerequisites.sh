#!/usr/bin/env bash
# What `make run` / `make test` need from the machine, before the venv is built.
#
#   infra/prerequisites.sh run    Python >= 3.11 with venv
#   infra/prerequisites.sh test   the same, plus make, git, curl, Java 17+ and npm (DynamoDB Local),
#                                 Chromium and CJK fonts (the browser tests), libfaketime (the
#                                 date check, infra/date_check.py)
#
# Run as root on Debian (apt-get present), as CI does, it installs whatever is missing with one
# `apt-get update`. Anywhere else it stops at once with ONE line naming what is missing and the
# command that installs it, and exits 1. MESQ_PREREQ_AS_ROOT=0|1 overrides the root test (the
# tests use it); PYTHON names the interpreter (the Makefile passes its own).
set -euo pipefail

target="${1:-test}"
python="${PYTHON:-python3}"

case "$target" in
  run) needs=(python) ;;
  test) needs=(python make git curl java npm chromium cjk_fonts faketime) ;;
  *) echo "usage: $0 run|test" >&2; exit 2 ;;
esac

# need -> Debian package, and how the line names it.
declare -A package=(
  [python]=python3-venv [make]=make [git]=git [curl]=curl [java]=openjdk-17-jre-headless
  [npm]=npm [chromium]=chromium [cjk_fonts]=fonts-noto-cjk [faketime]=faketime
)
declare -A label=(
  [python]="Python >= 3.11 with venv ($python)" [make]=make [git]=git [curl]=curl [java]="Java 17+"
  [npm]=npm [chromium]=chromium [cjk_fonts]="CJK fonts" [faketime]=libfaketime
)

present() {
  case "$1" in
    python) command -v "$python" >/dev/null &&
      "$python" -c 'import sys, ensurepip, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ;;
    java) command -v java >/dev/null && [ "$(java_major)" -ge 17 ] 2>/dev/null ;;
    cjk_fonts) command -v fc-list >/dev/null && [ -n "$(fc-list ':lang=zh' family 2>/dev/null)" ] ;;
    *) command -v "$1" >/dev/null ;;
  esac
}

java_major() {
  # `openjdk version "17.0.15" ...` -> 17; `java version "1.8.0_392"` -> 8.
  local version
  version="$(java -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1)"
  version="${version#1.}"
  echo "${version%%[.+_-]*}"
}

missing() {
  local need
  for need in "${needs[@]}"; do
    present "$need" || echo "$need"
  done
}

mapfile -t absent < <(missing)
((${#absent[@]})) || exit 0

as_root="${MESQ_PREREQ_AS_ROOT:-}"
[ -n "$as_root" ] || { [ "$(id -u)" = 0 ] && as_root=1 || as_root=0; }

packages=()
names=()
for need in "${absent[@]}"; do
  packages+=("${package[$need]}")
  names+=("${label[$need]}")
done

if [ "$as_root" = 1 ] && command -v apt-get >/dev/null; then
  echo "make $target: installing ${packages[*]} with apt-get" >&2
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}"; } >&2; then
    echo "make $target: apt-get could not install ${packages[*]} (see above)" >&2
    exit 1
  fi
  mapfile -t absent < <(missing)
  ((${#absent[@]})) || exit 0
  echo "make $target: still missing after apt-get: ${absent[*]}" >&2
  exit 1
fi

joined="$(IFS=,; echo "${names[*]}")"
echo "make $target: missing ${joined//,/, }; install with: sudo apt-get install -y ${packages[*]} (Debian/Ubuntu)" >&2
exit 1
