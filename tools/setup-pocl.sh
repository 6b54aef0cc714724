#!/usr/bin/env bash
# A pocl that compiles on today's CPUs, from Debian: pocl-opencl-icd (Debian 12: pocl 3.1 with
# LLVM 15). PyPI's pocl (pocl-binary-distribution 3.0, LLVM 14) cannot compile for AMD Zen 5
# CPUs ("unknown target CPU 'generic'"); oclstat lists it as unusable there and never chooses
# it, and with Debian's beside it the name "pocl" means the newer, usable one.
# Installs only what is missing, only as root where apt-get exists; otherwise it says what to
# do and succeeds (Intel's CPU runtime from PyPI still gives a CPU device).
set -euo pipefail
if dpkg-query -W -f='${Status}' pocl-opencl-icd 2>/dev/null | grep -q "install ok installed"; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-pocl: no apt-get here; oclstat uses PyPI's pocl and Intel's CPU runtime" >&2
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup-pocl: run as root (or: sudo apt-get install pocl-opencl-icd) for a pocl that" \
       "compiles on every current CPU" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq --no-install-recommends pocl-opencl-icd >/dev/null 2>&1; then
  apt-get update -qq && apt-get install -y -qq --no-install-recommends pocl-opencl-icd >/dev/null \
    || echo "setup-pocl: apt-get could not install pocl-opencl-icd" >&2
fi
exit 0
