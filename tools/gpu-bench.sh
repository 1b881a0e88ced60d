#!/usr/bin/env bash
# The rendering frame benchmark on a bare GPU machine (issue 24 §1).
#
# Build here:   bash tools/gpu-bundle.sh (or cargo build --release --example flythrough)
# Copy:         .gpu/ (or target/release/examples/flythrough) and this script
# Run there:    tools/gpu-bench.sh [BINARY] [OUT_DIR]   (ROUTE_SECONDS=S: a shorter
#               route, e.g. 5 on a CPU renderer, where a frame takes a second)
#
# The binary needs nothing but libc and the system's Vulkan loader
# (libvulkan.so.1, dlopen'd by wgpu) with the GPU's driver; no window and no
# display server: it renders offscreen at 1920 x 1080 along a fixed route
# (60 s of route at 60 frames a second, after the world around the start
# has streamed in) and prints CPU and GPU frame times (p50/p99), draw
# calls, triangles, entities and memory; OUT_DIR/render.json gets them too.
#
# From tools/gpu-bundle.sh (a gzipped binary and the Vulkan loader's
# package in .gpu/): tools/gpu-bench.sh .gpu/flythrough.gz OUT_DIR
set -euo pipefail
bin=${1:-target/release/examples/flythrough}
out=${2:-.}
bundle=$(dirname "$bin")
mkdir -p "$out"
if [[ $bin == *.gz ]]; then
    gunzip -c "$bin" > /tmp/flythrough
    chmod +x /tmp/flythrough
    bin=/tmp/flythrough
fi
# No Vulkan loader: the bundle's (unpacked where the system looks).
if ! ldconfig -p | grep libvulkan.so.1 >/dev/null; then
    for f in "$bundle"/debs/*.deb; do
        if [[ -e $f ]]; then
            dpkg -x "$f" / && echo "unpacked $(basename "$f")"
        fi
    done
    ldconfig
fi
# NVIDIA's driver where the loader does not look.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [[ -e $icd ]] && ! ls /usr/share/vulkan/icd.d/nvidia* /etc/vulkan/icd.d/nvidia* >/dev/null 2>&1; then
    export VK_DRIVER_FILES=$icd
fi
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
fi
# wgpu picks the high-performance adapter; force Vulkan.
export WGPU_BACKEND=vulkan
"$bin" --render --seconds "${ROUTE_SECONDS:-60}" --json "$out/render.json" 2>&1 | grep -v ' WARN \| INFO ' | tee "$out/render.txt" \
    || echo "(a check failed: see above)"
cat "$out/render.json"
