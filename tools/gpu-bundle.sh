#!/usr/bin/env bash
# Prepares, here, all that tools/gpu-bench.sh needs on a bare GPU machine
# that cannot reach the network (issue 24 §1): the release fly-through,
# stripped and gzipped to fit the device tool's 64 MiB working tree, and the
# packages of the Vulkan loader and of glvnd (which NVIDIA's Vulkan driver
# needs) for a machine without them. Everything goes to .gpu/ (ignored by
# git): carry it.
#
#   bash tools/gpu-bundle.sh
#   device run:  command "bash tools/gpu-bench.sh .gpu/flythrough.gz $OUT"
#                carry [".gpu"], timeout_s 540 (on an H100 the route took
#                about 25 s and the frame by cores about 16 s a run, 8 runs;
#                RENDERS, CORES, MODES, ROUTE_SECONDS in front of the command: see
#                gpu-bench.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.gpu
mkdir -p "$out/debs"
cargo build --release --example flythrough
bin="${CARGO_TARGET_DIR:-target}/release/examples/flythrough"
strip -o "$out/flythrough" "$bin"
gzip -9 -f "$out/flythrough"
# libvulkan1 for this architecture, from the distribution's archive, with
# lists of its own (the machine's apt state is left alone).
lists=$(mktemp -d)
mkdir -p "$lists/partial"
o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
if apt-get "${o[@]}" update -qq && (cd "$out/debs" && apt-get "${o[@]}" download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2); then
    echo "Vulkan loader: $(ls "$out/debs")"
else
    echo "could not download the packages: the GPU machine must have a Vulkan loader and glvnd"
fi
rm -rf "$lists"
du -sh "$out"
