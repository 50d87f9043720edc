#!/bin/sh
# The one system library minitorch's build takes from the distribution: Gloo (Debian/Ubuntu's libgloo-dev), the
# engine of minitorch.distributed's CPU backend ("gloo"). The README's first command runs this before pip.
#
# Debian/Ubuntu: installs libgloo-dev with apt-get (through sudo when not root; `apt-get update` first when the
# package lists do not know it). Elsewhere, or when apt-get cannot run: says what to do and exits 0, so the
# install goes on; the build then compiles Gloo from its source when it can download it
# (-DMINITORCH_GLOO_SOURCE_DIR=<unpacked Gloo> for offline builds), else builds without the gloo backend, which
# then raises at init_process_group with the fix. MINITORCH_SKIP_SYSTEM_DEPS=1 skips this script.
# Everything else the build needs comes from PyPI (pyproject.toml); the CPU vector math needs no system package
# (SLEEF, libsleef-dev, is an optional speed-up the build uses when it is installed).
set -u
pkg=libgloo-dev
note() { echo "minitorch system deps: $*"; }

[ "${MINITORCH_SKIP_SYSTEM_DEPS:-0}" = 1 ] && { note "skipped (MINITORCH_SKIP_SYSTEM_DEPS=1)"; exit 0; }
if [ -f /usr/include/gloo/config.h ]; then
  note "Gloo present (/usr/include/gloo)"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  note "no apt-get here: install Gloo's headers and library with your package manager, or build it from its"
  note "source (-DMINITORCH_GLOO_SOURCE_DIR, see README 'Distributed backends'); without it the gloo backend is off"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  as_root=""
elif command -v sudo >/dev/null 2>&1; then
  as_root="sudo"
else
  note "not root and no sudo: run 'apt-get install $pkg' as root for the gloo backend"
  exit 0
fi
# a fresh image has empty package lists: update them once when apt knows no candidate for the package
if ! apt-cache policy "$pkg" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  note "apt-get update (the package lists do not know $pkg yet)"
  $as_root apt-get update -qq || note "apt-get update failed"
fi
note "installing $pkg (Gloo, for minitorch.distributed's gloo backend)"
if DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends "$pkg" >/dev/null; then
  note "Gloo installed"
else
  note "could not install $pkg: the build goes on without the system Gloo (see README 'Distributed backends')"
fi
exit 0
