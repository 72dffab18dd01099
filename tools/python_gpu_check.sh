#!/usr/bin/env bash
# The Python package on a GPU machine, in one go (issue 59): tunes a small database on this GPU (512^3 and 2048^3 of
# four kinds, three named points each, about a minute), then runs every test of tests/python against it
# (MPGEMM_TEST_GPU_DB: the tuned and nearest paths), the host-cost benchmark and the decoder-block example.
#   tools/python_gpu_check.sh [OUT_DIR]      logs under OUT_DIR (default /tmp/mpgemm-python-check)
# mpgemm must be importable (pip install ., or PYTHONPATH=build/python) and mpgemm-tune on PATH (the package's, or
# MPGEMM_BIN=build/bin). Exit status: pytest's.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-/tmp/mpgemm-python-check}"
mkdir -p "$out"
tune="${MPGEMM_BIN:+$MPGEMM_BIN/}mpgemm-tune"
python="${PYTHON:-python3}"
db="$out/gpu.db"
cd "$root"
"$python" -c "import mpgemm, torch; print('mpgemm', mpgemm.__version__, mpgemm.__file__); print(mpgemm.environment());
print(torch.__version__, torch.cuda.get_device_name() if torch.cuda.is_available() else 'no CUDA device')" \
  2>&1 | tee "$out/environment.txt"
for kind in mk_kn_fp16_fp32 mk_nk_bf16_bf16 mk_kn_bf16_bf16 km_kn_bf16_bf16; do
  "$tune" configs/sm90a.json --only wgmma_tile128,wgmma_pingpong,wgmma_persistent \
    --shapes 512x512x512,2048x2048x2048 --problem "$kind" --no-screen --rerank 0 --db "$db" \
    > "$out/tune_$kind.log" 2>&1 || echo "python_gpu_check: tuning $kind failed (see $out/tune_$kind.log)"
done
MPGEMM_TEST_GPU_DB="$db" "$python" -m pytest tests/python -q -rs -p no:cacheprovider 2>&1 | tee "$out/pytest.log"
status=${PIPESTATUS[0]}
"$python" tools/python_bench.py "$db" --problem mk_nk_bf16_bf16 --shape 2048x2048x2048 --json "$out/bench.json" \
  2>&1 | tee "$out/bench.txt"
"$python" examples/python/decoder_blocks.py --help > /dev/null 2>&1 && \
  timeout 120 "$python" examples/python/decoder_blocks.py run --db "$db" 2>&1 | tee "$out/decoder_blocks.txt"
exit "$status"
