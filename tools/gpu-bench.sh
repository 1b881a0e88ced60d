#!/usr/bin/env bash
# The rendering frame benchmark on a bare GPU machine (issue 24 §1).
#
# Build here:   bash tools/gpu-bundle.sh (or cargo build --release --example flythrough)
# Copy:         .gpu/ (or target/release/examples/flythrough) and this script
# Run there:    tools/gpu-bench.sh [BINARY] [OUT_DIR]   (ROUTE_SECONDS=S: a shorter
#               route, e.g. 5 on a CPU renderer, where a frame takes a second;
#               RENDERS, CORES and CORE_SECONDS: below)
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
# No Vulkan loader, or no glvnd (NVIDIA's Vulkan driver lives in
# libGLX_nvidia and needs it): the bundle's, unpacked where the system looks.
if ! ldconfig -p | grep -q libGLdispatch.so.0 || ! ldconfig -p | grep -q libvulkan.so.1; then
    for f in "$bundle"/debs/*.deb; do
        if [[ -e $f ]]; then
            dpkg -x "$f" / && echo "unpacked $(basename "$f")"
        fi
    done
    ldconfig
fi
# NVIDIA's driver where the loader does not look.
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [[ -e $icd ]]; then
    export VK_DRIVER_FILES=$icd
fi
# For the log: the drivers the loader can find.
ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>/dev/null || true
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
fi
# wgpu picks the high-performance adapter; force Vulkan. RENDERS="; --msaa 1;
# --prepass" renders the route once for each ';'-separated set of flags (none:
# MSAA 4, Bevy's default and the world example's camera); render.json holds
# the first, render-2.json and on the others.
export WGPU_BACKEND=vulkan
IFS=';' read -ra renders <<< "${RENDERS:-}"
((${#renders[@]})) || renders=("")
i=0
for flags in "${renders[@]}"; do
    i=$((i + 1))
    name=render
    ((i == 1)) || name=render-$i
    # shellcheck disable=SC2086 # the flags are words
    "$bin" --render --seconds "${ROUTE_SECONDS:-60}" $flags --json "$out/$name.json" 2>&1 \
        | grep -v ' WARN \| INFO ' | tee "$out/$name.txt" || echo "(a check failed: see above)"
    cat "$out/$name.json" || true
done
# Issue 24 §3: the headless frame (app.update() wall time, 300 m/s) pinned to
# 2, 4, 8 and 16 cores (as many as there are), with the default plugin (every
# main schedule on one thread) and with Bevy's multi-threaded executor.
# CORES="2 4" (a count twice: two runs), MODES=default (or --multi-threaded)
# and CORE_SECONDS=S choose; CORES= leaves it out.
cores=${CORES-2 4 8 16}
if [[ -n $cores ]] && command -v taskset >/dev/null; then
    n=$(nproc --all)
    grep -m1 'model name' /proc/cpuinfo | tee -a "$out/cores.txt" || true
    run=$(mktemp)
    for c in $cores; do
        ((c <= n)) || continue
        for mode in ${MODES:-default --multi-threaded}; do
            flag=$mode
            [[ $mode == default ]] && flag=
            taskset -c "0-$((c - 1))" "$bin" --seconds "${CORE_SECONDS:-12}" $flag 2>&1 \
                | grep -v ' WARN \| INFO ' > "$run" || true
            line=$(grep 'app.update() wall time' "$run" || echo 'failed')
            echo "$c cores, $mode: ${line#*: }" | tee -a "$out/cores.txt"
            cat "$run" >> "$out/cores-full.txt"
        done
    done
fi
