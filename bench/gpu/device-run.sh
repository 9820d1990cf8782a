#!/bin/sh
# Runs on the GPU machine (no node, no registry), from the repository root, after bench/gpu/pack.cjs packed
# bench/gpu/carry here and the device tool carried it (carry: ["bench/gpu/carry"]). Unpacks node and the payload with
# Python's tarfile (no xz binary needed), points Dawn at the NVIDIA Vulkan driver, checks the adapter and the parity
# of the training path with the CPU backend, then runs the benchmark. Results go to $OUT (or bench/out). Dawn writes
# its validation messages (a shader it rejects) to stdout: they stay in the output, where they say what went wrong.
#   sh bench/gpu/device-run.sh [train-score.cjs flags…]
set -eu
STAGE=${EO_GPU_STAGE:-/tmp/eo-gpu}
OUT=${OUT:-bench/out}
mkdir -p "$STAGE" "$OUT"
python3 - "$STAGE" <<'PY'
import sys, tarfile
stage = sys.argv[1]
tarfile.open('bench/gpu/carry/node.tar.xz').extractall(stage)
tarfile.open('bench/gpu/carry/payload.tar.xz').extractall('.')
PY
export PATH="$STAGE/bin:$PATH"
export LD_LIBRARY_PATH="$PWD/bench/gpu/carry/vulkan${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -z "${VK_DRIVER_FILES:-}" ]; then
  for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$f" ]; then export VK_DRIVER_FILES="$f"; break; fi
  done
fi
echo "node $(node --version); VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
node dist/lib/cli/eo.js gpu check --parity | tee "$OUT/gpu-check.txt"
# without flags: one epoch and the typed-array trainer at batch 256 only (the wasm child then takes about 4 minutes,
# inside the device tool's 10 minutes a command); flags given replace these
if [ $# -eq 0 ]; then set -- --epochs 1 --typed-batches 256; fi
node bench/gpu/train-score.cjs --out "$OUT/gpu-train-score.json" "$@" 2>&1 | grep -v -e '^=*$' -e 'Hi, looks like' | tee "$OUT/gpu-train-score.txt"
