#!/bin/bash
# Unpacks the carried binaries into build-rel/bin and makes /work/main this tree (the test binaries hold the
# build folder's absolute path, /work/main/build-rel).
set -e
mkdir -p /tmp/w build-rel/bin && tar xJf build-rel/dev/bins.tar.xz -C /tmp/w && cp /tmp/w/bin/* build-rel/bin/
mkdir -p /work && { [ -e /work/main ] || ln -s "$PWD" /work/main; }
